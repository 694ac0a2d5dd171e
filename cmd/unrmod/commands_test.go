package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/report"
)

const entryFile = "legacy/ut99_stock/Entry.unr"

func TestInfoJSON(t *testing.T) {
	for _, file := range corpus.Legacy(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p, err := reader.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runCLI(t, "info", file, "--json")
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			var doc report.PackageInfo
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, stdout)
			}
			if doc.Package != p.Name || doc.Size != int64(len(p.Source())) || doc.GUID != p.GUID().String() ||
				doc.Exports.Count != len(p.Exports) || doc.Version.File != p.Header.Version.File {
				t.Errorf("JSON does not match the package: %+v", doc)
			}
			if len(doc.GUID) != 32 || len(doc.Flags.Value) != 10 {
				t.Errorf("GUID %q or flags %q not fixed width", doc.GUID, doc.Flags.Value)
			}
		})
	}
}

func TestInfoText(t *testing.T) {
	file := corpus.Path(t, "legacy/ut99_stock/CTF-Face.unr")
	stdout, stderr, code := runCLI(t, "info", file)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"Package:     CTF-Face\n", "(Unreal Engine 1)", "(0x0000000", "Generations:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("info lacks %q:\n%s", want, stdout)
		}
	}
}

func TestDumpFormats(t *testing.T) {
	file := corpus.Path(t, entryFile)
	p, err := reader.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	decoders := map[string]func([]byte, any) error{"--json": json.Unmarshal, "--yaml": yaml.Unmarshal}
	for format, decode := range decoders {
		t.Run(format, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "dump", format, file)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			var doc dumpDoc
			if err := decode([]byte(stdout), &doc); err != nil {
				t.Fatalf("output does not parse: %v", err)
			}
			if doc.Names == nil || doc.Imports == nil || doc.Exports == nil {
				t.Fatalf("dump without table flags must print every table")
			}
			if len(*doc.Names) != len(p.Names) || len(*doc.Imports) != len(p.Imports) || len(*doc.Exports) != len(p.Exports) {
				t.Errorf("table sizes %d/%d/%d, want %d/%d/%d", len(*doc.Names), len(*doc.Imports), len(*doc.Exports),
					len(p.Names), len(p.Imports), len(p.Exports))
			}
			for _, e := range *doc.Exports {
				if len(e.XXH3) != 18 || !strings.HasPrefix(e.XXH3, "0x") {
					t.Errorf("export %d hash %q is not fixed-width hex", e.Index, e.XXH3)
				}
			}
		})
	}
}

func TestDumpSelectsTables(t *testing.T) {
	file := corpus.Path(t, entryFile)
	stdout, _, code := runCLI(t, "dump", "--imports", file, "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc["imports"]; !ok || doc["names"] != nil || doc["exports"] != nil {
		t.Errorf("--imports printed tables %v", keys(doc))
	}
	text, _, _ := runCLI(t, "dump", file, "-exports", "-names")
	if !strings.HasPrefix(text, "Names: ") || !strings.Contains(text, "\n\nExports: ") || strings.Contains(text, "Imports:") {
		t.Errorf("--names --exports printed:\n%s", text)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestVerifyCorpus(t *testing.T) {
	files := corpus.Legacy(t)
	stdout, stderr, code := runCLI(t, append([]string{"verify"}, files...)...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var lines []string
	warnings := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if file, _, ok := strings.Cut(line, ": warning: "); ok {
			warnings[file]++
			continue
		}
		lines = append(lines, line)
	}
	if len(lines) != len(files) {
		t.Fatalf("%d lines for %d files:\n%s", len(lines), len(files), stdout)
	}
	for i, line := range lines {
		if !strings.HasPrefix(line, "ok  "+files[i]+" (") || !strings.HasSuffix(line, " exports)") && !strings.HasSuffix(line, " 1 export)") {
			t.Errorf("line %q", line)
		}
	}
	// Only the Deus Ex package has warnings (TestVerifyWarnings).
	for file := range warnings {
		if filepath.Base(file) != "OpenDX.u" {
			t.Errorf("%s: %d warnings", file, warnings[file])
		}
	}
}

// The Deus Ex package stores 37 names with characters after a zero:
// verify lists them as warnings, and the file is ok.
func TestVerifyWarnings(t *testing.T) {
	dx := corpus.Path(t, "legacy-next/deusex/OpenDX.u")
	stdout, stderr, code := runCLI(t, "verify", dx)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != 0 || stderr != "" || len(lines) != 38 || !strings.HasPrefix(lines[37], "ok  "+dx+" (") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	for _, line := range lines[:37] {
		if !strings.HasPrefix(line, dx+": warning: name ") || !strings.Contains(line, "after the zero that ends the name") {
			t.Errorf("line %q", line)
		}
	}
	stdout, _, code = runCLI(t, "verify", "--json", dx)
	var doc report.Verify
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 {
		t.Fatalf("exit %d, --json output: %v\n%s", code, err, stdout)
	}
	if f := doc.Files[0]; !doc.OK || !f.OK || len(f.Problems) != 0 || len(f.Warnings) != 37 || f.Warnings[0].Text != lines[0][len(dx)+2:] {
		t.Errorf("--json: %+v", doc)
	}
}

func TestVerifyTruncated(t *testing.T) {
	good := corpus.Path(t, entryFile)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range []int{0, 3, 30, 100, len(data) / 2, len(data) - 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			bad := filepath.Join(dir, fmt.Sprintf("Entry-%d.unr", n))
			if err := os.WriteFile(bad, data[:n], 0o644); err != nil {
				t.Fatal(err)
			}
			// The bad file comes first: verify must go on to the good one.
			stdout, stderr, code := runCLI(t, "verify", bad, good)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if len(lines) < 2 || !strings.HasPrefix(lines[0], bad+": ") || lines[len(lines)-1] != "ok  "+good+" (112 names, 25 imports, 38 exports)" {
				t.Errorf("stdout:\n%s", stdout)
			}
			if !strings.Contains(stderr, "1 of 2 files have problems") {
				t.Errorf("stderr:\n%s", stderr)
			}

			stdout, _, code = runCLI(t, "verify", "--json", bad, good)
			var doc report.Verify
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("--json output is not JSON: %v\n%s", err, stdout)
			}
			if code != 1 || doc.OK || len(doc.Files) != 2 || doc.Files[0].OK || len(doc.Files[0].Problems) == 0 || !doc.Files[1].OK {
				t.Errorf("--json: exit %d, %+v", code, doc)
			}
		})
	}
}

func TestVerifyMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "Missing.u")
	stdout, _, code := runCLI(t, "verify", missing)
	if code != 1 || !strings.HasPrefix(stdout, missing+": ") || strings.Count(stdout, "\n") != 1 {
		t.Errorf("exit %d, stdout:\n%s", code, stdout)
	}
}

func TestRewritePreserveIdentical(t *testing.T) {
	dir := t.TempDir()
	for _, file := range corpus.Legacy(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			out := filepath.Join(dir, "preserve-"+filepath.Base(file))
			// Flags before the arguments and with the --form.
			stdout, stderr, code := runCLI(t, "rewrite", "--layout", "preserve", "-o", out, file)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			want, _ := os.ReadFile(file)
			got, err := os.ReadFile(out)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("output differs from the input (%d vs %d bytes, %v)", len(got), len(want), err)
			}
			if !strings.HasPrefix(stdout, fmt.Sprintf("wrote %d bytes to %s (layout preserve)", len(want), out)) ||
				!strings.HasSuffix(stdout, "byte-identical to the input\n") || strings.Count(stdout, "\n") != 1 {
				t.Errorf("summary: %q", stdout)
			}
		})
	}
}

func TestRewriteCompactVerifies(t *testing.T) {
	dir := t.TempDir()
	for _, file := range corpus.Legacy(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			out := filepath.Join(dir, "compact-"+filepath.Base(file))
			stdout, stderr, code := runCLI(t, "rewrite", file, "--layout=compact", "--json", "-o", out)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			var doc rewriteDoc
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("--json output is not JSON: %v\n%s", err, stdout)
			}
			st, err := os.Stat(out)
			if err != nil || doc.Layout != "compact" || doc.Size != st.Size() || doc.Input != file || doc.Output != out {
				t.Errorf("report %+v does not match the file (%v)", doc, err)
			}
			if vout, verr, code := runCLI(t, "verify", out); code != 0 {
				t.Errorf("compact output fails verify:\n%s%s", vout, verr)
			}
		})
	}
}

func TestRewriteBadInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "Bad.u")
	os.WriteFile(in, []byte("definitely not a package"), 0o644)
	out := filepath.Join(dir, "Out.u")
	stdout, stderr, code := runCLI(t, "rewrite", in, "-o", out)
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "unrmod: "+in+": header") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("output written for a bad input")
	}
}

func TestExportData(t *testing.T) {
	file := corpus.Path(t, entryFile)
	p, err := reader.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	i := exportIndex(t, p, "Entry.LevelInfo0")
	out := filepath.Join(t.TempDir(), "sub", "LevelInfo0.bin")
	stdout, stderr, code := runCLI(t, "export-data", "-o", out, file, "levelinfo0")
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(got, p.Exports[i].Data) || len(got) == 0 {
		t.Errorf("wrote %d bytes, want the %d data bytes (%v)", len(got), len(p.Exports[i].Data), err)
	}
	if want := fmt.Sprintf("wrote %d bytes of Entry.LevelInfo0 (class LevelInfo) to %s\n", len(got), out); stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}

	// Every export by its full path, to standard output.
	for i := range p.Exports {
		path := p.ExportPath(i)
		stdout, stderr, code := runCLI(t, "export-data", file, path, "-o", "-")
		if code != 0 || stdout != string(p.Exports[i].Data) {
			t.Errorf("%s: exit %d, %d bytes on stdout, want %d; stderr:\n%s", path, code, len(stdout), len(p.Exports[i].Data), stderr)
		}
	}
}

func exportIndex(t *testing.T, p *reader.Package, path string) int {
	t.Helper()
	for i := range p.Exports {
		if p.ExportPath(i) == path {
			return i
		}
	}
	t.Fatalf("no export %s", path)
	return -1
}

