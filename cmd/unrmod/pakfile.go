package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/unrmod/unrmod/internal/safefile"
	"github.com/unrmod/unrmod/iostore/pak"
)

// isPakFile reports whether file is a .pak: by its extension, and a footer
// that decodes.
func isPakFile(file string) bool {
	if !strings.EqualFold(filepath.Ext(file), ".pak") {
		return false
	}
	f, size, err := safefile.OpenRegular(file)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = pak.DecodeFooter(f, size, file)
	return err == nil
}

// openPak opens a pak with the key from the command line.
func openPak(file string, key *keyFlag) (*pak.ReadCloser, error) {
	opts := &pak.Options{}
	if key != nil && key.key != nil {
		k := pak.Key(*key.key)
		opts.Key = &k
	}
	return pak.Open(file, opts)
}

// pakInfoDoc is what info shows of a pak.
type pakInfoDoc struct {
	File           string `json:"file"`
	Kind           string `json:"kind"`
	Version        int    `json:"version"`
	VersionName    string `json:"version_name"`
	MountPoint     string `json:"mount_point"`
	KeyGUID        string `json:"encryption_key_guid"`
	IndexEncrypted bool   `json:"index_encrypted"`
	Files          int    `json:"files"`
	Bytes          int64  `json:"bytes"`
	// Container is the IoStore container the pak mounts (same base name),
	// when it is there.
	Container string `json:"container,omitempty"`
}

func newPakInfoDoc(file string, p *pak.Reader) *pakInfoDoc {
	d := &pakInfoDoc{File: file, Kind: "pak", Version: int(p.Footer.Version), VersionName: p.Footer.Version.String(),
		MountPoint: p.MountPoint, KeyGUID: fmt.Sprintf("%08X%08X%08X%08X", p.Footer.EncryptionKeyGUID[0], p.Footer.EncryptionKeyGUID[1], p.Footer.EncryptionKeyGUID[2], p.Footer.EncryptionKeyGUID[3]),
		IndexEncrypted: p.Footer.IndexEncrypted, Files: len(p.Files)}
	for _, f := range p.Files {
		d.Bytes += f.UncompressedSize
	}
	if utoc := strings.TrimSuffix(file, filepath.Ext(file)) + ".utoc"; fileExists(utoc) {
		d.Container = utoc
	}
	return d
}

func (d *pakInfoDoc) writeText(w io.Writer) error {
	fmt.Fprintf(w, "File:             %s\n", d.File)
	fmt.Fprintf(w, "Pak version:      %s\n", d.VersionName)
	fmt.Fprintf(w, "Mount point:      %s\n", d.MountPoint)
	fmt.Fprintf(w, "Key GUID:         %s\n", d.KeyGUID)
	fmt.Fprintf(w, "Index encrypted:  %v\n", d.IndexEncrypted)
	fmt.Fprintf(w, "Files:            %d (%d bytes)\n", d.Files, d.Bytes)
	if d.Container != "" {
		fmt.Fprintf(w, "Mounts:           %s (the IoStore container of the same base name)\n", d.Container)
	}
	return nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// verifyPakFile checks a pak: its index (path hashes, directory index and
// entry count agree) and every file read back against its hash.
func verifyPakFile(file string, key *keyFlag) verifyFileDoc {
	r := verifyFileDoc{File: file, Kind: "pak", Problems: []problemDoc{}}
	p, err := openPak(file, key)
	if err != nil {
		r.Problems = append(r.Problems, containerReadProblem(err))
		return r
	}
	defer p.Close()
	if err := p.CheckIndex(); err != nil {
		r.Problems = append(r.Problems, containerReadProblem(err))
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
			r.Problems = append(r.Problems, containerReadProblem(err))
		}
	}
	r.Pak = &pakVerifyDoc{Files: len(p.Files), Version: int(p.Footer.Version)}
	r.OK = len(r.Problems) == 0
	return r
}

// pakVerifyDoc is the verify summary of a pak.
type pakVerifyDoc struct {
	Version int `json:"version"`
	Files   int `json:"files"`
}

// lsPakDoc is "unrmod ls --json" of a pak.
type lsPakDoc struct {
	File       string         `json:"file"`
	Version    int            `json:"version"`
	MountPoint string         `json:"mount_point"`
	Files      []lsPakFileDoc `json:"files"`
}

type lsPakFileDoc struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	Stored    int64  `json:"stored"`
	Method    string `json:"method"`
	Encrypted bool   `json:"encrypted"`
}

// lsPak lists a pak's files.
func lsPak(s streams, file string, key *keyFlag, asJSON bool) error {
	p, err := openPak(file, key)
	if err != nil {
		return err
	}
	defer p.Close()
	doc := lsPakDoc{File: file, Version: int(p.Footer.Version), MountPoint: p.MountPoint, Files: []lsPakFileDoc{}}
	for _, f := range p.Files {
		if f.Deleted {
			continue
		}
		doc.Files = append(doc.Files, lsPakFileDoc{Path: f.Path, Size: f.UncompressedSize, Stored: f.Size,
			Method: p.Footer.MethodName(f.Method), Encrypted: f.Encrypted})
	}
	if asJSON {
		return writeJSON(s.out, doc)
	}
	t := &table{header: []string{"SIZE", "STORED", "METHOD", "ENCRYPTED", "PATH"}, right: []bool{true, true, false, false, false}}
	for _, f := range doc.Files {
		enc := "-"
		if f.Encrypted {
			enc = "yes"
		}
		t.add(fmt.Sprint(f.Size), fmt.Sprint(f.Stored), f.Method, enc, f.Path)
	}
	return t.write(s.out)
}

// extractPak is "unrmod extract" of a pak.
func extractPak(s streams, file, out string, key *keyFlag, filters globList, sync, asJSON bool) error {
	p, err := openPak(file, key)
	if err != nil {
		return err
	}
	defer p.Close()
	opts := &pak.ExtractOptions{Sync: sync, Session: s.sess}
	if len(filters) > 0 {
		opts.Filter = func(_ *pak.File, p string) bool { return matchAny(filters, p) }
	}
	bar := newProgress(s.err, "extract", 0)
	if bar != nil {
		opts.Progress = bar.set
	}
	start := time.Now()
	res, err := p.Extract(out, opts)
	bar.finish()
	if err != nil {
		return err
	}
	if res.Files == 0 {
		if len(filters) == 0 {
			return fmt.Errorf("%s: the pak holds no file to extract", file)
		}
		return fmt.Errorf("%s: no file matches %s (see 'unrmod ls %s')", file, strings.Join(filters, " or "), file)
	}
	doc := extractDoc{File: file, Dir: out, Files: res.Files, Bytes: res.Bytes, Paths: res.Paths}
	if asJSON {
		return writeJSON(s.out, doc)
	}
	fmt.Fprintf(s.out, "extracted %d files (%d bytes) from %s to %s in %s\n", res.Files, res.Bytes, file, out, time.Since(start).Round(time.Millisecond))
	return nil
}
