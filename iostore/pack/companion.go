package pack

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/unrmod/unrmod/pak"
)

// CompanionFile is a loose file for the companion .pak.
type CompanionFile struct {
	// Path is relative to the game's root, '/'-separated, e.g.
	// "Maine/Config/DefaultGame.ini".
	Path string
	// Open opens the file's contents, which WriteCompanion reads a block
	// at a time: an *os.File, or anything with its ReadAt and Stat.
	Open func() (CompanionReader, error)
}

// CompanionReader is the contents of a CompanionFile. Stat gives its size,
// once before it is read and once after, so that a file that changes
// meanwhile is refused rather than stored in part.
type CompanionReader interface {
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
}

// WriteCompanion writes to f (named path in messages) the .pak that makes
// the engine mount the IoStore container of the same base name
// (docs/containers.md, "The companion .pak"): pak version 11, which UE 4.26
// to 5.x read, mounted at ../../../, the container's key GUID in its footer,
// and the given loose files. It then reads the pak back and reads every
// file through the pak reader, which checks its hash. Files are streamed
// in both directions: memory is a few blocks, whatever their sizes.
func WriteCompanion(f *os.File, path string, guid pak.GUID, files []CompanionFile) error {
	pw, err := pak.NewWriter(f, &pak.WriterOptions{EncryptionKeyGUID: guid, Compress: true})
	if err != nil {
		return err
	}
	for _, lf := range files {
		if err := addCompanionFile(pw, lf); err != nil {
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

// addCompanionFile streams one file into pw, refusing it when its size
// changes while it is read.
func addCompanionFile(pw *pak.Writer, lf CompanionFile) error {
	r, err := lf.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	st, err := r.Stat()
	if err != nil {
		return err
	}
	if err := pw.Add(lf.Path, r, st.Size()); err != nil {
		return err
	}
	if after, err := r.Stat(); err != nil || after.Size() != st.Size() {
		if err == nil {
			err = fmt.Errorf("%d bytes when it was read, %d now: %w", st.Size(), after.Size(), pak.ErrFileChanged)
		}
		return err
	}
	return nil
}
