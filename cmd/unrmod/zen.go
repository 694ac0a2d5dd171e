package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/usmap"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ufile"
)

// zenFlags are the flags of the commands that read zen packages: which
// package of a container, the engine release when the bytes cannot tell,
// and the global container that names script imports.
type zenFlags struct {
	pkg    *string
	engine *string
	global *string
	key    *keyFlag
}

// addZenFlags registers --package, --engine and --global on fs (key is the
// command's --aes-key).
func addZenFlags(fs *flag.FlagSet, key *keyFlag) *zenFlags {
	return &zenFlags{
		pkg:    fs.String("package", "", "with a container (.utoc): the zen package `PACKAGE` to read, by package name (/Game/Data/Table_Items) or by the path 'unrmod ls' shows"),
		engine: fs.String("engine", "", "read zen packages as engine `VERSION` writes them ("+zen.EngineNames()+") when the bytes do not tell"),
		global: fs.String("global", "", "name script imports from the global container `PATH` (global.utoc, or a folder of its chunks extracted); default: a global.utoc beside the container or one folder up"),
		key:    key,
	}
}

// zenSource is a zen package named on the command line: a file (as
// extract writes it) or a package inside a container.
type zenSource struct {
	name     string // the file, or CONTAINER:PATH
	data     []byte
	pkg      *zen.Package
	resolver *zen.Resolver
	opts     zen.VerifyOptions
	close    func()
}

// Close releases the container, if any.
func (z *zenSource) Close() {
	if z.close != nil {
		z.close()
	}
}

// decodeOptions returns the layout --engine asks for.
func (f *zenFlags) decodeOptions(cmd string) (*zen.DecodeOptions, error) {
	if f == nil || *f.engine == "" {
		return nil, nil
	}
	e, err := zen.ParseEngine(*f.engine)
	if err != nil {
		return nil, usagef(cmd, "--engine: %v", err)
	}
	return &zen.DecodeOptions{Layout: e.Layout()}, nil
}

// scriptObjects loads the global script objects: from --global, else from
// global.utoc beside container (when there is one). It returns nil when
// there is none to load.
func (f *zenFlags) scriptObjects(container string) (*zen.ScriptObjects, error) {
	path := *f.global
	if path == "" {
		if container == "" {
			return nil, nil
		}
		// The game keeps global.utoc beside its containers (Paks/); look
		// one folder up too, for containers kept in folders of their own.
		dir := filepath.Dir(container)
		for _, p := range []string{filepath.Join(dir, "global.utoc"), filepath.Join(filepath.Dir(dir), "global.utoc")} {
			if _, err := os.Stat(p); err == nil && !safefile.SameFile(p, container) {
				path = p
				break
			}
		}
		if path == "" {
			return nil, nil
		}
	}
	var opts iostore.Options
	if f.key != nil {
		opts.Key = f.key.key
	}
	so, err := iostore.LoadScriptObjectsFrom(path, &opts)
	if err != nil {
		return nil, fmt.Errorf("--global: %w", err)
	}
	return so, nil
}

// openZenFile reads a zen package saved as a file.
func openZenFile(cmd, file string, data []byte, f *zenFlags) (*zenSource, error) {
	dopts, err := f.decodeOptions(cmd)
	if err != nil {
		return nil, err
	}
	p, err := zen.DecodePackage(file, data, dopts)
	if err != nil {
		return nil, err
	}
	z := &zenSource{name: file, data: data, pkg: p}
	if f != nil && *f.global != "" {
		so, err := f.scriptObjects("")
		if err != nil {
			return nil, err
		}
		z.resolver = &zen.Resolver{Script: so}
	}
	return z, nil
}

