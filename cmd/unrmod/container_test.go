package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/ue"
)

// Corpus containers (relative to UNRMOD_CORPUS).
const (
	ctFixtures    = "iostore/cue4parse_ue5_8/"
	ctZlib        = ctFixtures + "Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc"
	ctUncompr     = ctFixtures + "Unversioned/Uncompressed/CUE4ParseFixtures-Minimal-Uncompressed-Windows.utoc"
	ctOodle       = ctFixtures + "Tagged/Oodle/CUE4ParseFixtures-Minimal-Oodle-Windows.utoc"
	ctEncrypted   = ctFixtures + "Tagged/OodleEncrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc"
	ctPartitioned = ctFixtures + "Tagged/OodlePartitioned/CUE4ParseFixtures-Minimal-OodlePartitioned-Windows.utoc"
	ctTocOnly     = "iostore/game_TempleOfGiants_ue5/Colliderproject-Windows.utoc"
	ctGlobal      = "iostore/game_TempleOfGiants_ue5/global.utoc"
)

// ctKeyHex is the CUE4Parse fixture key (32 ASCII bytes) as hex.
var ctKeyHex = "0x" + hex.EncodeToString([]byte("CUE4ParseFixtureAESKey0123456789"))

// ctBuilt writes a small deterministic container made by the project's
// builder into dir and returns its .utoc path: TOC version v, the given
// method, optionally encrypted. 4.2x containers get a container header.
func ctBuilt(t *testing.T, dir, name string, v iostore.TocVersion, method string, key *ue.Key) string {
	t.Helper()
	id := func(value uint64, typ iostore.ChunkType) iostore.ChunkID {
		c, err := iostore.NewChunkID(value, 0, typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	text := func(seed string, n int) []byte {
		var b bytes.Buffer
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "%s %d None /Game/Maps/%s\x00\x01", seed, i*i%97, seed)
		}
		return b.Bytes()[:n]
	}
	const cid = 0x5EED0000C0FFEE01
	pkg := text("BP_Aphid", 3000)
	b := &iostorebuild.Container{
		Version: v, ContainerID: cid, MountPoint: "../../../Maine/Content/", BlockSize: 4096, Method: method, Key: key,
		Chunks: []iostorebuild.Chunk{
			{ID: id(0x14f2082da820101a, iostore.ChunkExportBundleData), Path: "Blueprints/Items/Props/BP_Aphid_Meat_Prop.uasset", Data: pkg},
			{ID: id(0x14f2082da820101a, iostore.ChunkBulkData), Path: "Blueprints/Items/Props/BP_Aphid_Meat_Prop.ubulk", Data: text("bulk", 9000)},
			{ID: id(0x0102030405060708, iostore.ChunkExportBundleData), Path: "Maps/Empty.umap", Data: nil},
			{ID: id(cid, iostore.ChunkContainerHeader), Raw: true, Data: iostorebuild.ContainerHeader427(cid,
				[]zen.StoreEntry{
					{PackageID: 0x0102030405060708, ExportCount: 1, ExportBundleCount: 1, LoadOrder: 1},
					{PackageID: 0x14f2082da820101a, ExportBundlesSize: uint64(len(pkg)), ExportCount: 7, ExportBundleCount: 1, LoadOrder: 28391},
				})},
		},
	}
	if v.UsesUE5ChunkTypes() {
		// ContainerHeader427 writes the 4.2x layout only.
		b.Chunks = b.Chunks[:3]
	}
	utoc, err := b.WriteFiles(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	return utoc
}

// TestContainerGolden compares info and ls output for builder-made
// containers with the files in testdata (go test ./cmd/unrmod -update
// rewrites them).
func TestContainerGolden(t *testing.T) {
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctBuilt(t, dir, "z_Grounded_P", iostore.VersionPartitionSize, "Zlib", nil)
	key := ue.Key([]byte("unrmod-golden-test-key-32-bytes!"))
	ctBuilt(t, dir, "Encrypted58", iostore.VersionReplaceIoChunkHashWithIoHash, "LZ4", &key)
	keyHex := "0x" + hex.EncodeToString(key[:])
	t.Chdir(dir)
	tests := []struct {
		golden string
		args   []string
	}{
		{"info_z_Grounded_P.golden", []string{"info", "z_Grounded_P.utoc"}},
		{"ls_z_Grounded_P.golden", []string{"ls", "z_Grounded_P.utoc"}},
		{"ls_long_z_Grounded_P.golden", []string{"ls", "--long", "z_Grounded_P.utoc"}},
		{"info_Encrypted58.golden", []string{"info", "Encrypted58.utoc", "--aes-key", keyHex}},
		{"ls_long_Encrypted58.golden", []string{"ls", "--long", "Encrypted58.utoc", "--aes-key", keyHex}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) { checkGolden(t, filepath.Join(testdata, tt.golden), tt.args...) })
	}
}

