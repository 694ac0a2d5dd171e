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
	if want := int64(len(h) + len(x) - 4); s.BulkDataStartOffset != want {
		t.Errorf("BulkDataStartOffset = %d, want %d (where the .uexp's tag starts)", s.BulkDataStartOffset, want)
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

// TestSingleFile: the same asset with its export data after the header in
// one file (as editors and some 4.x cooks write it) decodes, re-encodes
// identically, and moves its export data when the header grows.
func TestSingleFile(t *testing.T) {
	h, x := buildSmall(t)
	one := append(bytes.Clone(h), x...)
	p, err := Decode("Small.uasset", one, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Split || !p.HasTailTag() || len(p.Exports[0].Data) != 12 {
		t.Fatalf("split %v tail tag %v data %d", p.Split, p.HasTailTag(), len(p.Exports[0].Data))
	}
	got, uexp, err := p.Encode()
	if err != nil || uexp != nil || !bytes.Equal(got, one) {
		t.Fatalf("round trip differs (err %v, uexp %v)", err, uexp != nil)
	}
	p.Names = append(p.Names, NewName("Added"))
	got, _, err = p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	q, err := Decode("Small.uasset", got, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	grow := int64(len(got) - len(one))
	if q.Exports[0].SerialOffset != p.Exports[0].SerialOffset+grow || !bytes.Equal(q.Exports[0].Data, p.Exports[0].Data) {
		t.Errorf("export moved to %d (want %d)", q.Exports[0].SerialOffset, p.Exports[0].SerialOffset+grow)
	}
	if q.Summary.BulkDataStartOffset != int64(len(got)-4) {
		t.Errorf("BulkDataStartOffset %d, want where the tag starts, %d", q.Summary.BulkDataStartOffset, len(got)-4)
	}
}