// openZenInContainer reads the package --package names from a container.
func openZenInContainer(cmd, file string, f *zenFlags) (*zenSource, error) {
	dopts, err := f.decodeOptions(cmd)
	if err != nil {
		return nil, err
	}
	c, err := openIndexedContainer(file, f.key)
	if err != nil {
		return nil, err
	}
	z := &zenSource{close: func() { c.Close() }}
	fail := func(err error) (*zenSource, error) {
		z.Close()
		return nil, err
	}
	i, err := c.FindPackage(*f.pkg)
	if err != nil {
		return fail(err)
	}
	ch := c.Chunks()[i]
	if ch.Size > zen.MaxPackageSize {
		return fail(fmt.Errorf("%s: chunk %d is %d bytes; a zen package is at most %d", c.File(), i, ch.Size, uint64(zen.MaxPackageSize)))
	}
	if z.data, err = c.ReadChunk(i); err != nil {
		return fail(err)
	}
	z.name = c.PackageName(i)
	if z.pkg, err = zen.DecodePackage(z.name, z.data, dopts); err != nil {
		return fail(err)
	}
	so, err := f.scriptObjects(file)
	if err != nil {
		return fail(err)
	}
	z.resolver = c.Resolver(so)
	z.opts = zen.VerifyOptions{ChunkPackageID: ch.ID.PackageID(), Entry: z.resolver.Entry(ch.ID.PackageID())}
	if h, err := c.ContainerHeader(); err == nil {
		z.opts.Header = h // a header that does not decode is verify C.utoc's to report
	}
	return z, nil
}

// openZenArg opens the zen package a command's FILE argument names: a
// package inside the container FILE when --package is given, or FILE itself
// when it holds a zen package. It returns nil, nil for anything else (a
// legacy package, a container, a container-header chunk), which the command
// handles as before.
func openZenArg(cmd string, file *ufile.File, f *zenFlags) (*zenSource, error) {
	if *f.pkg != "" && file.Pak == "" { // an asset of a pak is --package resolved already
		if file.Kind != ufile.Container {
			return nil, usagef(cmd, "%v; %s is not one", errNotZen, file.Path)
		}
		return openZenInContainer(cmd, file.Path, f)
	}
	if file.Kind == ufile.ZenPackage {
		return openZenFile(cmd, file.Path, file.Data, f)
	}
	return nil, nil
}

// zenInfoDoc is the output of "unrmod info" for a zen package.
type zenInfoDoc struct {
	*report.ZenInfo
}

func newZenInfoDoc(z *zenSource) *zenInfoDoc {
	return &zenInfoDoc{report.NewZenInfo(z.name, len(z.data), z.pkg)}
}

func (d *zenInfoDoc) writeText(w io.Writer) error {
	var b strings.Builder
	line := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-19s%s\n", k+":", fmt.Sprintf(format, args...))
	}
	line("File", "%s", d.File)
	line("Kind", "zen package (%s), %d bytes", d.Layout, d.Size)
	line("Package", "%s", d.Package)
	line("Package id", "%s", d.PackageID)
	line("Flags", "%s (%s)", joinNames(d.Flags), d.Flags.Value)
	if v := d.Versioning; v != nil {
		line("Versioning", "zen %d, UE4 %d, UE5 %d, licensee %d, %d custom versions", v.ZenVersion, v.FileVersionUE4, v.FileVersionUE5, v.Licensee, v.CustomVersions)
	} else if d.Layout != zen.LayoutUE4.String() {
		line("Versioning", "none (cooked unversioned)")
	}
	line("Header size", "%d bytes (cooked header %d)", d.HeaderSize, d.CookedHeaderSize)
	line("Names", "%d", d.Names)
	line("Imports", "%d", d.Imports)
	line("Exports", "%d (%d bytes of export data)", d.Exports, d.ExportData)
	if d.Bundles > 0 {
		line("Export bundles", "%d (%d entries)", d.Bundles, d.BundleEntries)
	} else {
		line("Export bundle", "1 (%d entries)", d.BundleEntries)
	}
	line("Imported packages", "%d", d.ImportedPackages)
	if d.PublicHashes > 0 {
		line("Public hashes", "%d imported public export hashes", d.PublicHashes)
	}
	if d.DependencyEntries > 0 {
		line("Dependencies", "%d entries", d.DependencyEntries)
	}
	if d.BulkData > 0 {
		line("Bulk data", "%d entries", d.BulkData)
	}
	if d.CellExports > 0 {
		line("Cell exports", "%d", d.CellExports)
	}
	layout := "canonical: unrmod re-encodes it byte for byte from the model"
	if len(d.KeptRaw) > 0 {
		layout = "not canonical in " + strings.Join(d.KeptRaw, ", ") + " (kept as read while unchanged)"
	}
	if d.Trailing > 0 {
		layout += fmt.Sprintf("; %d bytes after the last export", d.Trailing)
	}
	line("Layout", "%s", layout)
	_, err := io.WriteString(w, b.String())
	return err
}

