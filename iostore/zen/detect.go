package zen

import (
	"encoding/binary"
	"errors"

	"github.com/unrmod/unrmod/cityhash"
)

// errNotPackage is what DetectLayout says of data that is no zen package.
var errNotPackage = errors.New("not a zen package: neither the UE 4.26/4.27 summary (name map at offset 64 with its hashes after it) nor a UE5 one (a versioning flag of 0 or 1, a header size and region offsets in order) fits the data")

// DetectLayout tells a zen package's layout from its bytes alone: the
// 4.26/4.27 summary by its name map right after the 64-byte summary with
// the hashes after it; a UE5 summary by its versioning flag, header size
// and region offsets, and then the release by where the name map starts
// (after a 44- or 52-byte summary, the versioning info, the 5.6+ cell
// offsets) and how the bulk-data map is laid out before the imported public
// export hashes. Versioning info, where present, decides. It reads only the
// header and never fails on a chunk that DecodePackage decodes.
func DetectLayout(b []byte) (Layout, error) {
	if isLayoutUE4(b) {
		return LayoutUE4, nil
	}
	if l := detectUE5(b); l != LayoutUnknown {
		return l, nil
	}
	return LayoutUnknown, errNotPackage
}

func i32at(b []byte, off int) int64 { return int64(int32(binary.LittleEndian.Uint32(b[off:]))) }

// isLayoutUE4 checks the 4.26/4.27 FPackageSummary: the name map right
// after the 64-byte summary, its hashes 8-aligned after it and starting with
// the name-hash algorithm id, then the import, export, bundle and graph
// regions in order inside the data.
func isLayoutUE4(b []byte) bool {
	const summary = 64
	if len(b) < summary {
		return false
	}
	namesOff, namesSize := i32at(b, 24), i32at(b, 28)
	hashesOff, hashesSize := i32at(b, 32), i32at(b, 36)
	imports, exports, bundles := i32at(b, 40), i32at(b, 44), i32at(b, 48)
	graph, graphSize := i32at(b, 52), i32at(b, 56)
	n := int64(len(b))
	switch {
	case namesOff != summary || namesSize < 0 || namesSize > n:
		return false
	case hashesOff != (summary+namesSize+7)&^7 || hashesSize < 8 || hashesSize%8 != 0 || hashesOff+hashesSize > n:
		return false
	case binary.LittleEndian.Uint64(b[hashesOff:]) != cityhash.NameHashAlgorithmID:
		return false
	}
	return imports == hashesOff+hashesSize && imports <= exports && exports <= bundles &&
		bundles <= graph && graphSize >= 0 && graph+graphSize <= n
}

// detectUE5 returns the UE5 layout of b, or LayoutUnknown.
func detectUE5(b []byte) Layout {
	const minSummary = 44
	if len(b) < minSummary {
		return LayoutUnknown
	}
	le := binary.LittleEndian
	versioned := le.Uint32(b)
	headerSize := int64(le.Uint32(b[4:]))
	hashes, imports, exports, entries := i32at(b, 24), i32at(b, 28), i32at(b, 32), i32at(b, 36)
	if versioned > 1 || headerSize < minSummary || headerSize > int64(len(b)) ||
		hashes < minSummary || hashes > imports || imports > exports || exports > entries || entries > headerSize {
		return LayoutUnknown
	}
	// The 5.3+ summary has three more offsets, in order after the entries.
	deps := len(b) >= 52 && entries <= i32at(b, 40) && i32at(b, 40) <= i32at(b, 44) &&
		i32at(b, 44) <= i32at(b, 48) && i32at(b, 48) <= headerSize
	if versioned == 1 {
		return detectVersioned(b, deps, hashes)
	}
	// Unversioned: the name batch follows the summary (and the 5.6+ cell
	// offsets).
	for _, c := range []struct {
		at     int
		layout Layout
	}{{44, LayoutUE50}, {52, LayoutUE53}, {60, LayoutUE56}} {
		if c.layout.hasDependencies() && !deps {
			continue
		}
		end, ok := nameBatchEnd(b, c.at)
		if !ok || end > hashes {
			continue
		}
		return withBulkData(b, c.layout, end, hashes)
	}
	return LayoutUnknown
}

// detectVersioned reads the versioning info after the 52-byte (5.3+) or
// 44-byte summary, whichever holds plausible versions, and takes the layout
// from the UE5 file version, checking that the name batch is where that
// layout puts it.
func detectVersioned(b []byte, deps bool, hashes int64) Layout {
	le := binary.LittleEndian
	for _, at := range []int{52, 44} {
		if at == 52 && !deps || at+20 > len(b) {
			continue
		}
		zen, ue4, ue5 := le.Uint32(b[at:]), i32at(b, at+4), i32at(b, at+8)
		custom := i32at(b, at+16)
		if zen > 3 || ue4 < 500 || ue4 > 1000 || ue5 != 0 && (ue5 < 1000 || ue5 > 1100) || custom < 0 || custom > int64(len(b)) {
			continue
		}
		// EZenPackageVersion ImportedPackageNames (2) came with the 52-byte
		// summary; the versions below with the 44-byte one.
		if (zen >= 2) != (at == 52) {
			continue
		}
		names := int64(at) + 20 + 20*custom
		var l Layout
		switch {
		case at == 44 && ue5 < 1009:
			l = LayoutUE50
		case at == 44:
			l = LayoutUE52
		case ue5 >= 1015:
			l, names = LayoutUE56, names+8
		case ue5 >= 1012:
			l = LayoutUE54
		default:
			l = LayoutUE53
		}
		if names > int64(len(b)) {
			continue
		}
		if end, ok := nameBatchEnd(b, int(names)); ok && end <= hashes {
			return l
		}
	}
	return LayoutUnknown
}

// nameBatchEnd returns where the separated name batch at b[at:] ends, if a
// non-empty batch with the hash algorithm id starts there.
func nameBatchEnd(b []byte, at int) (int64, bool) {
	le := binary.LittleEndian
	if at+16 > len(b) {
		return 0, false
	}
	n, strBytes := int64(le.Uint32(b[at:])), int64(le.Uint32(b[at+4:]))
	if n == 0 || le.Uint64(b[at+8:]) != cityhash.NameHashAlgorithmID {
		return 0, false
	}
	end := int64(at) + 16 + 10*n + strBytes
	return end, end <= int64(len(b))
}

// withBulkData refines an unversioned layout by what lies between the name
// map's end and the imported public export hashes: nothing (5.0–5.1), a
// bulk-data map (5.2, 5.3) or a padded one (5.4+).
func withBulkData(b []byte, l Layout, end, hashes int64) Layout {
	le := binary.LittleEndian
	mapFits := func(at int64) bool {
		if at < 0 || at+8 > int64(len(b)) {
			return false
		}
		size := int64(le.Uint64(b[at:]))
		return size >= 0 && size%bulkDataEntrySize == 0 && at+8+size == hashes
	}
	switch l {
	case LayoutUE50:
		if end != hashes && mapFits(end) {
			return LayoutUE52
		}
	case LayoutUE53:
		if end+8 <= int64(len(b)) {
			if pad := le.Uint64(b[end:]); pad < 8 && (end+8+int64(pad))%8 == 0 && mapFits(end+8+int64(pad)) {
				return LayoutUE54
			}
		}
	}
	return l
}
