// Package ufile is the one place that recognises what an Unreal file is and
// opens it once: a legacy UE1/UE2 package, a cooked UE4/UE5 asset, a zen
// package, an IoStore container, a container-header chunk or a pak.
// Commands and patches ask Open (or Recognise, for bytes already in
// memory) instead of sniffing files on their own, so that every part of
// unrmod tells the kinds apart the same way and a file is read only once.
//
// The name says what it is about: an Unreal file (compare os.File), opened
// and told apart, not decoded — each kind is decoded by its own package
// (reader, uasset, iostore/zen, iostore, pak), which File's methods call.
//
// Open reads a bounded prefix of the file and its size; only the kinds
// that are decoded from memory (legacy packages, cooked asset headers,
// zen packages and container headers) are read whole, each within its
// format's size limit. Containers and paks are left to their readers,
// which fetch what they need through an io.ReaderAt. Anything but a
// regular file is refused before it is read from.
package ufile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/uasset"
)

// Kind is what a file holds.
type Kind uint8

// The kinds Open tells apart.
const (
	// Unknown is a file of none of the kinds below (or one that cannot be
	// read); Open's error says what it is.
	Unknown Kind = iota
	// LegacyPackage is a UE1/UE2 package (reader.Read decodes it).
	LegacyPackage
	// CookedAsset is a UE4/UE5 package file summary (tag 0x9E2A83C1 and a
	// negative legacy file version): a cooked .uasset/.umap with its
	// .uexp beside it, a single-file asset, or an editor asset (uasset
	// decodes them).
	CookedAsset
	// ZenPackage is a zen package saved on its own, as extract writes it.
	ZenPackage
	// Container is an IoStore container, given by its .utoc (recognised by
	// its extension in any case, or by the TOC magic).
	Container
	// ContainerHeader is a container-header chunk saved on its own.
	ContainerHeader
	// Pak is a .pak archive whose footer decodes.
	Pak
	// ContainerData is a container's block store (.ucas), which is read
	// through its .utoc (File.TOC). A .ucas whose bytes are one zen
	// package (an uncompressed container of one package) is that package.
	ContainerData
	// ShaderLibrary is a UE5 shader library file (.ushaderbytecode or
	// .uzenshaderbytecode, recognised by its name and version): as the
	// cooker writes it (version 2; 3 from UE 5.8), or its IoStore header
	// (version 1) as extract writes it. It is not read whole: a cooked
	// library holds all its shaders' code (convert.NewZenShaderLibrary).
	ShaderLibrary
)

var kindNames = [...]string{
	Unknown:         "unknown file",
	LegacyPackage:   "legacy package",
	CookedAsset:     "cooked asset",
	ZenPackage:      "zen package",
	Container:       "IoStore container",
	ContainerHeader: "container header",
	Pak:             "pak",
	ContainerData:   "IoStore block store",
	ShaderLibrary:   "shader library",
}

// String names the kind, e.g. "zen package".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Size limits of the kinds read whole.
const (
	// MaxChunkSize is the largest zen package or container header Open
	// reads: zen packages use 32-bit offsets and unrmod keeps every chunk
	// under 4 GiB.
	MaxChunkSize = 1<<32 - 1
	// MaxAssetSize is the largest cooked asset header file Open reads: its
	// offsets are signed 32-bit integers.
	MaxAssetSize = 1<<31 - 1
)

// prefixSize is how much of a file Open reads before it knows what the
// file is: the tag and versions of a package summary, the TOC magic, and
// the first fields of a zen package summary (see mayBeChunk).
const prefixSize = 64

// File is a recognised file.
type File struct {
	// Path is the file's name as given.
	Path string
	// Kind is what the file holds.
	Kind Kind
	// Size is the file's size in bytes (0 for a .utoc recognised by its
	// name alone).
	Size int64
	// Data is the whole file for the kinds decoded from memory
	// (LegacyPackage, CookedAsset, ZenPackage, ContainerHeader), else nil.
	Data []byte
	// Version is a legacy package's file version and licensee.
	Version reader.Version
	// Layout is a zen package's layout.
	Layout zen.Layout
	// LegacyFileVersion is a cooked asset's summary version (-7 for UE
	// 4.14–4.27, -8 and -9 for UE5).
	LegacyFileVersion int32
	// Uexp is the .uexp beside a cooked asset, or "" for a single-file
	// asset (or one given as bytes).
	Uexp string
	// TOC is the .utoc of a Container, and the .utoc of the same name
	// beside a .ucas or a .pak (the container whose block store or
	// companion pak it is), else "".
	TOC string
	// Pak is the pak a cooked asset was read from (PakAsset), else "";
	// Path and Uexp are then paths inside it.
	Pak string

	uexpData []byte // the .uexp of an asset read from a pak
	prefix   []byte // the bytes read before the kind was known
	err      error  // Open's error, for Unknown
}

