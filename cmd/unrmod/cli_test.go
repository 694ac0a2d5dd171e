package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// runCLI runs the command line and returns its outputs and exit status.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	if strings.Contains(errb.String(), "internal error") {
		t.Errorf("unrmod %s panicked:\n%s", strings.Join(args, " "), errb.String())
	}
	return out.String(), errb.String(), code
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "In.u")
	if err := os.WriteFile(in, []byte("not a package"), 0o644); err != nil {
		t.Fatal(err)
	}
	sameSpelledOtherwise := filepath.Join(dir, "sub", "..", "In.u")
	tests := []struct {
		name string
		args []string
		help string // the help command the error points at
	}{
		{"no args", nil, "unrmod --help"},
		{"unknown command", []string{"bogus"}, "unrmod --help"},
		{"flag before command", []string{"--json", "info", in}, "unrmod --help"},
		{"info without file", []string{"info"}, "unrmod info --help"},
		{"info with two files", []string{"info", in, in}, "unrmod info --help"},
		{"info unknown flag", []string{"info", "--bogus", in}, "unrmod info --help"},
		{"info flag after file", []string{"info", in, "-x"}, "unrmod info --help"},
		{"dump without file", []string{"dump", "--json"}, "unrmod dump --help"},
		{"dump json and yaml", []string{"dump", in, "--json", "--yaml"}, "unrmod dump --help"},
		{"dump bad bool", []string{"dump", in, "--json=maybe"}, "unrmod dump --help"},
		{"verify without files", []string{"verify"}, "unrmod verify --help"},
		{"rewrite without args", []string{"rewrite"}, "unrmod rewrite --help"},
		{"rewrite missing -o", []string{"rewrite", in}, "unrmod rewrite --help"},
		{"rewrite -o without value", []string{"rewrite", in, "-o"}, "unrmod rewrite --help"},
		{"rewrite same file", []string{"rewrite", in, "-o", in}, "unrmod rewrite --help"},
		{"rewrite same file other spelling", []string{"rewrite", "--o=" + sameSpelledOtherwise, in}, "unrmod rewrite --help"},
		{"rewrite to stdout", []string{"rewrite", in, "-o", "-"}, "unrmod rewrite --help"},
		{"rewrite bad layout", []string{"rewrite", in, "-o", filepath.Join(dir, "out.u"), "--layout", "tidy"}, "unrmod rewrite --help"},
		{"export-data without object", []string{"export-data", in, "-o", "-"}, "unrmod export-data --help"},
		{"export-data missing -o", []string{"export-data", in, "LevelInfo0"}, "unrmod export-data --help"},
		{"export-data too many args", []string{"export-data", in, "A", "B", "-o", "-"}, "unrmod export-data --help"},
		{"export-data empty object", []string{"export-data", in, "", "-o", "-"}, "unrmod export-data --help"},
		{"export-data same file", []string{"export-data", in, "X", "-o", in}, "unrmod export-data --help"},
		{"help unknown command", []string{"help", "bogus"}, "unrmod help --help"},
		{"version with args", []string{"version", "now"}, "unrmod version --help"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2; stderr:\n%s", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty:\n%s", stdout)
			}
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "unrmod: ") || lines[1] != "see '"+tt.help+"'" {
				t.Errorf("stderr is not a reason plus \"see '%s'\":\n%s", tt.help, stderr)
			}
		})
	}
	if b, err := os.ReadFile(in); err != nil || string(b) != "not a package" {
		t.Errorf("input was modified: %q, %v", b, err)
	}
}

// TestSameFileLinks checks that rewrite refuses an output that is a link to
// its input.
func TestSameFileLinks(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "In.u")
	if err := os.WriteFile(in, []byte("original"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]func(string, string) error{"symlink": os.Symlink, "hard link": os.Link}
	for kind, mk := range links {
		link := filepath.Join(dir, strings.ReplaceAll(kind, " ", "_"))
		if err := mk(in, link); err != nil {
			t.Logf("cannot create %s: %v", kind, err)
			continue
		}
		_, stderr, code := runCLI(t, "rewrite", in, "-o", link)
		if code != 2 || !strings.Contains(stderr, "is the input file") {
			t.Errorf("rewrite to a %s of the input: exit %d, stderr:\n%s", kind, code, stderr)
		}
	}
	if b, _ := os.ReadFile(in); string(b) != "original" {
		t.Errorf("input was modified: %q", b)
	}
}

