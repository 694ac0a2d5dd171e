package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/uasset"
	"github.com/unrmod/unrmod/ufile"
)

// legacyDoc reports a conversion into a cooked asset.
type legacyDoc struct {
	Input     string   `json:"input"`
	Output    string   `json:"output"`
	Uexp      string   `json:"uexp"`
	Engine    string   `json:"engine"`
	Package   string   `json:"package"`
	PackageID string   `json:"package_id"`
	Size      int64    `json:"size"`
	UexpSize  int64    `json:"uexp_size"`
	Names     int      `json:"names"`
	Imports   int      `json:"imports"`
	Exports   int      `json:"exports"`
	BulkFiles []string `json:"bulk_files"`
	Global    string   `json:"global_utoc,omitempty"`
}

func (d *legacyDoc) summary() string {
	s := fmt.Sprintf("converted %s (%s, %s) to %s and %s for UE %s: %d names, %d imports, %d exports",
		d.Package, d.PackageID, d.Input, d.Output, d.Uexp, d.Engine, d.Names, d.Imports, d.Exports)
	for _, b := range d.BulkFiles {
		s += "; bulk data " + b
	}
	return s
}

// legacyInputs are what 'convert --to legacy' reads beside its input.
type legacyInputs struct {
	pkgName    string   // --package
	containers string   // --containers
	global     string   // --global
	header     string   // --container-header
	filters    globList // --filter, for a whole container
	jobs       int      // -j, for a whole container
}