// NotRecognisedError is Open's error for a file of none of the kinds. Its
// message is the legacy reader's (a file that is no Unreal file is most
// often given where a legacy package was meant), which names the file and
// says what else it is when it is a file of another Unreal format.
type NotRecognisedError struct {
	Path string
	Err  error // what the legacy reader says of it, or why it cannot be read
}

func (e *NotRecognisedError) Error() string { return e.Err.Error() }
func (e *NotRecognisedError) Unwrap() error { return e.Err }

// NotTakenError is what a caller says of a recognised file of a kind it
// does not handle (File.NotTaken).
type NotTakenError struct {
	Path string
	Kind Kind
	By   string // what refuses it, e.g. "unrmod info"
	desc string
}

func (e *NotTakenError) Error() string {
	return fmt.Sprintf("%s: %s: %ss are recognised, but %s does not take them yet", e.Path, e.desc, e.Kind, e.By)
}

// NotTaken returns the error by which by (a command or an operation, e.g.
// "unrmod info", "a patch target") refuses a file of a kind it does not
// handle yet.
func (f *File) NotTaken(by string) error {
	return &NotTakenError{Path: f.Path, Kind: f.Kind, By: by, desc: f.Describe()}
}

// Tagged reports whether the file starts with the package tag 0x9E2A83C1
// of legacy packages and UE4/UE5 package summaries (which no zen package
// has), whether or not its version is one unrmod reads.
func (f *File) Tagged() bool { return bytes.HasPrefix(f.prefix, tagBytes) }

// Describe says what the file is in a few words, e.g. "a UE4 .uasset
// (unversioned, as cooked)" or "a UE 4.26/4.27 zen package".
func (f *File) Describe() string {
	switch f.Kind {
	case CookedAsset:
		return describeAsset(f.Path, f.prefix)
	case ZenPackage:
		return "a " + f.Layout.String() + " zen package"
	case LegacyPackage:
		return fmt.Sprintf("a legacy package (file version %d, licensee %d)", f.Version.File, f.Version.Licensee)
	}
	return "a " + f.Kind.String()
}

// Options tune Open. A nil *Options is the zero value.
type Options struct {
	// MaxRead, when above zero, lowers every size limit: a file of a kind
	// read whole that is larger is refused with safefile.ErrTooLarge.
	MaxRead int64
}

func (o *Options) limit(l int64) int64 {
	if o != nil && o.MaxRead > 0 && o.MaxRead < l {
		return o.MaxRead
	}
	return l
}

// Open recognises the file at path. The File is never nil: for a file of
// none of the kinds, or one that cannot be read, it is of kind Unknown and
// the error (a *NotRecognisedError) says why, naming the file. A .utoc is
// recognised by its name alone, without opening it: the container reader
// reports what is wrong with it.
func Open(path string, opts *Options) (*File, error) {
	f := &File{Path: path}
	if isExt(path, ".utoc") {
		f.Kind, f.TOC = Container, path
		return f, nil
	}
	file, size, err := safefile.OpenRegular(path)
	if err != nil {
		return f.fail(err)
	}
	defer file.Close()
	if err := f.recognise(file, size, opts); err != nil {
		return f.fail(err)
	}
	if f.Kind == CookedAsset {
		if u := uasset.CompanionNames(path).Uexp; isRegular(u) {
			f.Uexp = u
		}
	}
	if isExt(path, ".ucas") || isExt(path, ".pak") {
		if t := strings.TrimSuffix(path, filepath.Ext(path)) + ".utoc"; isRegular(t) {
			f.TOC = t
		}
	}
	return f, f.err
}

// Recognise tells what data, the whole content of a file named name, is;
// as Open, but from memory. The File keeps data for the kinds read whole.
func Recognise(name string, data []byte) (*File, error) {
	return RecogniseReaderAt(name, memory{bytes.NewReader(data), data}, int64(len(data)), nil)
}