func TestHelp(t *testing.T) {
	var cases [][]string
	cases = append(cases, []string{"help"}, []string{"--help"}, []string{"-h"}, []string{"-help"})
	for _, c := range commands() {
		cases = append(cases,
			[]string{c.name, "--help"},
			[]string{c.name, "-h"},
			[]string{c.name, "-help"},
			[]string{"help", c.name},
			[]string{c.name, "some-file", "--help"}, // flags anywhere
		)
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, args...)
			if code != 0 || stderr != "" {
				t.Errorf("exit status %d, stderr %q; want 0 and nothing", code, stderr)
			}
			for _, want := range []string{"Usage: unrmod", "Example"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("help lacks %q:\n%s", want, stdout)
				}
			}
		})
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	stdout, _, _ := runCLI(t, "help")
	for _, c := range commands() {
		if !strings.Contains(stdout, "  "+c.name+" ") {
			t.Errorf("main help does not list %s", c.name)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		stdout, stderr, code := runCLI(t, args...)
		if code != 0 || stderr != "" || stdout != "unrmod "+buildVersion()+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		args             []string
		flags, positions []string
	}{
		{[]string{"a", "-o", "out", "b"}, []string{"-o", "out"}, []string{"a", "b"}},
		{[]string{"--json", "a"}, []string{"--json"}, []string{"a"}},
		{[]string{"a", "--json", "--layout=compact"}, []string{"--json", "--layout=compact"}, []string{"a"}},
		{[]string{"a", "--layout", "compact", "-o", "-"}, []string{"--layout", "compact", "-o", "-"}, []string{"a"}},
		{[]string{"-", "a"}, nil, []string{"-", "a"}},
		{[]string{"a", "--", "-o", "--json"}, nil, []string{"a", "-o", "--json"}},
		{[]string{"-o", "--", "a"}, []string{"-o", "--"}, []string{"a"}},
		{[]string{"a", "-o"}, []string{"-o"}, []string{"a"}},
		{[]string{"--unknown", "a"}, []string{"--unknown"}, []string{"a"}},
		{[]string{"--json", "false"}, []string{"--json"}, []string{"false"}},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.Bool("json", false, "")
		fs.String("o", "", "")
		fs.String("layout", "", "")
		flags, positional := splitArgs(fs, tt.args)
		if !reflect.DeepEqual(flags, tt.flags) || !reflect.DeepEqual(positional, tt.positions) {
			t.Errorf("splitArgs(%q) = %q, %q; want %q, %q", tt.args, flags, positional, tt.flags, tt.positions)
		}
	}
}

