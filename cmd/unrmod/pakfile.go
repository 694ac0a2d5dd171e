package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// openPak opens a pak with the key and the Oodle library from the command
// line.
func openPak(file string, key *keyFlag) (*pak.ReadCloser, error) {
	opts := &pak.Options{}
	if key != nil && key.key != nil {
		k := *key.key
		opts.Key = &k
	}
	codecs, err := key.codecs(file)
	if err != nil {
		return nil, err
	}
	opts.Codecs = codecs
	return pak.Open(file, opts)
}

// writePakInfo prints a pak's info as aligned "Field: value" lines.
func writePakInfo(w io.Writer, d *report.PakInfo) error {
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

// verifyPakFile checks a pak: its index (path hashes, directory index and
// entry count agree) and every file read back against its hash.
func verifyPakFile(file string, key *keyFlag) report.FileVerify {
	p, err := openPak(file, key)
	if err != nil {
		return report.FileVerify{File: file, Kind: "pak", Problems: []report.Problem{containerReadProblem(err)}}
	}
	defer p.Close()
	return report.VerifyPak(file, &p.Reader, reportOptions())
}

// lsPak lists a pak's files.
func lsPak(s streams, file string, key *keyFlag, asJSON bool) error {
	p, err := openPak(file, key)
	if err != nil {
		return err
	}
	defer p.Close()
	doc := report.NewPakList(file, &p.Reader)
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

// pakPackFlags are the flags of "unrmod pack" that apply to a .pak output.
type pakPackFlags struct {
	engine, compression, mount, keyGUID string
	key                                 *keyFlag
	dry, asJSON                         bool
}

// pakPackDoc is the report of "unrmod pack" into a .pak.
type pakPackDoc struct {
	Dir         string   `json:"dir"`
	Pak         string   `json:"pak"`
	Engine      string   `json:"engine"`
	Version     int      `json:"version"`
	MountPoint  string   `json:"mount_point"`
	Compression string   `json:"compression"`
	Encrypted   bool     `json:"encrypted"`
	Files       int      `json:"files"`
	Bytes       int64    `json:"bytes"`
	Stored      int64    `json:"stored_bytes"`
	Paths       []string `json:"paths"`
	DryRun      bool     `json:"dry_run,omitempty"`
}

// packPak is "unrmod pack DIR -o NAME.pak".
func packPak(s streams, dir, out string, f pakPackFlags) error {
	if f.engine == "" {
		return usagef("pack", "give the game's engine with --engine (%s)", pak.EngineNames())
	}
	v, err := pak.ParseEngine(f.engine)
	if err != nil {
		return usagef("pack", "--engine: %v", err)
	}
	opts := &pak.WriterOptions{Version: v}
	switch strings.ToLower(f.compression) {
	case "zlib":
		opts.Compress = true
	case "none":
	case "oodle":
		if !v.HasMethodNames() {
			return usagef("pack", "--compression oodle: a version %d pak (UE %s) names no methods; Oodle needs version 8 (UE 4.22) or later", uint32(v), f.engine)
		}
		if opts.Codecs, err = f.key.codecs(dir); err != nil {
			return err
		}
		if err := canWriteOodle(opts.Codecs); err != nil {
			return err
		}
		opts.Compress, opts.Method = true, "Oodle"
	default:
		return usagef("pack", "--compression %q: a .pak is written with zlib, none or oodle", f.compression)
	}
	if f.mount != "" {
		m := filepath.ToSlash(f.mount)
		if !strings.HasPrefix(m, "../../../") || strings.Contains(m[len("../../../"):], "..") {
			return usagef("pack", "--mount-point %q: want a path under ../../../ (the game's root), e.g. ../../../Maine/Content/", f.mount)
		}
		opts.MountPoint = strings.TrimSuffix(m, "/") + "/"
	}
	if f.keyGUID != "" {
		g, err := parseGUID(f.keyGUID)
		if err != nil {
			return usagef("pack", "--key-guid: %v", err)
		}
		opts.EncryptionKeyGUID = pak.GUID(g)
	}
	if f.key != nil && f.key.key != nil {
		k := ue.Key(*f.key.key)
		opts.Key, opts.EncryptIndex, opts.EncryptFiles = &k, true, true
		// UE 6.0 encrypts its paks with AES-CTR, as its containers.
		opts.CTR = v.HasEncryptionMethod()
	}
	absDir, err1 := filepath.Abs(dir)
	absOut, err2 := filepath.Abs(out)
	if rel, err := filepath.Rel(absDir, absOut); err1 != nil || err2 != nil || err == nil && !strings.HasPrefix(rel, "..") {
		return usagef("pack", "the output %s is inside the folder packed, %s", out, dir)
	}
	uses := []safefile.Use{{Path: dir, What: "the folder packed"}}
	if !f.dry {
		uses = append(uses, safefile.Use{Path: out, Write: true, What: "the output pak"})
	}
	locks, err := checkAndLock(s, uses...)
	if err != nil {
		return err
	}
	defer locks.Release()
	doc := pakPackDoc{Dir: dir, Pak: out, Engine: f.engine, Version: int(v), Compression: strings.ToLower(f.compression),
		Encrypted: opts.EncryptFiles, DryRun: f.dry}
	var res *pak.PackResult
	if f.dry {
		var cw countingWriter
		if res, err = pak.PackDir(dir, &cw, opts); err != nil {
			return err
		}
		doc.Stored = cw.n
	} else {
		b := &safefile.Batch{Session: s.sess}
		file, err := b.Create(out, 0o644)
		if err != nil {
			return err
		}
		if res, err = pak.PackDir(dir, file, opts); err == nil {
			err = checkPackedPak(file, out, opts.Key, opts.Codecs, res)
		}
		if err != nil {
			b.Abort()
			return err
		}
		if st, err := file.Stat(); err == nil {
			doc.Stored = st.Size()
		}
		if err := b.Commit(); err != nil {
			return err
		}
	}
	doc.MountPoint, doc.Files, doc.Bytes, doc.Paths = res.MountPoint, len(res.Paths), res.Bytes, res.Paths
	if f.asJSON {
		return writeJSON(s.out, doc)
	}
	verb := "packed"
	if f.dry {
		verb = "would pack"
	}
	fmt.Fprintf(s.out, "%s %d files (%d bytes, %d in the pak) into %s, version %s for UE %s, mounted at %s\n",
		verb, doc.Files, doc.Bytes, doc.Stored, out, pak.Version(v), f.engine, doc.MountPoint)
	return nil
}

// checkPackedPak reads the written pak back: its index, and every file
// against its hash, before it replaces anything.
func checkPackedPak(f *os.File, name string, key *ue.Key, codecs *ue.Codecs, res *pak.PackResult) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	p, err := pak.Decode(f, st.Size(), name, &pak.Options{Key: key, Codecs: codecs})
	if err != nil {
		return fmt.Errorf("the pak written does not read back: %w", err)
	}
	if err := p.CheckIndex(); err != nil {
		return fmt.Errorf("the pak written does not read back: %w", err)
	}
	if len(p.Files) != len(res.Paths) {
		return fmt.Errorf("%s: the pak written lists %d files, %d were packed", name, len(p.Files), len(res.Paths))
	}
	for _, file := range p.Files {
		rc, err := file.Open()
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if err != nil {
			return fmt.Errorf("the pak written does not read back: %w", err)
		}
	}
	return nil
}

// countingWriter counts what is written to it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }
