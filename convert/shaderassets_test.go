package convert

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/ue"
)

// hashOf is a hash whose 20 bytes are b then zeros.
func hashOf(b ...byte) (h ShaderHash) {
	copy(h[:], b)
	return h
}

// assetInfoJSON lays out entries as the cooker writes them
// (FSerializedShaderArchive::SaveAssetInfo): hashes in upper-case hex.
func assetInfoText(entries ...ShaderMapAssets) string {
	var b strings.Builder
	b.WriteString("{\n\t\"AssetInfoVersion\": 2,\n\t\"ShaderCodeToAssets\": [")
	for i, e := range entries {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n\t\t{\n\t\t\t\"ShaderMapHash\": %q,\n\t\t\t\"Assets\": [", e.ShaderMap)
		for k, a := range e.Assets {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%q", a)
		}
		b.WriteString("]\n\t\t}")
	}
	b.WriteString("\n\t]\n}")
	return b.String()
}

// TestReadShaderAssetInfo reads asset infos as the cooker writes them and
// checks what a store entry gets: per package its shader maps sorted
// bytewise without duplicates, package names without ASCII case, the
// union over the libraries packed together, less the shader maps no
// library holds.
func TestReadShaderAssetInfo(t *testing.T) {
	h1, h2, h3, h4 := hashOf(0x10), hashOf(0xFF, 1), hashOf(0x00, 0xAB), hashOf(0x10, 0, 0, 1)
	text := assetInfoText(
		ShaderMapAssets{h1, []string{"/Game/Mats/M_Rock", "/Game/Mats/M_Sand"}},
		ShaderMapAssets{h2, []string{"/Game/Mats/m_rock", "/Game/Mats/M_Rock"}},
		ShaderMapAssets{h3, []string{"/Game/Mats/M_ROCK"}},
	)
	other := "\xEF\xBB\xBF" + strings.ToLower(assetInfoText(ShaderMapAssets{h4, []string{"/Game/Mats/M_Rock"}}, ShaderMapAssets{h1, []string{"/Game/Mats/M_Sand"}}))
	a, err := ReadShaderAssetInfo("a.assetinfo.json", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadShaderAssetInfo("b.assetinfo.json", strings.NewReader(other))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.ShaderMaps) != 3 || a.ShaderMaps[1].ShaderMap != h2 || !slices.Equal(a.ShaderMaps[1].Assets, []string{"/Game/Mats/m_rock", "/Game/Mats/M_Rock"}) {
		t.Errorf("entries: %+v", a.ShaderMaps)
	}
	if got := a.Packages(); !slices.Equal(got, []string{"/Game/Mats/M_Rock", "/Game/Mats/M_Sand"}) {
		t.Errorf("packages %q", got)
	}
	for _, tc := range []struct {
		name  string
		got   []ShaderHash
		wants []ShaderHash
	}{
		{"rock", a.ShaderMapsOf("/game/mats/m_rock"), []ShaderHash{h3, h1, h2}},
		{"sand", a.ShaderMapsOf("/Game/Mats/M_Sand"), []ShaderHash{h1}},
		{"absent", a.ShaderMapsOf("/Game/Mats/M_Wood"), nil},
		{"store entry, both libraries", StoreEntryShaderMaps("/Game/Mats/M_Rock", nil, a, b), []ShaderHash{h3, h1, h4, h2}},
		{"store entry, held only", StoreEntryShaderMaps("/Game/Mats/M_Rock", func(h ShaderHash) bool { return h != h2 }, a, b), []ShaderHash{h3, h1, h4}},
		{"store entry, one library", StoreEntryShaderMaps("/Game/Mats/M_Sand", nil, b, a), []ShaderHash{h1}},
		{"store entry, none", StoreEntryShaderMaps("/Game/Mats/M_Wood", nil, a, b), nil},
	} {
		if !slices.Equal(tc.got, tc.wants) {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.wants)
		}
	}
	if s := h2.String(); s != "FF01"+strings.Repeat("0", 36) {
		t.Errorf("String: %s", s)
	}
}

// TestReadShaderAssetInfoRefuses checks that damaged asset infos are
// refused with errors naming the file, the entry and the offset where
// JSON gives one.
func TestReadShaderAssetInfoRefuses(t *testing.T) {
	h := hashOf(1, 2, 3)
	good := assetInfoText(ShaderMapAssets{h, []string{"/Game/A"}})
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"not JSON", good[:40], []string{"not JSON"}},
		{"syntax", strings.Replace(good, "[", "[,", 1), []string{"at 0x", "not JSON"}},
		{"wrong type", `{"ShaderCodeToAssets": {"a": 1}}`, []string{"ShaderCodeToAssets is a JSON object", "at 0x"}},
		{"asset not a string", `{"ShaderCodeToAssets": [{"ShaderMapHash": "` + h.String() + `", "Assets": [7]}]}`, []string{"at 0x", "number"}},
		{"trailing data", good + "{}", []string{"data follows", "at 0x"}},
		{"no array", `{"AssetInfoVersion": 2}`, []string{"no ShaderCodeToAssets"}},
		{"null entry", `{"ShaderCodeToAssets": [null]}`, []string{"entry 0", "ShaderMapHash"}},
		{"no hash", `{"ShaderCodeToAssets": [{"Assets": []}]}`, []string{"entry 0", "ShaderMapHash"}},
		{"no assets", `{"ShaderCodeToAssets": [{"ShaderMapHash": "` + h.String() + `"}]}`, []string{"entry 0", "Assets"}},
		{"short hash", strings.Replace(good, h.String(), "0102", 1), []string{"entry 0", "4 characters"}},
		{"UE 5.8 hash", strings.Replace(good, h.String(), "0123456789abcdef", 1), []string{"entry 0", "UE 5.8", "XXH3"}},
		{"not hex", strings.Replace(good, h.String(), strings.Repeat("G", 40), 1), []string{"entry 0", "invalid byte"}},
		{"duplicate shader map", assetInfoText(ShaderMapAssets{h, []string{"/Game/A"}}, ShaderMapAssets{hashOf(9), nil}, ShaderMapAssets{h, []string{"/Game/B"}}),
			[]string{"entry 2", "listed again (first in entry 0)"}},
		{"empty asset", assetInfoText(ShaderMapAssets{h, []string{"/Game/A", ""}}), []string{"entry 0", "asset 1", "empty"}},
	} {
		_, err := ReadShaderAssetInfo("x.assetinfo.json", strings.NewReader(tc.text))
		var fe *ue.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ue.ErrCorrupt) || !strings.HasPrefix(err.Error(), "x.assetinfo.json: ") {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tc.name, err, w)
			}
		}
	}
}