// zenDumpDoc is the output of "unrmod dump" for a zen package: its tables
// and the properties the command adds.
type zenDumpDoc struct {
	report.ZenDump `json:",inline" yaml:",inline"`
	// Properties are the exports' tagged properties (--props), or
	// PropertiesNote says why they cannot be read.
	Properties     *propsDoc `json:"properties,omitempty" yaml:"properties,omitempty"`
	PropertiesNote string    `json:"properties_note,omitempty" yaml:"properties_note,omitempty"`
}

func newZenDumpDoc(z *zenSource, names, imports, exports bool) *zenDumpDoc {
	return &zenDumpDoc{ZenDump: *report.NewZenDump(z.name, z.pkg, z.resolver, report.Tables{Names: names, Imports: imports, Exports: exports})}
}

func (d *zenDumpDoc) writeText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Package: %s (%s), %s\n", d.Package, d.PackageID, d.Layout)
	if d.Names != nil {
		t := &table{header: []string{"INDEX", "NAME", "HASH"}, right: []bool{true, false, false}}
		for _, r := range *d.Names {
			t.add(strconv.Itoa(r.Index), r.Name, r.Hash)
		}
		fmt.Fprintf(&b, "\nNames: %d\n", len(*d.Names))
		t.write(&b)
	}
	if d.Imports != nil {
		t := &table{header: []string{"INDEX", "KIND", "VALUE", "OBJECT"}, right: []bool{true, false, false, false}}
		for _, r := range *d.Imports {
			t.add(strconv.Itoa(r.Index), r.Kind, r.Value, r.Object)
		}
		fmt.Fprintf(&b, "\nImports: %d\n", len(*d.Imports))
		t.write(&b)
	}
	if d.Exports != nil {
		t := &table{header: []string{"INDEX", "CLASS", "PATH", "SIZE", "OFFSET", "XXH3", "FLAGS", "PUBLIC HASH"},
			right: []bool{true, false, false, true, false, false, false, false}}
		for _, r := range *d.Exports {
			public := r.PublicHash
			if public == "" {
				public = "-"
			}
			t.add(strconv.Itoa(r.Index), r.Class, r.Path, strconv.Itoa(r.Size), r.Offset, r.XXH3, joinNames(r.Flags), public)
		}
		fmt.Fprintf(&b, "\nExports: %d\n", len(*d.Exports))
		t.write(&b)
	}
	if len(d.Bundles) > 0 {
		t := &table{header: []string{"BUNDLE", "ENTRY", "EXPORT", "COMMAND"}, right: []bool{true, true, true, false}}
		for _, r := range d.Bundles {
			t.add(strconv.Itoa(r.Bundle), strconv.Itoa(r.Entry), strconv.Itoa(int(r.Export)), r.Command)
		}
		fmt.Fprintf(&b, "\nExport bundle entries: %d\n", len(d.Bundles))
		t.write(&b)
	}
	if len(d.ImportedPackages) > 0 {
		fmt.Fprintf(&b, "\nImported packages: %d\n", len(d.ImportedPackages))
		for i, s := range d.ImportedPackages {
			fmt.Fprintf(&b, "%5d  %s\n", i, s)
		}
	}
	if d.PropertiesNote != "" {
		fmt.Fprintf(&b, "\nProperties: %s\n", d.PropertiesNote)
	}
	if _, err := io.WriteString(w, b.String()); err != nil || d.Properties == nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return d.Properties.writeSection(w)
}

// verifyZen checks a zen package: the decoded package's problems, with its
// container's store entry and chunk id when it was read from one.
func verifyZen(z *zenSource, m *usmap.Mappings) report.FileVerify {
	r := report.VerifyZen(z.name, z.pkg, &z.opts)
	report.CheckZenProperties(&r, z.pkg, z.resolver, m)
	return r
}

// errNotZen is the error of --package on something that is not a container
// or a pak.
var errNotZen = errors.New("--package names a package inside an IoStore container (.utoc) or a pak (.pak)")

// pakPackageArg returns the cooked asset --package names inside the pak f
// (read whole with its .uexp, each checked against its hash), or f itself
// when f is not a pak or --package is not given.
func pakPackageArg(f *ufile.File, zf *zenFlags) (*ufile.File, error) {
	if *zf.pkg == "" || f.Kind != ufile.Pak {
		return f, nil
	}
	r, err := openPak(f.Path, zf.key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return ufile.PakAsset(&r.Reader, *zf.pkg)
}
