package pak

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrCannotCopy means a file cannot be copied as it is stored into the pak
// being written (see Writer.CopyFile): the paks differ in version,
// compression slots or encryption. Callers add the file's contents
// instead (Writer.Add), which compresses and encrypts it again.
var ErrCannotCopy = errors.New("the file cannot be copied as it is stored")

// useMethods takes a source pak's method names as the footer's slots, and
// finds or adds the slot of the Writer's method when files are to be
// compressed.
func (w *Writer) useMethods(methods []string) error {
	if len(methods) != 4 && len(methods) != 5 {
		return fmt.Errorf("pak writer: %d compression method slots; a footer has 4 or 5", len(methods))
	}
	w.slots = append([]string(nil), methods...)
	if !w.opts.Compress {
		return nil
	}
	free := -1
	for i, m := range w.slots {
		if strings.EqualFold(m, w.method) {
			w.mslot = uint32(i + 1)
			return nil
		}
		if m == "" && free < 0 {
			free = i
		}
	}
	if free < 0 {
		return fmt.Errorf("pak writer: every compression method slot is taken (%s), none by %s", strings.Join(w.slots, ", "), w.method)
	}
	w.slots[free] = w.method
	w.mslot = uint32(free + 1)
	return nil
}

// CopyFile adds src, a file of another pak, at name (see Create for the
// rules of paths), copying its record and stored bytes as they are: its
// compressed blocks are neither decompressed nor compressed again, and
// encrypted bytes are not decrypted. Only the offsets change. That needs
// the source pak to have the Writer's version, its method slots (give its
// Footer.Methods in WriterOptions.Methods) and, for an encrypted file,
// the Writer's key and cipher mode; otherwise CopyFile fails with
// ErrCannotCopy before writing anything. The record is checked against the
// source's index; the bytes are checked when the written pak is read back
// (their hash is copied with them).
func (w *Writer) CopyFile(name string, src *File) error {
	if err := w.canCopy(src); err != nil {
		return fmt.Errorf("pak writer: %s: %w", name, err)
	}
	hash, err := src.checkRecord()
	if err != nil {
		return err
	}
	if err := w.claim(name); err != nil {
		return err
	}
	v, slots := w.opts.Version, len(w.slots)
	e := src.Entry
	e.Offset = w.w.n
	e.Hash = hash
	delta := e.Offset + e.HeaderSize(v, slots) - src.DataOffset()
	e.Blocks = make([]Block, len(src.Blocks))
	for i, b := range src.Blocks {
		e.Blocks[i] = Block{b.Start + delta, b.End + delta}
	}
	stored := e.Size
	if e.Encrypted {
		stored = align16(stored)
	}
	if _, w.err = w.w.Write(appendEntry(nil, &e, v, slots, 0)); w.err != nil {
		return w.err
	}
	n, err := io.Copy(w.w, io.NewSectionReader(src.r.r, src.DataOffset(), stored))
	if err == nil && n != stored {
		err = fmt.Errorf("%s: %s ends %d bytes into its %d stored bytes: %w", src.r.Name, src.Path, n, stored, io.ErrUnexpectedEOF)
	}
	if err != nil {
		w.err = fmt.Errorf("pak writer: copying %s: %w", name, err)
		return w.err
	}
	w.high = max(w.high, w.w.n)
	w.entries = append(w.entries, writtenEntry{path: name, entry: e})
	return nil
}

// canCopy says why src cannot be copied as it is stored, or nil.
func (w *Writer) canCopy(src *File) error {
	sf := &src.r.Footer
	switch {
	case src.Deleted:
		return fmt.Errorf("it is a delete record: %w", ErrCannotCopy)
	case sf.Version != w.opts.Version:
		return fmt.Errorf("its pak is version %d, the pak written %d: %w", uint32(sf.Version), uint32(w.opts.Version), ErrCannotCopy)
	case src.Encrypted != w.opts.EncryptFiles:
		return fmt.Errorf("it is encrypted in one pak and not in the other: %w", ErrCannotCopy)
	case src.Encrypted && (src.r.key == nil || w.opts.Key == nil || *src.r.key != *w.opts.Key || sf.CTR() != w.opts.CTR):
		return fmt.Errorf("the paks are encrypted with different keys or ciphers: %w", ErrCannotCopy)
	}
	if !w.opts.Version.HasMethodNames() || src.Method == 0 {
		return nil
	}
	if len(sf.Methods) != len(w.slots) || int(src.Method) > len(w.slots) || !strings.EqualFold(w.slots[src.Method-1], sf.MethodName(src.Method)) {
		return fmt.Errorf("its compression slot %d (%s) is not the same slot of the pak written: %w", src.Method, sf.MethodName(src.Method), ErrCannotCopy)
	}
	return nil
}
