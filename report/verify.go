package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/iostore/zen/zenprops"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/props"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/uasset/assetprops"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/usmap"
)

// Verify is what `unrmod verify` found in the files it checked.
type Verify struct {
	OK    bool         `json:"ok"`
	Files []FileVerify `json:"files"`
}

// FileVerify is what verify found in one file. Kind is "" for a legacy
// package, "iostore", "pak", "container-header", "zen-package",
// "cooked-asset" or "commit-record"; the summary of the file's kind is set when the file
// could be read.
type FileVerify struct {
	File      string           `json:"file"`
	Kind      string           `json:"kind,omitempty"`
	OK        bool             `json:"ok"`
	Names     int              `json:"names"`
	Imports   int              `json:"imports"`
	Exports   int              `json:"exports"`
	Container *ContainerVerify `json:"container,omitempty"`
	// Pak summarizes a .pak.
	Pak *PakVerify `json:"pak,omitempty"`
	// ContainerHeader summarizes a container-header chunk given as a file.
	ContainerHeader *zen.HeaderSummary `json:"container_header,omitempty"`
	// Asset summarizes a cooked UE4/UE5 asset (.uasset or .umap).
	Asset *AssetVerify `json:"asset,omitempty"`
	// ShaderLibrary summarizes a UE5 shader library file.
	ShaderLibrary *ShaderLibraryInfo `json:"shader_library,omitempty"`
	// Package is a zen package's name.
	Package  string    `json:"package,omitempty"`
	Problems []Problem `json:"problems"`
	// Warnings are what a legacy package holds that the engine accepts as
	// it is (names storing characters after a zero); they do not make the
	// file fail.
	Warnings []Problem `json:"warnings,omitempty"`
}

// Problem is one problem verify found: the structure, where it is (nil
// when not tied to an offset), what is wrong, and the whole as one line.
type Problem struct {
	Struct  string `json:"struct"`
	Offset  *int64 `json:"offset"`
	Message string `json:"message"`
	Text    string `json:"text"`
}

// ContainerVerify is what verify checked in an IoStore container.
type ContainerVerify struct {
	Chunks        int `json:"chunks"`
	Blocks        int `json:"blocks"`
	HashesChecked int `json:"hashes_checked"`
	// NotChecked counts chunks unrmod cannot decode (Oodle): their
	// structure is checked, their hash is not. NotCheckedWhy says why.
	NotChecked    int    `json:"not_checked"`
	NotCheckedWhy string `json:"not_checked_why,omitempty"`
	// PackagesChecked counts package chunks decoded as zen packages and
	// checked.
	PackagesChecked int `json:"packages_checked"`
	// ShaderLibrariesChecked counts UE5 shader library chunks decoded and
	// checked against their name and the groups the container holds.
	ShaderLibrariesChecked int `json:"shader_libraries_checked"`
}

// PakVerify is the verify summary of a pak.
type PakVerify struct {
	Version int `json:"version"`
	Files   int `json:"files"`
}

// AssetVerify is the verify summary of a cooked asset: the engine release
// it was read as (detected from the layout of an unversioned cook when
// ReleaseDetected, Fitting then listing every release whose layout fits,
// oldest first), whether it was cooked or saved by the editor, and whether
// its exports' tagged properties were checked (not for unversioned
// properties, which carry no tags, nor for an editor-saved asset, some of
// whose exports serialize editor data before their properties).
type AssetVerify struct {
	Release           string   `json:"release"`
	ReleaseDetected   bool     `json:"release_detected"`
	Fitting           []string `json:"fitting,omitempty"`
	Cooked            bool     `json:"cooked"`
	PropertiesChecked bool     `json:"properties_checked"`
}

// problem builds a Problem whose Text is text.
func problem(structure string, off int64, msg, text string) Problem {
	d := Problem{Struct: structure, Message: msg, Text: text}
	if off >= 0 {
		d.Offset = &off
	}
	return d
}

