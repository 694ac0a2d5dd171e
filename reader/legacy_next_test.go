package reader_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/writer"
)

// OpenDX.u (Deus Ex, 68/32) stores 37 names as a length-4 string of two
// characters, a zero and the terminating zero. The reader makes of them what
// the engine does (the two characters), Verify accepts them, Warnings lists
// them, and the file encodes back byte for byte.
func TestDeusExNames(t *testing.T) {
	path := corpus.Path(t, "legacy-next/deusex/OpenDX.u")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := reader.Read(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if probs := p.Verify(); len(probs) > 0 {
		t.Fatalf("%d problems, first %v", len(probs), probs[0])
	}
	var stored int
	for i := range p.Names {
		n := &p.Names[i]
		if strings.ContainsRune(n.Name, 0) {
			t.Errorf("name %d %q holds a zero", i, n.Name)
		}
		if k := n.StoredAfter(); k > 0 {
			stored++
			if raw := n.Raw(); k != 1 || len(n.Name) != 2 || !bytes.Equal(raw[:5], append([]byte{4}, n.Name[0], n.Name[1], 0, 0)) {
				t.Errorf("name %d %q stores %d more, entry % x", i, n.Name, k, raw)
			}
		}
	}
	if w := p.Warnings(); stored != 37 || len(w) != 37 || p.Names[453].Name != "\x11\x14" {
		t.Errorf("%d names store characters after a zero, %d warnings, name 453 %q", stored, len(w), p.Names[453].Name)
	}
	out, _, err := writer.Encode(p, writer.Options{})
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("preserve encode differs (%v)", err)
	}
}

