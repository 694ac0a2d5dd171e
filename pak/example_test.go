package pak_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/unrmod/unrmod/pak"
)

// Write the companion pak of an IoStore container: empty, version 11,
// naming the container's key GUID.
func ExampleNewWriter() {
	var buf bytes.Buffer
	w, err := pak.NewWriter(&buf, &pak.WriterOptions{
		EncryptionKeyGUID: pak.GUID{0x11223344, 0x55667788, 0x99AABBCC, 0xDDEEFF00},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	r, err := pak.Decode(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "z_MyMod_P.pak", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(buf.Len(), "bytes,", "version", r.Footer.Version, "mount point", r.MountPoint)
	fmt.Println("key GUID", r.Footer.EncryptionKeyGUID, "files", len(r.Files))
	// Output:
	// 347 bytes, version 11 (Fnv64BugFix) mount point ../../../
	// key GUID 112233445566778899AABBCCDDEEFF00 files 0
}

// Write a pak with loose files (a locres and an ini) next to a container,
// then open it and read the files back. From version 10 the files are
// listed in the order of the directory index: sorted by directory.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "pak-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "z_MyMod_P.pak")

	out, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	w, err := pak.NewWriter(out, &pak.WriterOptions{Compress: true})
	if err != nil {
		log.Fatal(err)
	}
	w.WriteFile("Game/Content/Localization/Game/en/Game.locres", []byte{0x0E, 0x14, 0x74, 0x75, 0x67, 0x4A, 0x03, 0xFC, 0x4A, 0x15})
	w.WriteFile("Game/Config/DefaultGame.ini", bytes.Repeat([]byte("[/Script/Engine.GameSession]\nMaxPlayers=4\n"), 100))
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	if err := out.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := pak.Open(name, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for _, f := range r.Files {
		data, err := f.ReadAll() // checked against the SHA-1 the pak records
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d bytes, %s, smaller stored: %v\n", f.Path, len(data), r.Footer.MethodName(f.Method), f.Size < int64(len(data)))
	}
	// Output:
	// Game/Config/DefaultGame.ini: 4200 bytes, Zlib, smaller stored: true
	// Game/Content/Localization/Game/en/Game.locres: 10 bytes, None, smaller stored: false
}
