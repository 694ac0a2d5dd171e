package pack

import (
	"fmt"
	"io"
	"os"

	"github.com/unrmod/unrmod/iostore/pak"
)

// CompanionFile is a loose file for the companion .pak.
type CompanionFile struct {
	// Path is relative to the game's root, '/'-separated, e.g.
	// "Maine/Config/DefaultGame.ini".
	Path string
	Open func() (io.ReadCloser, error)
}

// WriteCompanion writes to f (named path in messages) the .pak that makes
// the engine mount the IoStore container of the same base name
// (docs/containers.md, "The companion .pak"): pak version 11, which UE 4.26
// to 5.x read, mounted at ../../../, the container's key GUID in its footer,
// and the given loose files. It then reads the pak back and reads every
// file through the pak reader, which checks its hash.
func WriteCompanion(f *os.File, path string, guid pak.GUID, files []CompanionFile) error {
	pw, err := pak.NewWriter(f, &pak.WriterOptions{EncryptionKeyGUID: guid, Compress: true})
	if err != nil {
		return err
	}
	for _, lf := range files {
		rc, err := lf.Open()
		if err != nil {
			return err
		}
		w, err := pw.Create(lf.Path)
		if err == nil {
			_, err = io.Copy(w, rc)
		}
		rc.Close()
		if err != nil {
			return fmt.Errorf("%s: %s: %w", path, lf.Path, err)
		}
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	r, err := pak.Decode(f, st.Size(), path, nil)
	if err != nil {
		return fmt.Errorf("the written pak does not read back: %w", err)
	}
	if len(r.Files) != len(files) {
		return fmt.Errorf("%s: the written pak lists %d files, want %d", path, len(r.Files), len(files))
	}
	for _, pf := range r.Files {
		rc, err := pf.Open()
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if err != nil {
			return fmt.Errorf("%s: %s does not read back: %w", path, pf.Path, err)
		}
	}
	return nil
}