// The UE2 layouts unrmod decodes, on real UT2004-engine files: each export
// is decoded to its exact end, with its lazy arrays. Read as a version whose
// layout unrmod does not know, the same exports fall back to the heuristic
// scan, which finds every real SeekPos but also values that only look like
// offsets (lookalikes): those stopped the compact layout before.
func TestUE2NativeLayouts(t *testing.T) {
	cases := []struct {
		file, export string
		kind         reader.NativeKind
		counts       []int // element counts of the lazy arrays
		suspects     int   // what the heuristic scan reports
		lookalikes   int   // suspects that are no SeekPos
	}{
		{"legacy-next/ue2/KF-Menu.ut2", "KF-Menu.Model1", reader.NativeModel, []int{262144, 65536, 262144, 65536}, 6, 2},
		{"legacy-next/ue2/KF-Menu.ut2", "KF-Menu.Model21", reader.NativeModel, nil, 0, 0},
		{"legacy-next/ue2/KF-Menu.ut2", "KF-Menu.Polys54", reader.NativePolys, nil, 0, 0},
		{"legacy-next/ue2/KF-Menu.ut2", "KF-Menu.Polys13", reader.NativePolys, nil, 0, 0},
		{"legacy-next/ue2/KF-Menu.ut2", "KF-Menu.StaticMeshInstance21", reader.NativeStaticMeshInstance, nil, 0, 0},
		{"legacy-next/ue2/ConstDefaultMeshes.usx", "ConstDefaultMeshes.Generic.Stair", reader.NativeStaticMesh, []int{68}, 1, 0},
		{"legacy-next/ue2/ConstDefaultMeshes.usx", "ConstDefaultMeshes.Generic.Floor", reader.NativeStaticMesh, []int{12}, 2, 1},
	}
	for _, c := range cases {
		t.Run(c.export, func(t *testing.T) {
			p, err := reader.ReadFile(corpus.Path(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			i := exportIndex(t, p, c.export)
			nl, err := p.Native(i)
			if err != nil {
				t.Fatal(err)
			}
			e := &p.Exports[i]
			if nl.Kind != c.kind || nl.End != len(e.Data) || len(nl.Suspects) != 0 || len(nl.Lazy) != len(c.counts) {
				t.Fatalf("kind %s, end %d of %d, %d suspects, %d lazy arrays", nl.Kind, nl.End, len(e.Data), len(nl.Suspects), len(nl.Lazy))
			}
			seek := map[int]bool{}
			for k, la := range nl.Lazy {
				seek[la.SeekPosAt] = true
				if la.Count != c.counts[k] || la.SeekPos != e.SerialOffset+int32(la.End) {
					t.Errorf("%s: %d elements, SeekPos 0x%X, ends at 0x%X", la.Field, la.Count, la.SeekPos, e.SerialOffset+int32(la.End))
				}
			}
			// The same bytes, as a UE2 version whose layout unrmod does not know.
			p.Header.Version.Licensee = 0
			if reader.KnownUE2Layout(p.Header.Version) || p.NativeKind(i) != reader.NativeUnknown {
				t.Fatalf("%s is decoded as %s", p.Header.Version, p.NativeKind(i))
			}
			h, err := p.Native(i)
			if err != nil {
				t.Fatal(err)
			}
			lookalikes := 0
			for _, at := range h.Suspects {
				if !seek[at] {
					lookalikes++
				}
			}
			if len(h.Suspects) != c.suspects || lookalikes != c.lookalikes || len(h.Suspects)-lookalikes != len(nl.Lazy) {
				t.Errorf("heuristic: %d suspects (%v), %d of them no SeekPos; want %d and %d", len(h.Suspects), h.Suspects, lookalikes, c.suspects, c.lookalikes)
			}
		})
	}
}

// exportIndex returns the index of the export with this full path.
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

// Broken UE2 native data gets an error naming the field, never a panic,
// and data that decodes short of its end is a Verify problem.
func TestUE2NativeMalformed(t *testing.T) {
	put := func(d []byte, at int, v uint32) []byte { binary.LittleEndian.PutUint32(d[at:], v); return d }
	cases := []struct {
		file, export string
		// edit changes a copy of the export data; nl is its layout as read.
		edit func(d []byte, nl *reader.NativeLayout) []byte
		want string // in the Native error, or in the Verify problem when Native succeeds
	}{
		{"legacy-next/ue2/KF-Menu.ut2", "KF-Menu.Model1", func(d []byte, _ *reader.NativeLayout) []byte {
			if binary.LittleEndian.Uint32(d[1540:]) != 2 {
				t.Fatal("test setup: NumZones is not at data offset 1540")
			}
			return put(d, 1540, 65)
		}, "NumZones"},
		{"legacy-next/ue2/KF-Menu.ut2", "KF-Menu.Model1", func(d []byte, _ *reader.NativeLayout) []byte { return d[:len(d)-1] },
			"lightmap texture size and revision"},
		{"legacy-next/ue2/KF-Menu.ut2", "KF-Menu.Model1", func(d []byte, nl *reader.NativeLayout) []byte {
			return put(d, nl.Lazy[1].SeekPosAt, uint32(nl.Lazy[1].SeekPos+1))
		}, "Data[1] at 0x"},
		{"legacy-next/ue2/KF-Menu.ut2", "KF-Menu.Polys54", func(d []byte, _ *reader.NativeLayout) []byte { return put(d, 1, 1<<30) },
			"polygon count"},
		{"legacy-next/ue2/KF-Menu.ut2", "KF-Menu.StaticMeshInstance16", func(d []byte, _ *reader.NativeLayout) []byte {
			return append(d[:22:22], 0x7F, 0x7F) // 8191 lights in two bytes
		}, "Lights count"},
		{"legacy-next/ue2/ConstDefaultMeshes.usx", "ConstDefaultMeshes.Generic.Floor", func(d []byte, nl *reader.NativeLayout) []byte {
			return put(d, nl.Lazy[0].Start+36, 9)
		}, "triangle UV count"},
		{"legacy-next/ue2/ConstDefaultMeshes.usx", "ConstDefaultMeshes.Generic.Floor", func(d []byte, _ *reader.NativeLayout) []byte {
			return append(d, 0)
		}, "static mesh data ends after 2629 bytes but the serial size is 2630"},
	}
	for _, c := range cases {
		t.Run(c.export+"/"+c.want, func(t *testing.T) {
			p, err := reader.ReadFile(corpus.Path(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			i := exportIndex(t, p, c.export)
			nl, err := p.Native(i)
			if err != nil {
				t.Fatal(err)
			}
			e := &p.Exports[i]
			e.Data = c.edit(append([]byte(nil), e.Data...), nl)
			e.SerialSize = int32(len(e.Data))
			_, err = p.Native(i)
			var msg string
			if err != nil {
				var fe *reader.FormatError
				if !errors.As(err, &fe) || !strings.Contains(fe.Struct, c.export[strings.LastIndex(c.export, ".")+1:]) {
					t.Fatalf("error %T does not name the export: %v", err, err)
				}
				msg = err.Error()
			} else {
				for _, q := range p.Verify() {
					msg += q.String() + "\n"
				}
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("got %q, want it to say %q", msg, c.want)
			}
		})
	}
}