// TestContainerInfoCorpus runs info on every corpus container, with JSON
// checked against the package.
func TestContainerInfoCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "iostore", "*", "*.utoc"))
	more, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "iostore", "*", "*", "*", "*.utoc"))
	more2, _ := filepath.Glob(filepath.Join(corpus.Dir(t), "iostore", "*", "*", "*.utoc"))
	files = append(append(files, more...), more2...)
	if len(files) < 11 {
		t.Fatalf("%d containers in the corpus", len(files))
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "info", file)
			if code != 0 || stderr != "" || !strings.Contains(stdout, "TOC version:") || !strings.Contains(stdout, "TocEntryCount") {
				t.Fatalf("info: exit %d, stderr %s\n%s", code, stderr, stdout)
			}
			stdout, _, code = runCLI(t, "info", "--json", file, "--aes-key", ctKeyHex)
			var doc report.ContainerInfo
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 {
				t.Fatalf("info --json: exit %d, %v\n%s", code, err, stdout)
			}
			c, err := iostore.Open(file, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if doc.Chunks != len(c.Chunks()) || doc.TocVersion.Value != int(c.Header().Version) || doc.ContainerID != c.Header().ContainerID.String() || doc.Kind != "iostore" {
				t.Errorf("JSON does not match: %+v", doc)
			}
			if _, ok := c.ContainerHeaderChunk(); ok && c.DataErr() == nil && (doc.ContainerHeader == nil || doc.ContainerHeader.Packages == nil || *doc.ContainerHeader.Packages == 0) {
				t.Errorf("container header not described: %+v", doc.ContainerHeader)
			}
		})
	}
}

// TestContainerInfoText checks the lines of info on the zlib fixture.
func TestContainerInfoText(t *testing.T) {
	file := corpus.Path(t, ctZlib)
	stdout, _, code := runCLI(t, "info", file)
	for _, want := range []string{
		"TOC version:      8 ReplaceIoChunkHashWithIoHash (UE 5.5-5.8)\n",
		"Container id:     0xdc74c2edae5549a3\n",
		"Flags:            Compressed|Indexed (0x09)\n",
		"Compression:      Zlib\n",
		"Block size:       65536 bytes\n",
		"Chunks:           112 (97 ExportBundleData, 14 BulkData, 1 ContainerHeader)\n",
		"Mount point:      ../../../CUE4ParseFixtures/Content/Fixtures/\n",
		"version 5 SoftPackageReferencesOffset",
		"97 packages",
		"  PartitionSize                     0xffffffffffffffff\n",
	} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("info lacks %q:\n%s", want, stdout)
		}
	}
	stdout, _, _ = runCLI(t, "info", corpus.Path(t, ctPartitioned))
	if !strings.Contains(stdout, "Partitions:       5 of at most 262144 bytes (") || !strings.Contains(stdout, "_s4.ucas 181040 bytes)") {
		t.Errorf("partitions:\n%s", stdout)
	}
	stdout, _, _ = runCLI(t, "info", corpus.Path(t, ctTocOnly))
	if !strings.Contains(stdout, ".ucas missing: info and ls work") || !strings.Contains(stdout, "TOC version:      5 PerfectHashWithOverflow (UE 5.0-5.3)") {
		t.Errorf("TOC without .ucas:\n%s", stdout)
	}
}