// memory is data already in memory, which readWhole keeps rather than
// copies.
type memory struct {
	*bytes.Reader
	data []byte
}

// RecogniseReaderAt tells what the size bytes of r, a file named name,
// are; as Open, reading a bounded prefix and only the kinds decoded from
// memory whole.
func RecogniseReaderAt(name string, r io.ReaderAt, size int64, opts *Options) (*File, error) {
	f := &File{Path: name}
	if isExt(name, ".utoc") {
		f.Kind, f.TOC = Container, name
		return f, nil
	}
	if err := f.recognise(r, size, opts); err != nil {
		return f.fail(err)
	}
	return f, f.err
}

func (f *File) fail(err error) (*File, error) {
	f.Kind, f.Data = Unknown, nil
	f.err = &NotRecognisedError{Path: f.Path, Err: err}
	return f, f.err
}

// recognise reads the prefix of r and decides. It returns an error only
// for a read that fails; a file of no kind sets f.err.
func (f *File) recognise(r io.ReaderAt, size int64, opts *Options) error {
	f.Size = size
	head := make([]byte, min(size, prefixSize))
	if n, err := r.ReadAt(head, 0); n < len(head) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	f.prefix = head
	le := binary.LittleEndian
	switch {
	case isExt(f.Path, ".pak") && footerDecodes(r, size, f.Path):
		f.Kind = Pak
		return nil
	case (isExt(f.Path, ".ushaderbytecode") || isExt(f.Path, ".uzenshaderbytecode")) && len(head) >= 4 && le.Uint32(head) >= 1 && le.Uint32(head) <= 3:
		f.Kind = ShaderLibrary
		return nil
	case len(head) >= len(iostore.TocMagic) && string(head[:len(iostore.TocMagic)]) == iostore.TocMagic:
		f.Kind, f.TOC = Container, f.Path
		return nil
	case len(head) >= 8 && le.Uint32(head) == reader.Tag:
		if v := int32(le.Uint32(head[4:])); v < 0 && v >= -9 {
			f.Kind, f.LegacyFileVersion = CookedAsset, v
			return f.readWhole(r, size, opts.limit(MaxAssetSize), "a cooked asset")
		}
		if err := f.readWhole(r, size, opts.limit(reader.MaxFileSize), "a legacy package"); err != nil {
			return err
		}
		v := le.Uint32(head[4:])
		if ver := uint16(v); ver < reader.VerMin || ver > reader.VerMax {
			// Not a version unrmod reads: the reader says so.
			_, err := reader.Read(f.Path, f.Data)
			f.Data, f.err = nil, &NotRecognisedError{Path: f.Path, Err: err}
			return nil
		}
		f.Kind, f.Version = LegacyPackage, reader.Version{File: uint16(v), Licensee: uint16(v >> 16)}
		return nil
	case len(head) >= 4 && !bytes.Equal(head[:4], tagBytes) && mayBeChunk(head, size) && size <= opts.limit(MaxChunkSize):
		if err := f.readWhole(r, size, MaxChunkSize, "a chunk file"); err != nil {
			return err
		}
		if f.Kind, f.Layout = chunkKind(f.Data); f.Kind != Unknown {
			return nil
		}
		f.Data = nil
	}
	if isExt(f.Path, ".ucas") {
		// A block store that is no chunk on its own (an uncompressed
		// container's single package is one).
		f.Kind = ContainerData
		return nil
	}
	f.notRecognised(size, opts)
	return nil
}

// notRecognised sets the error of a file of no kind: what the legacy
// reader says of its first bytes (its tag and what its name and magic
// say it is), or that it is larger than a legacy package can be.
func (f *File) notRecognised(size int64, opts *Options) {
	var err error
	if max := opts.limit(reader.MaxFileSize); size > max {
		err = tooLarge(f.Path, size, max, "a legacy package")
	} else {
		_, err = reader.Read(f.Path, f.prefix)
	}
	f.Kind, f.err = Unknown, &NotRecognisedError{Path: f.Path, Err: err}
}

