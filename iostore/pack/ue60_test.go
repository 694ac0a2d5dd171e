package pack_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

// TestRoundTripUE60 packs the files of a UE 5.8 corpus container for UE
// 6.0 (whose packages and container header have the 5.8 layouts):
// unencrypted, with a key (AES-CTR, what a key writes for 6.0) and with a
// key and ECB. Each output must be TOC version 10 with the method in
// header byte 81 (and one IV per block and one for the index with
// AES-CTR), verify, extract to the same files, and pack again from that
// extract to the same files once more. The corpus has no UE 6.0 container.
func TestRoundTripUE60(t *testing.T) {
	dir := corpus.Dir(t)
	src := filepath.Join(dir, "iostore/cue4parse_ue5_8/Tagged/Zlib/CUE4ParseFixtures-Minimal-Zlib-Windows.utoc")
	tmp := t.TempDir()
	a := filepath.Join(tmp, "a")
	extractAll(t, src, a)
	want := tree(t, a)
	e60 := zen.Engine{Major: 6, Minor: 0}
	if v := pack.TocVersionFor(e60); v != iostore.VersionContainerEncryptionMethod {
		t.Fatalf("UE 6.0 packs TOC version %d, want 10", v)
	}
	key, err := ue.ParseKey("UnrmodUE60KeyForTheRoundTrip0123")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		key    *ue.Key
		ecb    bool
		method iostore.EncryptionMethod
	}{
		{"plain", nil, false, iostore.EncryptionNone},
		{"CTR", &key, false, iostore.EncryptionAESCTR},
		{"ECB", &key, true, iostore.EncryptionAESECB},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := a
			for round := range 2 {
				plan, err := pack.Scan(in, pack.TocVersionFor(e60))
				if err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(tmp, fmt.Sprintf("%s-%d", tt.name, round), filepath.Base(src)) // the same container id
				res, err := pack.Pack(plan, out, &pack.Options{Engine: e60, ECB: tt.ecb, NoPak: true,
					Writer: iostore.WriterOptions{Method: "Zlib", Key: tt.key, Verify: iostore.VerifyAll}})
				if err != nil {
					t.Fatal(err)
				}
				c, err := iostore.Open(out, &iostore.Options{Key: tt.key})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				h := c.Header()
				if h.Version != 10 || h.Encryption() != tt.method || h.EncryptionMethodByte != uint8(tt.method) {
					t.Fatalf("round %d: TOC version %d, encryption %v, method byte %d; want 10, %v", round, h.Version, h.Encryption(), h.EncryptionMethodByte, tt.method)
				}
				if n, want := len(c.TOC().EncryptionIVs), len(c.TOC().Blocks)+1; tt.method == iostore.EncryptionAESCTR && n != want {
					t.Errorf("round %d: %d IVs, want %d", round, n, want)
				}
				hdr, err := c.ContainerHeader()
				if err != nil || hdr.Version != zen.HeaderSoftPackageReferencesOffset {
					t.Errorf("round %d: container header %v (%v), want version 5", round, hdr, err)
				}
				if r := c.Verify(nil); !r.OK() || r.PackagesChecked != res.Packages {
					t.Fatalf("round %d: %v; %d packages checked of %d", round, r.Problems, r.PackagesChecked, res.Packages)
				}
				next := filepath.Join(tmp, fmt.Sprintf("%s-%d-x", tt.name, round))
				if _, err := c.Extract(next, nil); err != nil {
					t.Fatal(err)
				}
				got := tree(t, next)
				if len(got) != len(want) {
					t.Errorf("round %d: %d files, want %d", round, len(got), len(want))
				}
				for p, w := range want {
					if g, ok := got[p]; !ok || !bytes.Equal(g, w) {
						t.Errorf("round %d: %s: %d bytes (present %v), want %d", round, p, len(g), ok, len(w))
					}
				}
				in = next
			}
		})
	}
}
