package uasset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/ue"
)

// TestTruncated cuts the small asset's header and export data at every
// length: each cut is refused with a *FormatError, never a panic.
func TestTruncated(t *testing.T) {
	h, x := buildSmall(t)
	for n := range len(h) {
		if _, err := Decode("Small.uasset", h[:n], x, nil); !isFormatError(err, ErrCorrupt) {
			t.Fatalf("header cut at %d: err = %v, want a FormatError matching ErrCorrupt", n, err)
		}
	}
	for n := range len(x) {
		_, err := Decode("Small.uasset", h, x[:n], nil)
		if n < len(x)-4 && !isFormatError(err, ErrCorrupt) {
			t.Fatalf(".uexp cut at %d: err = %v, want a FormatError matching ErrCorrupt", n, err)
		}
	}
}

func isFormatError(err error, kind error) bool {
	var fe *ue.FormatError
	return errors.As(err, &fe) && errors.Is(err, kind) && fe.File == "Small.uasset"
}

// TestMalformed changes one field of the small asset at a time and checks
// the error: its kind, and that the message names the structure.
func TestMalformed(t *testing.T) {
	h, x := buildSmall(t)
	p, err := Decode("Small.uasset", h, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Summary
	sumEnd := int(s.NameOffset)
	// fieldAt finds a summary field of the small asset by its value (the
	// first position after the versions holding it).
	fieldAt := func(v int32) int {
		for i := 0x20; i+4 <= sumEnd; i++ {
			if int32(binary.LittleEndian.Uint32(h[i:])) == v {
				return i
			}
		}
		t.Fatalf("value %d not in the summary", v)
		return 0
	}
	put := func(b []byte, at int, v uint32) []byte {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint32(c[at:], v)
		return c
	}
	exportAt := int(s.ExportOffset)
	tests := []struct {
		name       string
		h, x       []byte
		kind       error
		wantInText string
	}{
		{"bad tag", put(h, 0, 0x12345678), x, ErrCorrupt, "not the package file tag"},
		{"UE3 file", put(h, 4, uint32(0xFFFFFFFA)), x, ErrUnsupportedVersion, "LegacyFileVersion"},
		{"UE4 version too old", put(h, 12, 400), x, ErrUnsupportedVersion, "object versions"},
		{"name count beyond the header", put(h, fieldAt(int32(len(p.Names))), 1<<30), x, ErrCorrupt, "name map"},
		{"import offset inside the summary", put(h, fieldAt(s.ImportOffset), 8), x, ErrCorrupt, "import map offset"},
		{"negative export count", put(h, fieldAt(s.ExportOffset)-4, 0xFFFFFFFF), x, ErrCorrupt, "export map at 0x183: negative count -1"},
		{"TotalHeaderSize beyond the file", put(h, 24, uint32(len(h)+1)), x, ErrCorrupt, "TotalHeaderSize"},
		{"export data beyond the .uexp", put(h, exportAt+4*4+8+4+8, uint32(len(h)+len(x))), x, ErrCorrupt, `export 0 "Small"`},
		{"export size beyond the .uexp", put(h, exportAt+4*4+8+4, 1<<20), x, ErrCorrupt, "outside the .uexp"},
		{"bool that is 2", put(h, exportAt+4*4+8+4+16, 2), x, ErrCorrupt, "bForcedExport"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode("Small.uasset", tt.h, tt.x, nil)
			if !isFormatError(err, tt.kind) {
				t.Fatalf("err = %v, want a FormatError matching %v", err, tt.kind)
			}
			if !strings.Contains(err.Error(), tt.wantInText) {
				t.Errorf("err = %v, want it to mention %q", err, tt.wantInText)
			}
		})
	}
}

// TestOverlappingExports refuses two exports whose data overlap: their
// bytes cannot be kept apart.
func TestOverlappingExports(t *testing.T) {
	h, x := buildSmall(t)
	p, err := Decode("Small.uasset", h, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := p.Exports[0]
	e.ObjectName = NameRef{Index: 5}
	p.Exports = append(p.Exports, e)
	p.DependsMap = append(p.DependsMap, nil)
	h2, x2, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	q, err := Decode("Small.uasset", h2, x2, nil)
	if err != nil || len(q.Exports) != 2 || q.Exports[1].SerialOffset != q.Exports[0].SerialOffset+12 {
		t.Fatalf("two exports: %v", err)
	}
	// Point the second export's data at the first's.
	at := int(q.Summary.ExportOffset) + exportSize(&q.layout) + 4*4 + 8 + 4 + 8
	bad := bytes.Clone(h2)
	binary.LittleEndian.PutUint64(bad[at:], uint64(q.Exports[0].SerialOffset+4))
	if _, err := Decode("Small.uasset", bad, x2, nil); !isFormatError(err, ErrCorrupt) || !strings.Contains(err.Error(), "overlaps") {
		t.Fatalf("err = %v, want an overlap error", err)
	}
}

// TestNotEncodable: a model the encoder cannot lay out is refused.
func TestNotEncodable(t *testing.T) {
	h, x := buildSmall(t)
	p, err := Decode("Small.uasset", h, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Exports = append(p.Exports, Export{ObjectName: NameRef{Index: 4}})
	if _, _, err := p.Encode(); !errors.Is(err, ErrNotEncodable) || !strings.Contains(err.Error(), "depends map") {
		t.Errorf("export without a depends list: err = %v", err)
	}
	if _, _, err := new(Package).Encode(); !errors.Is(err, ErrNotEncodable) {
		t.Errorf("zero Package: err = %v", err)
	}
}

// TestUnversionedHint: an unversioned cook decodes with a release hint,
// and a wrong hint is refused clearly.
func TestUnversionedHint(t *testing.T) {
	h, x := buildSmall(t)
	h = bytes.Clone(h)
	binary.LittleEndian.PutUint32(h[12:], 0) // FileVersionUE4 = 0: unversioned
	p, err := Decode("Small.uasset", h, x, &Options{Release: Release{4, 25}})
	if err != nil || p.Release != (Release{4, 25}) || p.ReleaseDetected {
		t.Fatalf("with hint 4.25: release %v detected %v err %v", p.Release, p.ReleaseDetected, err)
	}
	p, err = Decode("Small.uasset", h, x, nil)
	if err != nil || !p.ReleaseDetected || p.Fitting[0] != (Release{4, 16}) || p.Release != (Release{4, 27}) {
		t.Fatalf("detected: %+v %v", p, err)
	}
	if _, err := Decode("Small.uasset", h, x, &Options{Release: Release{5, 4}}); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("hint 5.4 for a UE4 file: err = %v", err)
	}
	if _, err := ParseRelease("4.13"); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("ParseRelease(4.13): %v", err)
	}
	if r, err := ParseRelease("UE5.4"); err != nil || r != (Release{5, 4}) {
		t.Errorf("ParseRelease(UE5.4) = %v, %v", r, err)
	}
}
