package convert_test

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ue/oodle"
)

// Convert a cooked UE 5.4 asset into the zen package a 5.4 game loads and
// save it beside the asset's bulk data, which the package uses unchanged.
func ExampleToZen() {
	name := "Saved/Cooked/Windows/MyGame/Content/UI/W_Menu.uasset"
	header, err := os.ReadFile(name)
	if err != nil {
		log.Fatal(err)
	}
	exports, err := os.ReadFile(uasset.CompanionNames(name).Uexp)
	if err != nil {
		log.Fatal(err)
	}
	a, err := uasset.Decode(name, header, exports, nil)
	if err != nil {
		log.Fatal(err)
	}
	p, err := convert.ToZen(a, &convert.Options{Engine: zen.Engine{Major: 5, Minor: 4}})
	switch {
	case errors.Is(err, convert.ErrNotCooked):
		log.Fatal("cook the asset first: ", err)
	case errors.Is(err, convert.ErrUnresolvedImport):
		log.Fatal("the asset names an object it cannot reach: ", err)
	case err != nil:
		log.Fatal(err)
	}
	chunk, err := convert.EncodeChecked(name, p) // encoded, decoded again and verified
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("mod/MyGame/Content/UI/W_Menu.uasset", chunk, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s (%v): %d exports, %d bytes\n", p.PackageName(), p.ID(), len(p.Exports), len(chunk))
}

// Take a package out of a game's container as the cooked asset UAssetGUI
// and the editor open: the container set beside it (its other containers
// and global.utoc) names the imports.
func ExampleToLegacy() {
	set, err := convert.OpenContainerSet("Paks/pakchunk0-Windows.utoc", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer set.Close()
	p, bulk, err := set.Package("/Game/Data/DT_Items")
	if err != nil {
		log.Fatal(err)
	}
	a, err := convert.ToLegacy(p, &convert.LegacyOptions{Engine: zen.Engine58, Imports: set.Source, FileName: "DT_Items.uasset"})
	var un *convert.UnresolvedImportsError
	switch {
	case errors.As(err, &un):
		log.Fatalf("%d imports need %v (global.utoc needed: %v)", len(un.Imports), un.Packages, un.ScriptObjects)
	case err != nil:
		log.Fatal(err)
	}
	header, exports, err := convert.EncodeLegacyChecked(a, p) // decodes clean and converts back into p
	if err != nil {
		log.Fatal(err)
	}
	for name, data := range map[string][]byte{"DT_Items.uasset": header, "DT_Items.uexp": exports, "DT_Items.ubulk": bulk.Ubulk} {
		if data != nil {
			if err := os.WriteFile(name, data, 0o644); err != nil {
				log.Fatal(err)
			}
		}
	}
	fmt.Printf("%s: %d names, %d imports, %d exports\n", p.PackageName(), len(a.Names), len(a.Imports), len(a.Exports))
}

// Turn a pak-era shader library into its IoStore chunks, one group at a
// time, through the game's Oodle library: the groups first, then the
// header that records their stored sizes; and the shader maps a
// package's store entry lists.
func ExampleNewZenShaderLibrary() {
	const file = "Cooked/ShaderArchive-MyGame-PCD3D_SM6-PCD3D_SM6.ushaderbytecode"
	lib, err := oodle.Open("MyGame/Binaries/Win64/oo2core_9_win64.dll")
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	l, err := convert.NewZenShaderLibrary(f, st.Size(), file, "", &convert.ShaderLibraryOptions{
		Decompress: lib.Decompress,
		Compress: func(dst, src []byte) ([]byte, error) {
			return lib.Compress(dst, src, oodle.Mermaid, oodle.Normal) // the packer's default
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	var buf []byte
	for g := range l.Zen.Groups {
		if buf, err = l.Group(g, buf); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("ShaderCode chunk %v: %d bytes\n", l.GroupChunkID(g), len(buf)) // write it here
	}
	header, err := l.EncodeHeader()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("ShaderCodeLibrary chunk:", len(header), "bytes")

	info, err := os.Open(convert.ShaderAssetInfoName(file))
	if err != nil {
		log.Fatal(err)
	}
	defer info.Close()
	assets, err := convert.ReadShaderAssetInfo(info.Name(), info)
	if err != nil {
		log.Fatal(err)
	}
	held := map[convert.ShaderHash]bool{}
	for _, h := range l.Zen.ShaderMapHashes {
		held[h] = true
	}
	maps := convert.StoreEntryShaderMaps("/Game/Materials/M_Rock", func(h convert.ShaderHash) bool { return held[h] }, assets)
	fmt.Println(len(maps), "shader maps in /Game/Materials/M_Rock's store entry")
}