// ReadProblem turns the error of opening or decoding a container, pak,
// container header or zen package into a problem without the file name,
// which the report names already.
func ReadProblem(err error, opts *Options) Problem {
	var fe *ue.FormatError
	if errors.As(err, &fe) {
		q := ue.Problem{Struct: fe.Struct, Offset: fe.Offset, Msg: opts.msg(err)}
		return problem(q.Struct, q.Offset, q.Msg, q.String())
	}
	return otherProblem(err, opts)
}

// otherProblem is the problem of an error that names no structure.
func otherProblem(err error, opts *Options) Problem {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return Problem{Message: opts.text(err), Text: opts.text(err)}
}

// packageProblem converts a legacy package's problem.
func packageProblem(q reader.Problem) Problem {
	return problem(q.Struct, q.Offset, q.Msg, q.String())
}

// VerifyPackageFile reads the legacy package file and verifies it.
func VerifyPackageFile(file string, opts *Options) FileVerify {
	p, err := reader.ReadFile(file)
	if err != nil {
		return FileVerify{File: file, Problems: []Problem{PackageReadProblem(err, opts)}}
	}
	return VerifyPackage(file, p)
}

// PackageReadProblem turns the error of reading a legacy package into a
// problem: the structure and offset of a *reader.FormatError, or the
// error's text.
func PackageReadProblem(err error, opts *Options) Problem {
	var fe *reader.FormatError
	if errors.As(err, &fe) {
		msg := fe.Msg
		if msg == "" && fe.Err != nil {
			msg = fe.Err.Error()
		}
		return packageProblem(reader.Problem{Struct: fe.Struct, Offset: fe.Offset, Msg: msg})
	}
	return otherProblem(err, opts)
}

// VerifyPackage verifies the legacy package p, read from file.
func VerifyPackage(file string, p *reader.Package) FileVerify {
	r := FileVerify{File: file, Problems: []Problem{}}
	r.Names, r.Imports, r.Exports = len(p.Names), len(p.Imports), len(p.Exports)
	for _, q := range p.Verify() {
		r.Problems = append(r.Problems, packageProblem(q))
	}
	for _, q := range p.Warnings() {
		r.Warnings = append(r.Warnings, packageProblem(q))
	}
	r.OK = len(r.Problems) == 0
	return r
}

// VerifyContainer verifies container c, opened from file (see
// iostore.Container.Verify).
func VerifyContainer(file string, c *iostore.Container, opts *Options) FileVerify {
	r := FileVerify{File: file, Kind: "iostore", Problems: []Problem{}}
	rep := c.Verify(nil)
	r.Container = &ContainerVerify{
		Chunks: len(c.Chunks()), Blocks: len(c.TOC().Blocks),
		HashesChecked: rep.HashesChecked, NotChecked: rep.NotChecked, NotCheckedWhy: rep.NotCheckedWhy,
		PackagesChecked: rep.PackagesChecked,
	}
	for _, q := range rep.Problems {
		r.Problems = append(r.Problems, problem(q.Struct, q.Offset, opts.reword(q.Err, q.Msg), opts.reword(q.Err, q.String())))
	}
	r.Container.ShaderLibrariesChecked = checkShaderLibraries(file, c, &r)
	r.OK = len(r.Problems) == 0
	return r
}

// VerifyPak verifies pak p, opened from file: its index (path hashes,
// directory index and entry count agree) and every file read back against
// its hash.
func VerifyPak(file string, p *pak.Reader, opts *Options) FileVerify {
	r := FileVerify{File: file, Kind: "pak", Problems: []Problem{}}
	if err := p.CheckIndex(); err != nil {
		r.Problems = append(r.Problems, ReadProblem(err, opts))
	}
	for _, f := range p.Files {
		if f.Deleted {
			continue
		}
		rc, err := f.Open()
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if err != nil {
			r.Problems = append(r.Problems, ReadProblem(err, opts))
		}
	}
	r.Pak = &PakVerify{Files: len(p.Files), Version: int(p.Footer.Version)}
	r.OK = len(r.Problems) == 0
	return r
}

