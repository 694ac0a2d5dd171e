package report_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/internal/shaderbuild"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/ue"
)

// TestShaderLibraryFiles reads the corpus's UE 5.4 shader library in both
// forms and libraries made from it: the IoStore header's counts are the
// engine's (988 shader maps, 29,285 shaders, 2,423 groups, all stored
// compressed) and it verifies; the cooker's file, whose code the corpus
// cut off, is one problem saying so; the same header with code of its own
// verifies, and counts the shaders stored compressed and the groups the
// packer would make; a shader stored longer than uncompressed, and a
// version unrmod does not read, are refused.
func TestShaderLibraryFiles(t *testing.T) {
	dir := corpus.Path(t, "other/ue5_shader_libraries")
	name := "ShaderArchive-NuclearNightmare-PCD3D_SM6-PCD3D_SM6"
	zenFile, cookedFile := dir+"/"+name+".uzenshaderbytecode", dir+"/"+name+".ushaderbytecode"
	zen, err := os.ReadFile(zenFile)
	if err != nil {
		t.Fatal(err)
	}
	cut, err := os.ReadFile(cookedFile)
	if err != nil {
		t.Fatal(err)
	}
	a, err := convert.DecodeShaderArchive(cookedFile, cut)
	if err != nil {
		t.Fatal(err)
	}
	runs := func(src []byte) ([]byte, error) { // a stand-in compressor: shorter when mostly zeros
		if bytes.Count(src, []byte{0}) > len(src)/2 {
			return src[:len(src)/3], nil
		}
		return append(bytes.Clone(src), 0), nil
	}
	if _, err := shaderbuild.WithCode(a, runs); err != nil {
		t.Fatal(err)
	}
	whole := a.Encode()
	stretched := *a
	stretched.Shaders = append([]convert.ShaderCodeEntry(nil), a.Shaders...)
	stretched.Shaders[3].UncompressedSize = stretched.Shaders[3].Size - 1
	v3 := bytes.Clone(zen)
	binary.LittleEndian.PutUint32(v3, 3)
	for _, tc := range []struct {
		name, file string
		data       []byte
		form       string
		want       string // the one problem; "" when it verifies
	}{
		{"iostore", zenFile, zen, "iostore", ""},
		{"cooked, cut", cookedFile, cut, "cooked", "the file was cut short"},
		{"cooked", cookedFile, whole, "cooked", ""},
		{"stretched", cookedFile, stretched.Encode(), "cooked", "shader 3: "},
		{"version 3", zenFile, v3, "", "version 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := report.NewShaderLibraryInfo(tc.file, bytes.NewReader(tc.data), int64(len(tc.data)))
			if tc.form == "" {
				if !errors.Is(err, ue.ErrUnsupportedVersion) {
					t.Errorf("info: %v, want an unsupported version", err)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if d.Form != tc.form || d.ShaderMaps != 988 || d.Shaders != 29285 || d.Library != "NuclearNightmare-PCD3D_SM6" || d.Format != "PCD3D_SM6" || d.ChunkID != "0x8cc6d6821873a8b500000008" {
				t.Errorf("info %+v", d)
			} else if tc.form == "iostore" && (d.Groups != 2423 || d.CompressedGroups != 2423) {
				t.Errorf("iostore header: %d groups, %d compressed; the engine's 2423 and 2423", d.Groups, d.CompressedGroups)
			} else if tc.name == "cooked" && (d.Groups == 0 || d.CompressedShaders == 0 || d.CompressedShaders == d.Shaders || d.CodeBytes != int64(len(a.Code))) {
				t.Errorf("cooked library: %d groups, %d of %d shaders compressed, %d bytes of code (%d)", d.Groups, d.CompressedShaders, d.Shaders, d.CodeBytes, len(a.Code))
			}
			v := report.VerifyShaderLibrary(tc.file, bytes.NewReader(tc.data), int64(len(tc.data)))
			if tc.want == "" {
				if !v.OK || v.ShaderLibrary == nil {
					t.Errorf("verify: %v", v.Problems)
				}
				return
			}
			if v.OK || len(v.Problems) != 1 || !strings.Contains(v.Problems[0].Text, tc.want) {
				t.Errorf("verify: %v, want one problem saying %q", v.Problems, tc.want)
			}
		})
	}
}