// TestLsCorpus lists the corpus containers, with and without keys and
// .ucas files.
func TestLsCorpus(t *testing.T) {
	for _, tt := range []struct {
		rel    string
		key    bool
		chunks int
	}{
		{ctZlib, false, 112}, {ctOodle, false, 112}, {ctEncrypted, true, 112}, {ctPartitioned, false, 112},
		{ctTocOnly, false, 1803}, {ctGlobal, false, 1},
	} {
		t.Run(filepath.Base(tt.rel), func(t *testing.T) {
			args := []string{"ls", corpus.Path(t, tt.rel)}
			if tt.key {
				args = append(args, "--aes-key", ctKeyHex)
			}
			stdout, stderr, code := runCLI(t, args...)
			if code != 0 || stderr != "" || strings.Count(stdout, "\n") != tt.chunks+1 || !strings.HasPrefix(stdout, "CHUNK ID") {
				t.Fatalf("exit %d, %d lines, stderr %s", code, strings.Count(stdout, "\n"), stderr)
			}
			stdout, _, code = runCLI(t, append(args, "--json")...)
			var doc report.ContainerList
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || len(doc.Chunks) != tt.chunks {
				t.Fatalf("--json: exit %d, %v, %d chunks", code, err, len(doc.Chunks))
			}
			for _, ch := range doc.Chunks {
				if len(ch.ChunkID) != 26 || !strings.HasPrefix(ch.ChunkID, "0x") || len(ch.Hash) != 40 || ch.Type == "" || ch.Type == "Unknown" || ch.OutputPath == "" {
					t.Errorf("chunk %+v", ch)
				}
			}
		})
	}
	// Encrypted without a key, or with a wrong one: a clear failure.
	file := corpus.Path(t, ctEncrypted)
	_, stderr, code := runCLI(t, "ls", file)
	if code != 1 || !strings.Contains(stderr, "--aes-key") || !strings.Contains(stderr, "encrypted") {
		t.Errorf("ls without key: exit %d, %s", code, stderr)
	}
	wrong := "0x" + strings.Repeat("ab", 32)
	_, stderr, code = runCLI(t, "ls", file, "--aes-key", wrong)
	if code != 1 || !strings.Contains(stderr, "wrong AES key") {
		t.Errorf("ls with a wrong key: exit %d, %s", code, stderr)
	}
}

// TestVerifyContainers runs verify over the corpus containers (the Oodle
// ones, which need the library, in TestOodleExtractVerify and
// TestOodleMissing).
func TestVerifyContainers(t *testing.T) {
	ok := []string{ctZlib, ctUncompr, ctGlobal, ctFixtures + "Tagged/global.utoc",
		ctFixtures + "Patch/CUE4ParseFixtures-PatchBase.utoc", ctFixtures + "Patch/CUE4ParseFixtures-PatchBase_0_P.utoc"}
	var args []string
	for _, rel := range ok {
		args = append(args, corpus.Path(t, rel))
	}
	stdout, stderr, code := runCLI(t, append([]string{"verify"}, args...)...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %s\n%s", code, stderr, stdout)
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if !strings.HasPrefix(line, "ok  ") {
			t.Errorf("line %q", line)
		}
	}
	for _, want := range []string{"(112 chunks, 135 blocks, 112 chunk hashes checked, 97 zen packages checked)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("verify lacks %q:\n%s", want, stdout)
		}
	}
	// JSON.
	stdout, _, code = runCLI(t, "verify", "--json", args[0])
	var doc report.Verify
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != 0 || !doc.OK || doc.Files[0].Kind != "iostore" || doc.Files[0].Container.HashesChecked != 112 {
		t.Errorf("--json: exit %d, %v, %s", code, err, stdout)
	}
	// The encrypted container: ok with the key, one line per problem
	// without it, a clear failure with a wrong key; a legacy package next to
	// containers still verifies.
	enc := corpus.Path(t, ctEncrypted)
	lib, _ := oodleLibrary(t)
	if stdout, _, code := runCLI(t, "verify", enc, "--aes-key", ctKeyHex, "--oodle", lib); code != 0 || !strings.HasPrefix(stdout, "ok  ") {
		t.Errorf("encrypted with key: exit %d\n%s", code, stdout)
	}
	stdout, _, code = runCLI(t, "verify", enc, corpus.Path(t, entryFile))
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 1 || len(lines) != 3 || !strings.Contains(lines[0], "--aes-key") || !strings.HasPrefix(lines[2], "ok  ") || !strings.HasSuffix(lines[2], "exports)") {
		t.Errorf("encrypted without key: exit %d\n%s", code, stdout)
	}
	stdout, _, code = runCLI(t, "verify", enc, "--aes-key", "0x"+strings.Repeat("00", 32))
	if code != 1 || !strings.Contains(stdout, "wrong AES key") || strings.Count(stdout, "\n") != 1 {
		t.Errorf("encrypted with a wrong key: exit %d\n%s", code, stdout)
	}
	// A TOC without its .ucas cannot be verified fully.
	stdout, _, code = runCLI(t, "verify", corpus.Path(t, ctTocOnly))
	if code != 1 || !strings.Contains(stdout, ".ucas is missing") {
		t.Errorf("TOC without .ucas: exit %d\n%s", code, stdout)
	}
}

