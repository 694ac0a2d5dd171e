package uasset

import (
	"bytes"
	"testing"
)

// TestSmallAsset checks the self-built asset: it decodes to what was
// built, with the offsets the encoder computed, and re-encodes identically.
func TestSmallAsset(t *testing.T) {
	h, x := buildSmall(t)
	p, err := Decode("Small.uasset", h, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Summary
	if int(s.TotalHeaderSize) != len(h) || s.NameCount != 6 || s.ImportCount != 2 || s.ExportCount != 1 {
		t.Errorf("summary: header %d/%d names %d imports %d exports %d", s.TotalHeaderSize, len(h), s.NameCount, s.ImportCount, s.ExportCount)
	}
	if got := p.Exports[0].SerialOffset; got != int64(len(h)) {
		t.Errorf("export SerialOffset = %d, want TotalHeaderSize %d", got, len(h))
	}
	if want := int64(len(h) + len(x)); s.BulkDataStartOffset != want {
		t.Errorf("BulkDataStartOffset = %d, want %d (the end of the .uexp)", s.BulkDataStartOffset, want)
	}
	if p.Release != (Release{4, 27}) || p.ReleaseDetected || !p.HasTailTag() || !p.Cooked() {
		t.Errorf("release %v detected %v tail tag %v cooked %v", p.Release, p.ReleaseDetected, p.HasTailTag(), p.Cooked())
	}
	if p.NameOf(p.Exports[0].ObjectName) != "Small" {
		t.Errorf("export name %q", p.NameOf(p.Exports[0].ObjectName))
	}
	h2, x2, err := p.Encode()
	if err != nil || !bytes.Equal(h, h2) || !bytes.Equal(x, x2) {
		t.Errorf("round trip differs (err %v)", err)
	}
}
