package ufile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/uasset"
)

// Err returns Open's error: non-nil exactly when the file is Unknown.
func (f *File) Err() error { return f.err }

// Legacy decodes a legacy package. For a file of another kind it returns
// the legacy reader's error, which says what the file is instead (Open's
// error for an Unknown file).
func (f *File) Legacy() (*reader.Package, error) {
	switch {
	case f.err != nil:
		return nil, f.err
	case f.Kind == LegacyPackage || f.Data != nil:
		return reader.Read(f.Path, f.Data)
	case f.prefix != nil:
		return reader.Read(f.Path, f.prefix)
	}
	return reader.ReadFile(f.Path)
}

// ZenPackage decodes a zen package with its detected layout unless opts
// names one.
func (f *File) ZenPackage(opts *zen.DecodeOptions) (*zen.Package, error) {
	if f.Kind != ZenPackage {
		return nil, f.notKind(ZenPackage)
	}
	return zen.DecodePackage(f.Path, f.Data, opts)
}

// ContainerHeader decodes a container-header chunk.
func (f *File) ContainerHeader() (*zen.ContainerHeader, error) {
	if f.Kind != ContainerHeader {
		return nil, f.notKind(ContainerHeader)
	}
	return zen.DecodeContainerHeader(f.Path, f.Data)
}

// Asset decodes a cooked asset with its .uexp beside it (read here, within
// MaxAssetSize), or as a single-file asset when there is none.
func (f *File) Asset(opts *uasset.Options) (*uasset.Package, error) {
	if f.Kind != CookedAsset {
		return nil, f.notKind(CookedAsset)
	}
	uexp := f.uexpData
	if f.Uexp != "" && f.Pak == "" {
		var err error
		if uexp, err = safefile.ReadRegular(f.Uexp, MaxAssetSize, "the export data of a cooked asset"); err != nil {
			return nil, err
		}
	}
	return uasset.Decode(f.Path, f.Data, uexp, opts)
}

// AssetStream decodes a cooked asset with its .uexp beside it as Asset
// does, but reads the .uexp only as needed (uasset.DecodeStream): memory
// follows the header, not the export data. The .uexp stays open for the
// package to read its exports' data from; close it when done with the
// package. A single-file asset, or one in a pak, is decoded whole (the
// file returned is then nil).
func (f *File) AssetStream(opts *uasset.Options) (*uasset.Package, *os.File, error) {
	if f.Kind != CookedAsset {
		return nil, nil, f.notKind(CookedAsset)
	}
	if f.Uexp == "" || f.Pak != "" {
		p, err := f.Asset(opts)
		return p, nil, err
	}
	x, err := os.Open(f.Uexp)
	if err != nil {
		return nil, nil, err
	}
	st, err := x.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file", f.Uexp)
	}
	if err != nil {
		x.Close()
		return nil, nil, err
	}
	p, err := uasset.DecodeStream(f.Path, f.Data, x, st.Size(), opts)
	if err != nil {
		x.Close()
		return nil, nil, err
	}
	return p, x, nil
}

// Uses returns the files a run that reads f reads, for safefile's locks: a
// container's .utoc and each of its .ucas partitions, a cooked asset and
// the .uexp beside it, or the file.
func (f *File) Uses() []safefile.Use {
	switch {
	case f.Pak != "":
		return []safefile.Use{{Path: f.Pak, What: "the pak"}}
	case f.Kind == Container:
		return iostore.ContainerUses(f.TOC, false, false, "container")
	case f.Kind == CookedAsset && f.Uexp != "":
		return []safefile.Use{{Path: f.Path}, {Path: f.Uexp, What: "the export data of the asset"}}
	}
	return []safefile.Use{{Path: f.Path}}
}

// KindError is the error of a File method that decodes one kind, called
// on a file of another.
type KindError struct {
	Path       string
	Kind, Want Kind
}

func (e *KindError) Error() string {
	return e.Path + ": a " + e.Kind.String() + ", not a " + e.Want.String()
}

func (f *File) notKind(want Kind) error {
	if f.err != nil {
		return f.err
	}
	return &KindError{Path: f.Path, Kind: f.Kind, Want: want}
}

// OpenZenStream opens the zen package file path to be read in ranges
// (zen.DecodePackageStream) when it is a regular file of at least min bytes
// that decodes so: it returns the package and the open file the package
// reads its exports' data from (close it when done with the package). For
// anything else — a smaller file, another kind of file, a package that
// cannot be streamed, a file that cannot be read — it returns nil, nil and
// leaves nothing open: the caller reads the file whole, which reports any
// error.
func OpenZenStream(path string, min int64) (*zen.Package, *os.File) {
	if strings.EqualFold(filepath.Ext(path), ".utoc") {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < min {
		f.Close()
		return nil, nil
	}
	p, err := zen.DecodePackageStream(path, f, st.Size(), nil)
	if err != nil {
		f.Close()
		return nil, nil
	}
	return p, f
}