// TestExtractCommand extracts the zlib fixture and checks every file
// against the hash ls reports.
func TestExtractCommand(t *testing.T) {
	file := corpus.Path(t, ctZlib)
	out := t.TempDir()
	stdout, stderr, code := runCLI(t, "extract", file, "-o", out, "--jobs", "3")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "extracted 112 files (2468693 bytes)") {
		t.Fatalf("exit %d, stderr %s\n%s", code, stderr, stdout)
	}
	lsOut, _, _ := runCLI(t, "ls", "--json", file)
	var doc report.ContainerList
	if err := json.Unmarshal([]byte(lsOut), &doc); err != nil {
		t.Fatal(err)
	}
	for _, ch := range doc.Chunks {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(ch.OutputPath)))
		if err != nil {
			t.Fatal(err)
		}
		if sum := blake3.Sum256(data); hex.EncodeToString(sum[:20]) != ch.Hash {
			t.Errorf("%s: extracted bytes do not match the chunk hash", ch.OutputPath)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "chunks", "ContainerHeader")); err != nil {
		t.Errorf("the container header is not under chunks/ContainerHeader: %v", err)
	}

	// Filters.
	out2 := t.TempDir()
	stdout, _, code = runCLI(t, "extract", file, "-o", out2, "--filter", "*.UMAP", "--filter", "CUE4ParseFixtures/**/Textures/T_BC?.uasset", "--json")
	var ex extractDoc
	if err := json.Unmarshal([]byte(stdout), &ex); err != nil || code != 0 || ex.Files < 5 {
		t.Fatalf("filter: exit %d, %v\n%s", code, err, stdout)
	}
	for _, p := range ex.Paths {
		if !strings.HasSuffix(p, ".umap") && !strings.Contains(p, "/Textures/T_BC") {
			t.Errorf("filter selected %s", p)
		}
	}
	_, stderr, code = runCLI(t, "extract", file, "-o", t.TempDir(), "--filter", "*.nothing")
	if code != 1 || !strings.Contains(stderr, "no chunk matches *.nothing") {
		t.Errorf("no match: exit %d, %s", code, stderr)
	}

	// Oodle: a clear failure naming Oodle, nothing written.
	out3 := t.TempDir()
	_, stderr, code = runCLI(t, "extract", corpus.Path(t, ctOodle), "-o", out3)
	if entries, _ := os.ReadDir(out3); code != 1 || !strings.Contains(stderr, "Oodle") || len(entries) != 0 {
		t.Errorf("Oodle: exit %d, %d entries, %s", code, len(entries), stderr)
	}
	// The container header of an Oodle container is stored raw: it extracts.
	stdout, stderr, code = runCLI(t, "extract", corpus.Path(t, ctEncrypted), "-o", out3, "--filter", "chunks/**", "--aes-key", ctKeyHex)
	if code != 0 || !strings.HasPrefix(stdout, "extracted 1 files") {
		t.Errorf("container header of the encrypted fixture: exit %d, %s%s", code, stdout, stderr)
	}
	_, stderr, code = runCLI(t, "extract", corpus.Path(t, ctEncrypted), "-o", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "--aes-key") {
		t.Errorf("encrypted without key: exit %d, %s", code, stderr)
	}
}

// TestContainerUsageErrors checks the command-line mistakes of the
// container commands: exit 2 and a pointer to the help.
func TestContainerUsageErrors(t *testing.T) {
	dir := t.TempDir()
	utoc := ctBuilt(t, dir, "U", iostore.VersionReplaceIoChunkHashWithIoHash, "Zlib", nil)
	for _, tt := range []struct {
		args []string
		help string
	}{
		{[]string{"ls"}, "ls"},
		{[]string{"ls", utoc, utoc}, "ls"},
		{[]string{"ls", utoc, "--aes-key", "1234"}, "ls"},
		{[]string{"extract", utoc}, "extract"},
		{[]string{"extract", "-o", dir}, "extract"},
		{[]string{"extract", utoc, "-o", dir, "--filter", "[a"}, "extract"},
		{[]string{"extract", utoc, "-o", dir, "--jobs", "-1"}, "extract"},
		{[]string{"verify", utoc, "--aes-key", "zz"}, "verify"},
		{[]string{"info", utoc, "--aes-key", ""}, "info"},
	} {
		stdout, stderr, code := runCLI(t, tt.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "see 'unrmod "+tt.help+" --help'") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tt.args, code, stdout, stderr)
		}
	}
}

// TestContainerCorruptNeverPanics runs every container command over
// truncated and bit-flipped copies of a builder-made container.
func TestContainerCorruptNeverPanics(t *testing.T) {
	src := t.TempDir()
	utoc := ctBuilt(t, src, "C", iostore.VersionPartitionSize, "Zlib", nil)
	toc, err := os.ReadFile(utoc)
	if err != nil {
		t.Fatal(err)
	}
	cas, err := os.ReadFile(iostore.PartitionPath(utoc, 0))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := t.TempDir()
	n := 0
	check := func(tocBytes, casBytes []byte) {
		n++
		file := filepath.Join(dir, fmt.Sprintf("c%d.utoc", n))
		if err := os.WriteFile(file, tocBytes, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(iostore.PartitionPath(file, 0), casBytes, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"info", file}, {"ls", "--long", file}, {"verify", file}, {"extract", file, "-o", out}} {
			if _, stderr, code := runCLI(t, args...); code != 0 && code != 1 {
				t.Errorf("%s %s: exit %d\n%s", args[0], file, code, stderr)
			}
		}
	}
	for k := 0; k < len(toc); k += 41 {
		check(toc[:k], cas)
	}
	for k := 0; k < len(toc); k += 7 {
		b := append([]byte(nil), toc...)
		b[k] ^= 0x5A
		check(b, cas)
	}
	for k := 0; k < len(cas); k += 211 {
		b := append([]byte(nil), cas...)
		b[k] ^= 0xFF
		check(toc, b)
	}
}

// TestProgressBar checks the bar's drawing, that it is off when standard
// error is not a terminal and that a nil bar is inert.
func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	if p := newProgress(&b, "extract", 0); p != nil {
		t.Error("a bar on a buffer, which is not a terminal")
	}
	var nilBar *progress
	nilBar.set(1, 2)
	nilBar.add(1)
	nilBar.finish()
	p := drawProgress(&b, "pack", 4<<20)
	p.add(1 << 20)
	p.set(4<<20, 4<<20)
	p.finish()
	if out := b.String(); !strings.Contains(out, "pack") || !strings.Contains(out, "4.0 MiB / 4.0 MiB") || !strings.Contains(out, "100 %") {
		t.Errorf("bar output %q", out)
	}
}

// TestMatchGlob checks the --filter patterns.
func TestMatchGlob(t *testing.T) {
	for _, tt := range []struct {
		pattern, name string
		want          bool
	}{
		{"*.uasset", "Game/Content/Maps/A.uasset", true},
		{"*.UASSET", "Game/Content/Maps/a.uasset", true},
		{"*.uasset", "Game/Content/Maps/A.ubulk", false},
		{"Game/*/Maps/*.umap", "Game/Content/Maps/L.umap", true},
		{"Game/*/L.umap", "Game/Content/Maps/L.umap", false},
		{"Game/**/L.umap", "Game/Content/Maps/L.umap", true},
		{"Game/**", "Game/Content/Maps/L.umap", true},
		{"**/Maps/**", "Game/Content/Maps/Sub/L.umap", true},
		{"**/Maps/**", "Game/Content/Map/L.umap", false},
		{"chunks/**", "chunks/ContainerHeader/0102.bin", true},
		{"T_BC?.uasset", "X/T_BC7.uasset", true},
		{"[ab].txt", "x/b.txt", true},
	} {
		if got := matchGlob(tt.pattern, tt.name); got != tt.want {
			t.Errorf("matchGlob(%q, %q) = %v", tt.pattern, tt.name, got)
		}
	}
	for _, bad := range []string{"", "[a", "x/[/y"} {
		if checkGlob(bad) == nil {
			t.Errorf("checkGlob(%q) accepted", bad)
		}
	}
}
