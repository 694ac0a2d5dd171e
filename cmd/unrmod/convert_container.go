package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore/zen"
)

// containerConvDoc reports a whole container converted into cooked assets.
type containerConvDoc struct {
	Input     string            `json:"input"`
	Dir       string            `json:"dir"`
	Global    string            `json:"global_utoc,omitempty"`
	Converted int               `json:"converted_count"`
	Refused   int               `json:"refused_count"`
	Packages  []containerConvPk `json:"converted"`
	Refusals  []containerConvPk `json:"refused"`
}

// containerConvPk is one package of a containerConvDoc.
type containerConvPk struct {
	Path      string   `json:"path"`
	Package   string   `json:"package,omitempty"`
	PackageID string   `json:"package_id"`
	Files     []string `json:"files,omitempty"`
	Size      int64    `json:"size,omitempty"`
	Reason    string   `json:"reason,omitempty"`
}

// convertContainer runs 'convert --to legacy' on a whole container: every
// package (or those --filter selects) into a cooked asset under dir.
func convertContainer(s streams, in, dir string, engine zen.Engine, li legacyInputs, asJSON bool) error {
	switch {
	case li.containers != "":
		return usagef("convert", "--containers is for a zen package file; a container brings its own set")
	case li.global != "" || li.header != "":
		return usagef("convert", "--global and --container-header are for one package (--package) or a zen package file")
	case isAssetName(dir):
		return usagef("convert", "%s is a container: -o %s names one asset; give --package to convert one package, or -o a folder to convert them all", in, dir)
	case li.jobs < 0:
		return usagef("convert", "-j must be positive, got %d", li.jobs)
	}
	f, locks, err := openRead(s, in)
	if err != nil {
		return err
	}
	defer locks.Release()
	if err := f.Err(); err != nil {
		return err
	}
	set, err := convert.OpenContainerSet(in, nil)
	if err != nil {
		return err
	}
	defer set.Close()
	opts := &convert.ConvertAllOptions{Engine: engine, Workers: li.jobs, Session: s.sess}
	if len(li.filters) > 0 {
		filters := li.filters
		opts.Filter = func(p string) bool { return matchAny(filters, p) }
	}
	bar := newCountProgress(s.err, "convert", 0)
	if bar != nil {
		opts.Progress = func(done, total int) { bar.set(int64(done), int64(total)) }
	}
	res, err := set.ConvertAll(dir, opts)
	bar.finish()
	if errors.Is(err, convert.ErrUnsupportedEngine) && engine == (zen.Engine{}) {
		return fmt.Errorf("%w (give it with --engine)", err)
	}
	if errors.Is(err, convert.ErrNoPackages) && len(li.filters) > 0 {
		return fmt.Errorf("%s: no package matches %s (see 'unrmod ls %s')", in, strings.Join(li.filters, " or "), in)
	}
	if err != nil {
		return err
	}
	doc := containerConvDoc{Input: in, Dir: dir, Global: set.Global, Converted: len(res.Converted), Refused: len(res.Refused),
		Packages: []containerConvPk{}, Refusals: []containerConvPk{}}
	for _, r := range res.Converted {
		doc.Packages = append(doc.Packages, containerConvPk{Path: r.Path, Package: r.Package, PackageID: r.PackageID.String(), Files: r.Files, Size: r.Size})
	}
	for _, r := range res.Refused {
		doc.Refusals = append(doc.Refusals, containerConvPk{Path: r.Path, Package: r.Package, PackageID: r.PackageID.String(), Reason: errText(r.Err)})
	}
	if asJSON {
		if err := writeJSON(s.out, doc); err != nil {
			return err
		}
	} else {
		for _, r := range doc.Refusals {
			fmt.Fprintf(s.out, "refused %s: %s\n", r.Path, r.Reason)
		}
		fmt.Fprintf(s.out, "converted %d packages of %s to cooked assets under %s; refused %d\n", doc.Converted, in, dir, doc.Refused)
	}
	if doc.Refused > 0 {
		return errReported
	}
	return nil
}

// isAssetName tells whether name is a cooked asset's file name, which a
// whole container's conversion does not take for its output folder.
func isAssetName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".uasset", ".umap", ".uexp":
		return true
	}
	return false
}
