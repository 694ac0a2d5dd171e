package convert

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/ue"
)

// String returns the hash as the engine writes it (FSHAHash::ToString):
// 40 upper-case hex digits.
func (h ShaderHash) String() string { return strings.ToUpper(hex.EncodeToString(h[:])) }

// ParseShaderHash reads a shader map or shader hash written as 40 hex
// digits, either case.
func ParseShaderHash(s string) (ShaderHash, error) {
	var h ShaderHash
	if len(s) != 2*len(h) {
		if len(s) == 16 {
			return h, fmt.Errorf("%q has 16 hex digits: a UE 5.8 shader hash (XXH3-64), which unrmod does not convert; it reads the 40-digit SHA-1 of UE 5.0–5.7", s)
		}
		return h, fmt.Errorf("%q is not a shader hash: %d characters, not 40 hex digits", s, len(s))
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("%q is not a shader hash: %v", s, err)
	}
	return h, nil
}

// ShaderMapAssets is one entry of a shader asset info: a shader map and
// the packages that use it.
type ShaderMapAssets struct {
	ShaderMap ShaderHash
	Assets    []string // package names, as the file lists them
}

// ShaderAssetInfo is a shader library's asset info
// (ShaderAssetInfo-<Library>-<Format>.assetinfo.json, written by the
// cooker beside the library): which packages use which shader maps. The
// packer reads it to fill the ShaderMapHashes of the packages' store
// entries.
type ShaderAssetInfo struct {
	// ShaderMaps are the file's entries in file order.
	ShaderMaps []ShaderMapAssets
	byPackage  map[string]*packageShaderMaps // by folded package name
}

type packageShaderMaps struct {
	name string // as first spelled
	maps []ShaderHash
}

// foldName folds ASCII letters, as FName comparison ignores their case.
func foldName(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// assetInfoJSON is the file's layout. AssetInfoVersion (2) is not read:
// the packer does not read it either.
type assetInfoJSON struct {
	ShaderCodeToAssets *[]*struct {
		ShaderMapHash *string
		Assets        *[]string
	}
}

// ReadShaderAssetInfo reads the shader asset info named file (used in
// errors) from r: {"ShaderCodeToAssets": [{"ShaderMapHash": "<40 hex
// digits>", "Assets": ["/Game/Path/Package", …]}, …]}. Keys match
// without case, as the engine's JSON objects do; a UTF-8 byte order mark
// is skipped. Refused, with ue.ErrCorrupt: JSON that does not parse or has
// another layout, anything after the object, an entry without a hash or
// assets, a hash that is not 40 hex digits (UE 5.8's 16-digit hashes
// included), an empty package name, and a shader map listed twice (UE 5.4's
// packer keeps the last entry, 5.8's merges them: the cooker never writes
// one twice). A package listed twice for one shader map counts once.
func ReadShaderAssetInfo(file string, r io.Reader) (*ShaderAssetInfo, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, ue.Errorf(file, "shader asset info", -1, ue.ErrCorrupt, "reading it: %v", err)
	}
	skip := 0
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		skip = 3
	}
	bad := func(off int64, format string, args ...any) error {
		return ue.Errorf(file, "shader asset info", off, ue.ErrCorrupt, format, args...)
	}
	dec := json.NewDecoder(bytes.NewReader(data[skip:]))
	var doc assetInfoJSON
	if err := dec.Decode(&doc); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, bad(int64(skip)+se.Offset, "not JSON: %v", se)
		case errors.As(err, &te):
			return nil, bad(int64(skip)+te.Offset, "%s is a JSON %s, not the asset info's layout", strings.TrimPrefix(te.Field, "."), te.Value)
		}
		return nil, bad(-1, "not JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad(int64(skip)+dec.InputOffset(), "data follows the JSON object")
	}
	if doc.ShaderCodeToAssets == nil {
		return nil, bad(-1, "no ShaderCodeToAssets array (the packer refuses such a file)")
	}
	info := &ShaderAssetInfo{ShaderMaps: make([]ShaderMapAssets, 0, len(*doc.ShaderCodeToAssets)), byPackage: map[string]*packageShaderMaps{}}
	seen := make(map[ShaderHash]int, len(*doc.ShaderCodeToAssets))
	for i, e := range *doc.ShaderCodeToAssets {
		where := fmt.Sprintf("shader asset info entry %d", i)
		if e == nil || e.ShaderMapHash == nil || e.Assets == nil {
			return nil, ue.Errorf(file, where, -1, ue.ErrCorrupt, "not an object with a ShaderMapHash and an Assets array")
		}
		h, err := ParseShaderHash(*e.ShaderMapHash)
		if err != nil {
			return nil, ue.Errorf(file, where, -1, ue.ErrCorrupt, "ShaderMapHash %v", err)
		}
		if k, dup := seen[h]; dup {
			return nil, ue.Errorf(file, where, -1, ue.ErrCorrupt, "shader map %s is listed again (first in entry %d); engine releases read a repeated shader map differently", h, k)
		}
		seen[h] = i
		assets := slices.Clone(*e.Assets)
		for k, a := range assets {
			if a == "" {
				return nil, ue.Errorf(file, where, -1, ue.ErrCorrupt, "asset %d of shader map %s is empty", k, h)
			}
			key := foldName(a)
			p := info.byPackage[key]
			if p == nil {
				p = &packageShaderMaps{name: a}
				info.byPackage[key] = p
			}
			if n := len(p.maps); n == 0 || p.maps[n-1] != h {
				p.maps = append(p.maps, h)
			}
		}
		info.ShaderMaps = append(info.ShaderMaps, ShaderMapAssets{ShaderMap: h, Assets: assets})
	}
	for _, p := range info.byPackage {
		slices.SortFunc(p.maps, compareShaderHash)
		p.maps = slices.Compact(p.maps)
	}
	return info, nil
}

func compareShaderHash(a, b ShaderHash) int { return bytes.Compare(a[:], b[:]) }

// Packages returns the names of the packages the asset info lists, each
// as first spelled, sorted.
func (i *ShaderAssetInfo) Packages() []string {
	names := make([]string, 0, len(i.byPackage))
	for _, p := range i.byPackage {
		names = append(names, p.name)
	}
	slices.Sort(names)
	return names
}

// ShaderMapsOf returns the shader maps package pkg uses, sorted bytewise
// without duplicates (a copy), or nil. Package names compare as FNames
// do: ASCII letters without case.
func (i *ShaderAssetInfo) ShaderMapsOf(pkg string) []ShaderHash {
	if p := i.byPackage[foldName(pkg)]; p != nil {
		return slices.Clone(p.maps)
	}
	return nil
}

// StoreEntryShaderMaps returns the ShaderMapHashes of package pkg's store
// entry as the UE 5.0–5.7 packer makes them (ProcessShaderLibraries in
// IoStoreUtilities.cpp): the shader maps the asset infos of all the
// libraries packed together give the package (names compared as FNames),
// without duplicates, keeping only those held says a packed library holds
// (the packer drops the others with a warning: "referencing missing
// shader map"), sorted bytewise (Algo::Sort on FSHAHash, a memcmp).
// held nil keeps all.
func StoreEntryShaderMaps(pkg string, held func(ShaderHash) bool, infos ...*ShaderAssetInfo) []ShaderHash {
	var out []ShaderHash
	key := foldName(pkg)
	for _, info := range infos {
		if p := info.byPackage[key]; p != nil {
			for _, h := range p.maps {
				if held == nil || held(h) {
					out = append(out, h)
				}
			}
		}
	}
	slices.SortFunc(out, compareShaderHash)
	return slices.Compact(out)
}