// convertToLegacy runs 'convert --to legacy': it reads the zen package
// (from a file, or from a container by name), names its imports from the
// container set, and writes the cooked asset with its .uexp and bulk files
// as one batch, verified before and read back after.
func convertToLegacy(s streams, in, out string, engine zen.Engine, li legacyInputs, asJSON bool) error {
	pkgName, containers := li.pkgName, li.containers
	if safefile.SameFile(in, out) {
		return usagef("convert", "output %s is the input file; convert never modifies its input", out)
	}
	// A large zen package file is read in ranges, not whole (the file
	// recogniser reads a zen package whole).
	p0, x0 := ufile.OpenZenStream(in, convert.StreamThreshold)
	bigZen := p0 != nil
	if x0 != nil {
		x0.Close()
	}
	var f *ufile.File
	if bigZen {
		f = &ufile.File{Path: in, Kind: ufile.ZenPackage}
	} else {
		f = recognise(in)
	}
	if f.Kind == ufile.Container && pkgName == "" {
		return convertContainer(s, in, out, engine, li, asJSON)
	}
	if len(li.filters) > 0 || li.jobs != 0 {
		return usagef("convert", "--filter and -j are for a whole container (a .utoc without --package)")
	}
	// Lock what is read and written before reading, so that a run
	// replacing the input is waited for.
	o := uasset.CompanionNames(out)
	uses := append(f.Uses(), safefile.Use{Path: out, Write: true, What: "the output asset"},
		safefile.Use{Path: o.Uexp, Write: true, What: "the output's export data"})
	for _, b := range []string{o.Ubulk, o.Uptnl, o.MUbulk} {
		uses = append(uses, safefile.Use{Path: b, Write: true, What: "a bulk data file of the output"})
	}
	locks, err := checkAndLock(s, uses...)
	if err != nil {
		return err
	}
	defer locks.Release()
	var (
		p    *zen.Package
		bulk = &convert.Bulk{}
		set  *convert.ContainerSet
	)
	switch f.Kind {
	case ufile.Container:
		if pkgName == "" {
			return usagef("convert", "%s is a container: name the package to convert with --package", in)
		}
		if containers != "" {
			return usagef("convert", "--containers is for a zen package file; a container brings its own set")
		}
		if set, err = convert.OpenContainerSet(in, nil); err != nil {
			return err
		}
		defer set.Close()
		var done func()
		// A large package is spooled beside the output when its folder exists
		// (the system's temporary folder may be held in memory).
		spool := filepath.Dir(out)
		if fi, err := os.Stat(spool); err != nil || !fi.IsDir() {
			spool = ""
		}
		if p, bulk, done, err = set.PackageStream(pkgName, spool); err != nil {
			return err
		}
		defer done()
	case ufile.ZenPackage:
		if pkgName != "" {
			return usagef("convert", "--package is for a container input; %s is one package", in)
		}
		if bigZen {
			var x *os.File
			if p, x = ufile.OpenZenStream(in, convert.StreamThreshold); p == nil {
				return fmt.Errorf("%s: the package changed while it was being converted", in)
			}
			defer x.Close()
		} else if p, err = zen.DecodePackage(in, f.Data, nil); err != nil {
			return err
		}
		c := uasset.CompanionNames(in)
		for _, b := range []struct {
			path string
			dst  *[]byte
		}{{c.Ubulk, &bulk.Ubulk}, {c.Uptnl, &bulk.Uptnl}, {c.MUbulk, &bulk.MUbulk}} {
			if data, err := os.ReadFile(b.path); err == nil {
				*b.dst = data
			}
		}
		if containers != "" {
			if set, err = convert.OpenContainerSet(containers, nil); err != nil {
				return err
			}
			defer set.Close()
		}
	default:
		if err := f.Err(); err != nil {
			return err
		}
		return fmt.Errorf("%s: %s, not a zen package or a container: convert --to legacy reads those", in, f.Kind)
	}
	opts := &convert.LegacyOptions{Engine: engine, FileName: filepath.Base(out)}
	if set != nil {
		opts.Imports = set.Source
	}
	global := ""
	if set != nil {
		global = set.Global
	}
	if li.global != "" {
		so, err := iostore.LoadScriptObjectsFrom(li.global, nil)
		if err != nil {
			return err
		}
		var cs []*iostore.Container
		if set != nil {
			cs = set.Containers
		}
		opts.Imports, global = convert.NewContainerSource(so, cs...), li.global
	}
	if li.header != "" {
		data, err := safefile.ReadRegular(li.header, zen.MaxContainerHeaderSize, "a container header chunk")
		if err != nil {
			return err
		}
		if opts.ContainerHeader, err = zen.DecodeContainerHeader(li.header, data); err != nil {
			return err
		}
	}
	a, err := convert.ToLegacy(p, opts)
	if errors.Is(err, convert.ErrUnsupportedEngine) && engine == (zen.Engine{}) {
		return fmt.Errorf("%w (give it with --engine)", err)
	}
	if err != nil {
		return err
	}
	var head, uexp []byte
	var stream *uasset.Stream
	if a.Streamed() {
		head, stream, err = convert.EncodeLegacyStreamChecked(a, p)
	} else {
		head, uexp, err = convert.EncodeLegacyChecked(a, p)
	}
	if err != nil {
		return err
	}
	batch := &safefile.Batch{Session: s.sess}
	defer batch.Abort()
	files := map[string][]byte{out: head, o.Uexp: uexp}
	uexpSize := int64(len(uexp))
	if stream != nil {
		delete(files, o.Uexp)
		uexpSize = stream.Size()
		if err := addStream(batch, o.Uexp, stream.NewReader()); err != nil {
			return err
		}
	}
	doc := &legacyDoc{Input: in, Output: out, Uexp: o.Uexp, Engine: a.Release.String(), Package: p.PackageName(), PackageID: p.ID().String(),
		Size: int64(len(head)), UexpSize: uexpSize, Names: len(a.Names), Imports: len(a.Imports), Exports: len(a.Exports), BulkFiles: []string{}}
	doc.Global = global
	for _, b := range []struct {
		path string
		data []byte
	}{{o.Ubulk, bulk.Ubulk}, {o.Uptnl, bulk.Uptnl}, {o.MUbulk, bulk.MUbulk}} {
		if b.data == nil {
			batch.Remove(b.path) // no stale bulk data beside the new asset
			continue
		}
		files[b.path] = b.data
		doc.BulkFiles = append(doc.BulkFiles, b.path)
	}
	for _, name := range append([]string{out, o.Uexp}, doc.BulkFiles...) {
		if name == o.Uexp && stream != nil {
			continue
		}
		if err := batch.Add(name, files[name], 0o644); err != nil {
			return err
		}
	}
	if err := batch.Commit(); err != nil {
		return err
	}
	if stream != nil {
		if err := readBack(o.Uexp, stream, uexpSize); err != nil {
			return err
		}
	}
	for name, want := range files {
		back, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("reading back %s: %w", name, err)
		}
		if !bytes.Equal(back, want) {
			return fmt.Errorf("%s: the file read back differs from what was written (%d bytes, want %d)", name, len(back), len(want))
		}
	}
	if asJSON {
		return writeJSON(s.out, doc)
	}
	_, err = fmt.Fprintln(s.out, doc.summary())
	return err
}