func TestExportDataLookupErrors(t *testing.T) {
	entry := corpus.Path(t, entryFile)
	bluff := corpus.Path(t, "legacy/ut99_stock/BluffFX.utx")
	tests := []struct {
		name  string
		args  []string
		wants []string
	}{
		{"unknown", []string{entry, "LevelInfo9"}, []string{`no export "LevelInfo9"; close matches:`, "\n  Entry.LevelInfo0 (class LevelInfo)"}},
		{"nothing close", []string{entry, "Zzyzx"}, []string{`no export "Zzyzx"; run 'unrmod dump --exports`}},
		{"import", []string{entry, "Engine.LevelInfo"}, []string{"is an import (Engine.LevelInfo, class Core.Class)"}},
		{"ambiguous", []string{bluff, "Lball"}, []string{"matches 2 exports", "\n  BluffFX.DevGarbage.Lball (class Palette)", "\n  BluffFX.DevGarbage.Lball (class FireTexture)"}},
		{"wrong class", []string{bluff, "Lball", "--class", "Texture"}, []string{`no export "Lball" of class Texture`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.bin")
			stdout, stderr, code := runCLI(t, append([]string{"export-data", "-o", out}, tt.args...)...)
			if code != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %q", code, stdout)
			}
			for _, want := range tt.wants {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("output written on error")
			}
		})
	}

	// --class picks one of two objects that share a path.
	p, err := reader.ReadFile(bluff)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "export-data", bluff, "lball", "--class", "firetexture", "-o", "-")
	if code != 0 || stdout != string(p.Exports[1].Data) || !strings.Contains(stderr, "(class FireTexture)") {
		t.Errorf("--class: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestCorruptInputNeverPanics runs the reading commands on truncated and
// bit-flipped copies of a package: they must fail cleanly (status 1) or
// succeed, never panic.
func TestCorruptInputNeverPanics(t *testing.T) {
	data, err := os.ReadFile(corpus.Path(t, entryFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	check := func(name string, b []byte) {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"info", file}, {"dump", file}, {"verify", file}, {"export-data", file, "LevelInfo0", "-o", "-"}} {
			if _, stderr, code := runCLI(t, args...); code != 0 && code != 1 {
				t.Errorf("%s %s: exit %d\n%s", args[0], name, code, stderr)
			}
		}
	}
	for n := 0; n < len(data); n += 97 {
		check(fmt.Sprintf("trunc-%d.unr", n), data[:n])
	}
	// Flip bytes in the header and the tables, one at a time.
	p, err := reader.Read("Entry.unr", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Regions() {
		if r.Kind == "export" {
			continue
		}
		for off := r.Offset; off < r.End(); off += 11 {
			b := append([]byte(nil), data...)
			b[off] ^= 0xA5
			check(fmt.Sprintf("flip-%d.unr", off), b)
		}
	}
}

// heritagePackage returns a minimal file version 63 package: a 44-byte
// header, one heritage GUID and a name table holding "None".
func heritagePackage() []byte {
	le := binary.LittleEndian
	b := make([]byte, 44)
	le.PutUint32(b[0:], reader.Tag)
	le.PutUint32(b[4:], 63)
	le.PutUint32(b[12:], 1)  // name count
	le.PutUint32(b[16:], 60) // name offset
	le.PutUint32(b[24:], 69) // export offset (no exports)
	le.PutUint32(b[32:], 69) // import offset (no imports)
	le.PutUint32(b[36:], 1)  // heritage count
	le.PutUint32(b[40:], 44) // heritage offset
	for _, x := range []uint32{0x01234567, 0x89ABCDEF, 0xDEADBEEF, 0x0BADF00D} {
		b = le.AppendUint32(b, x)
	}
	b = append(b, "None\x00"...)
	return le.AppendUint32(b, uint32(reader.NewNameFlags))
}

func TestInfoHeritage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "Old.u")
	if err := os.WriteFile(file, heritagePackage(), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "info", file)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{
		"Version:     63/0 (Unreal Engine 1)\n",
		"Flags:       none (0x00000000)\n",
		"GUID:        0123456789ABCDEFDEADBEEF0BADF00D\n",
		"Header size: 44 bytes\n",
		"Heritage:    1\n  [0] 0123456789ABCDEFDEADBEEF0BADF00D\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("info lacks %q:\n%s", want, stdout)
		}
	}
	stdout, _, _ = runCLI(t, "info", "--json", file)
	var doc report.PackageInfo
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Heritage) != 1 || len(doc.Generations) != 0 || doc.GUID != doc.Heritage[0] {
		t.Errorf("JSON heritage %v, generations %v, GUID %s", doc.Heritage, doc.Generations, doc.GUID)
	}
	if out, errs, code := runCLI(t, "verify", file); code != 0 {
		t.Errorf("verify: exit %d\n%s%s", code, out, errs)
	}
	out := filepath.Join(t.TempDir(), "Old.u")
	if _, errs, code := runCLI(t, "rewrite", file, "-o", out, "--layout", "compact"); code != 0 {
		t.Errorf("rewrite: exit %d\n%s", code, errs)
	}
}