// readWhole reads all size bytes of r into f.Data, refusing a file larger
// than max before reading.
func (f *File) readWhole(r io.ReaderAt, size, max int64, what string) error {
	if size > max {
		return tooLarge(f.Path, size, max, what)
	}
	if m, ok := r.(memory); ok {
		f.Data = m.data
		return nil
	}
	data := make([]byte, size)
	if n, err := r.ReadAt(data, 0); int64(n) < size {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	f.Data = data
	return nil
}

// tooLarge is the error of safefile.ReadRegular for a file larger than
// its format can be.
func tooLarge(path string, size, max int64, what string) error {
	return &os.PathError{Op: "read", Path: path,
		Err: fmt.Errorf("%w: %d bytes, more than the %d %s can hold", safefile.ErrTooLarge, size, max, what)}
}

// tagBytes is reader.Tag as stored: the first four bytes of every package
// that is not a zen package.
var tagBytes = []byte{0xC1, 0x83, 0x2A, 0x9E}

// footerDecodes reports whether r holds a pak footer that decodes.
func footerDecodes(r io.ReaderAt, size int64, name string) bool {
	_, err := pak.DecodeFooter(r, size, name)
	return err == nil
}

// chunkKind tells what a chunk saved as a file (by extract, retoc or
// another tool) holds, from its structure alone: a container header (the
// UE5 layout starts with zen.HeaderSignature; the 4.2x one has none and
// is recognised by decoding it whole), a zen package of either generation
// with its layout, or Unknown. A result other than Unknown means the
// offsets and sizes in the data are consistent with that layout, not that
// every part of it decodes.
func chunkKind(data []byte) (Kind, zen.Layout) {
	if len(data) >= 8 && binary.LittleEndian.Uint32(data) == zen.HeaderSignature {
		return ContainerHeader, zen.LayoutUnknown
	}
	if l, err := zen.DetectLayout(data); err == nil {
		return ZenPackage, l
	}
	if h, err := zen.DecodeContainerHeader("", data); err == nil && h.Version == zen.HeaderUE4 && len(h.Trailing) == 0 {
		return ContainerHeader, zen.LayoutUnknown
	}
	return Unknown, zen.LayoutUnknown
}

// mayBeChunk reports whether a file of size bytes starting with head could
// hold a chunk chunkKind recognises, so that a large file
// of another kind is not read whole. It looks only at what each kind fixes
// in its first bytes, and is true for every file that chunkKind
// recognises:
//   - a UE5 container header starts with its signature;
//   - a UE 4.26/4.27 container header has none, but is at most
//     zen.MaxContainerHeaderSize bytes, so small files are always read;
//   - a UE 4.26/4.27 package's name map starts right after its 64-byte
//     summary, at the offset stored at 24;
//   - a UE5 package starts with a 0 or 1 (versioned) and the header's
//     size, at least the 44-byte summary and at most the file.
func mayBeChunk(head []byte, size int64) bool {
	le := binary.LittleEndian
	switch {
	case size <= zen.MaxContainerHeaderSize:
		return true
	case le.Uint32(head) == zen.HeaderSignature:
		return true
	case len(head) >= 28 && le.Uint32(head[24:]) == 64:
		return true
	case len(head) >= 8 && le.Uint32(head) <= 1:
		h := int64(le.Uint32(head[4:]))
		return h >= 44 && h <= size
	}
	return false
}

func isExt(path, ext string) bool { return strings.EqualFold(filepath.Ext(path), ext) }

func isRegular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// describeAsset says what a UE4/UE5 package summary is, from its first
// bytes: "a UE4 .uasset (unversioned, as cooked)", "a UE5 package (file
// version 522, UE5 version 1004)".
func describeAsset(file string, data []byte) string {
	le := binary.LittleEndian
	legacy := int32(le.Uint32(data[4:]))
	at := 8
	if legacy != -4 {
		at += 4 // LegacyUE3Version
	}
	var ue4, ue5 int32
	if len(data) >= at+4 {
		ue4 = int32(le.Uint32(data[at:]))
	}
	if legacy <= -8 && len(data) >= at+8 {
		ue5 = int32(le.Uint32(data[at+4:]))
	}
	kind := "a UE4 "
	if legacy <= -8 { // the UE5 summary starts at legacy version -8
		kind = "a UE5 "
	}
	if ext := strings.ToLower(filepath.Ext(file)); ext == ".uasset" || ext == ".umap" {
		kind += ext
	} else {
		kind += "package"
	}
	ver := fmt.Sprintf("file version %d", ue4)
	switch {
	case ue4 == 0:
		ver = "unversioned, as cooked"
	case ue5 > 0:
		ver += fmt.Sprintf(", UE5 version %d", ue5)
	}
	return fmt.Sprintf("%s (%s)", kind, ver)
}