// VerifyContainerHeader verifies container header h, decoded from file: no
// package listed twice, none importing itself.
func VerifyContainerHeader(file string, h *zen.ContainerHeader) FileVerify {
	r := FileVerify{File: file, Kind: "container-header", Problems: []Problem{}}
	s := h.Summary()
	r.ContainerHeader = &s
	for _, q := range h.Problems() {
		r.Problems = append(r.Problems, Problem{Struct: q.Struct, Message: q.Msg, Text: q.String()})
	}
	r.OK = len(r.Problems) == 0
	return r
}

// VerifyAsset verifies the cooked asset p, read from file: the rules of
// its header and export data ((*uasset.Package).Problems) and, for a
// cooked asset with tagged properties, its exports' properties
// (assetprops.Problems). An asset saved by the editor gets no property
// check: exports such as AssetImportData serialize editor-only data before
// their tagged properties, which the property codec does not read.
func VerifyAsset(file string, p *uasset.Package) FileVerify {
	return VerifyAssetWith(file, p, nil)
}

// VerifyAssetWith is VerifyAsset with the game's property schema m, with
// which the properties of an asset cooked with unversioned properties are
// checked too (assetprops.ProblemsWith).
func VerifyAssetWith(file string, p *uasset.Package, m *usmap.Mappings) FileVerify {
	a := &AssetVerify{Release: p.Release.String(), ReleaseDetected: p.ReleaseDetected,
		Cooked: p.Cooked(), PropertiesChecked: p.Cooked() && (!p.UnversionedProperties() || m != nil)}
	if p.ReleaseDetected && len(p.Fitting) > 1 {
		for _, f := range p.Fitting {
			a.Fitting = append(a.Fitting, f.String())
		}
	}
	r := FileVerify{File: file, Kind: "cooked-asset", Problems: []Problem{},
		Names: len(p.Names), Imports: len(p.Imports), Exports: len(p.Exports), Asset: a}
	qs := p.Problems()
	if a.PropertiesChecked {
		qs = append(qs, assetprops.ProblemsWith(p, m)...)
	}
	for _, q := range qs {
		r.Problems = append(r.Problems, problem(q.Struct, q.Offset, q.Msg, q.String()))
	}
	r.OK = len(r.Problems) == 0
	return r
}

// CheckZenProperties adds to r the problems of reading the properties of
// zen package p cooked with unversioned properties with the game's schema
// m (names names its classes): every export whose class and structs m
// has must decode. Exports m cannot read (a class or struct it lacks, a
// native struct of a layout unrmod does not know) are not problems. A
// tagged package, or a nil m, adds nothing.
func CheckZenProperties(r *FileVerify, p *zen.Package, names *zen.Resolver, m *usmap.Mappings) {
	if m == nil || p.PackageFlags&zen.FlagUnversionedProperties == 0 {
		return
	}
	for i := range p.Exports {
		_, err := zenprops.DecodeExportWith(p, names, i, m)
		if err == nil || errors.Is(err, usmap.ErrMissing) || errors.Is(err, props.ErrNoSchema) {
			continue
		}
		msg := "properties do not decode: " + err.Error()
		r.Problems = append(r.Problems, Problem{Struct: fmt.Sprintf("export %d %s", i, p.ExportPath(i)), Message: msg, Text: msg})
	}
	r.OK = len(r.Problems) == 0
}

// VerifyZen verifies zen package p, read from file (a file name, or
// CONTAINER:PATH): the decoded package's problems, checked with vopts.
func VerifyZen(file string, p *zen.Package, vopts *zen.VerifyOptions) FileVerify {
	r := FileVerify{File: file, Kind: "zen-package", Package: p.PackageName(), Problems: []Problem{},
		Names: len(p.Names), Imports: len(p.Imports), Exports: len(p.Exports)}
	for _, q := range p.Problems(vopts) {
		r.Problems = append(r.Problems, Problem{Struct: q.Struct, Message: q.Msg, Text: q.String()})
	}
	r.OK = len(r.Problems) == 0
	return r
}