func TestTable(t *testing.T) {
	long := strings.Repeat("p", maxColumnWidth+1)
	for _, tc := range []struct {
		name   string
		header []string
		right  []bool
		rows   [][]string
		want   string
	}{
		{"runes align, last column unpadded",
			[]string{"N", "NAME", "NOTE"}, []bool{true, false, false},
			[][]string{{"1", "Größe", "x"}, {"100", "A", ""}},
			"  N  NAME   NOTE\n  1  Größe  x\n100  A\n"},
		{"a cell past the width cap overflows its row only",
			[]string{"N", "PATH", "SIZE"}, []bool{true, false, true},
			[][]string{{"1", "a.b", "10"}, {"2", long, "7"}, {"3", "a.c", "123"}},
			"N  PATH  SIZE\n1  a.b     10\n2  " + long + "     7\n3  a.c    123\n"},
		{"empty cells leave no trailing spaces; a cell's own are kept",
			[]string{"N", "NAME", "NOTE"}, []bool{true, false, false},
			[][]string{{"1", "", ""}, {"2", "b ", ""}, {"3", "c", "d "}},
			"N  NAME  NOTE\n1\n2  b \n3  c     d \n"},
		{"a right-aligned last column is padded",
			[]string{"NAME", "N"}, []bool{false, true},
			[][]string{{"a", "1"}, {"b", "1000"}},
			"NAME     N\na        1\nb     1000\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := &table{header: tc.header, right: tc.right}
			for _, r := range tc.rows {
				tb.add(r...)
			}
			var b bytes.Buffer
			if err := tb.write(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("table:\n%s\nwant:\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestRuneCount(t *testing.T) {
	for _, tc := range []struct {
		s     string
		limit int
		want  int
	}{
		{"", 3, 0},
		{"abc", 3, 3},
		{"abcd", 3, 4},
		{"abcdefghijklmnop", 3, 4},
		{"Größe", 5, 5},
		{"Größe", 4, 5},
		{"ééé", 3, 3},
		{"éééé", 3, 4},
		{"日本語", 2, 3},
		{"日本語", 3, 3},
		{"abcdefgh日本", 9, 10},
		{"abcdefgh日本", 10, 10},
		{"\xff\xfe\xfd\xfc", 3, 4},
	} {
		if got := runeCount(tc.s, tc.limit); got != tc.want {
			t.Errorf("runeCount(%q, %d) = %d, want %d", tc.s, tc.limit, got, tc.want)
		}
	}
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghi", "abcdefgé", "éabcdefgh", "abcdefghijklmnoé"} {
		want := utf8.RuneCountInString(s) == len(s)
		if got := ascii(s); got != want {
			t.Errorf("ascii(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestHexForms(t *testing.T) {
	for _, v := range []uint64{0, 1, 0xdeadbeef, 0xffffffff, 0x123456789abcdef0, ^uint64(0)} {
		if got, want := hex64(v), fmt.Sprintf("0x%016x", v); got != want {
			t.Errorf("hex64(%d) = %s, want %s", v, got, want)
		}
		if got, want := hex32(uint32(v)), fmt.Sprintf("0x%08x", uint32(v)); got != want {
			t.Errorf("hex32(%d) = %s, want %s", uint32(v), got, want)
		}
	}
}

// TestCLIPlatform checks what makes the CLI work the same in every shell:
// patterns expanded by unrmod, folders for verify, diff --exit-code, the
// closest flag for a typo and file kinds named in errors.
func TestCLIPlatform(t *testing.T) {
	dir := t.TempDir()
	demo := "../../examples/packages/UnrmodDemo.u"
	data, err := os.ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755)
	os.WriteFile(filepath.Join(dir, "A.u"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "deeper", "B.utx"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "notes.txt"), []byte("not a package"), 0o644)
	// The staging folder a killed extract left, with a file cut short: not
	// the folder's content, so verify of the folder does not read it.
	os.MkdirAll(filepath.Join(dir, ".out.unrmod-9.tmp"), 0o755)
	os.WriteFile(filepath.Join(dir, ".out.unrmod-9.tmp", "C.u"), data[:len(data)/2], 0o644)

	for _, tt := range []struct {
		name string
		args []string
		code int
		out  []string // in stdout
		err  []string // in stderr
	}{
		{"glob", []string{"verify", filepath.Join(dir, "*.u")}, 0, []string{"ok  " + filepath.Join(dir, "A.u")}, nil},
		{"glob no match", []string{"verify", filepath.Join(dir, "*.utx")}, 2, nil, []string{"no file matches"}},
		{"folder", []string{"verify", dir}, 0, []string{"A.u", filepath.Join("deeper", "B.utx")}, nil},
		{"empty folder", []string{"verify", filepath.Join(dir, "sub", "deeper", "..", "..", "sub", "deeper", "none")}, 1, nil, nil},
		{"typo flag", []string{"verify", "--jsno", demo}, 2, nil, []string{"unknown flag --jsno (did you mean --json?)"}},
		{"typo flag far", []string{"dump", "--zzzzzz", demo}, 2, nil, []string{"unknown flag --zzzzzz"}},
		{"diff same", []string{"diff", "--exit-code", demo, filepath.Join(dir, "A.u")}, 0, []string{"no differences"}, nil},
		{"utoc as package", []string{"diff", "../../examples/containers/UnrmodDemo427_P.utoc", demo}, 1, nil, []string{"an IoStore table of contents"}},
		{"ucas", []string{"dump", "../../examples/containers/UnrmodDemo427_P.ucas"}, 1, nil, []string{"an IoStore block store (.ucas)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.out {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.err {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
	// diff --exit-code of two different packages: 1, with the differences.
	other := "../../examples/packages/UnrmodDemoMap.unr"
	stdout, _, code := runCLI(t, "diff", "--exit-code", demo, other)
	if code != 1 || strings.Contains(stdout, "no differences") || stdout == "" {
		t.Errorf("diff --exit-code of different packages: exit %d\n%s", code, stdout)
	}
	if _, _, code := runCLI(t, "diff", demo, other); code != 0 {
		t.Errorf("diff without --exit-code: exit %d, want 0", code)
	}
	// A UE4 .uasset summary is recognised as a cooked asset: diff and
	// info read it and say where its summary ends too soon.
	ue4 := make([]byte, 64)
	copy(ue4, []byte{0xC1, 0x83, 0x2A, 0x9E, 0xF9, 0xFF, 0xFF, 0xFF, 0xF9, 0x02, 0, 0, 0x0A, 0x02, 0, 0})
	item := filepath.Join(dir, "Item.uasset")
	os.WriteFile(item, ue4, 0o644)
	if _, stderr, code := runCLI(t, "diff", item, item); code == 0 || !strings.Contains(stderr, item+": package file summary ImportCount at 0x40") {
		t.Errorf("UE4 .uasset: %s", stderr)
	}
	if _, stderr, code := runCLI(t, "info", item); code == 0 || !strings.Contains(stderr, item+": package file summary ImportCount at 0x40") {
		t.Errorf("info of a truncated UE4 .uasset: exit %d: %s", code, stderr)
	}
}
