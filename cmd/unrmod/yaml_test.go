package main

import (
	"encoding/json"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/report"
)

// TestYAMLMatchesJSON checks that the --yaml document of props and dump
// --props is the --json one: the same keys, the same values, the same
// fields left out when empty.
func TestYAMLMatchesJSON(t *testing.T) {
	for _, c := range []struct {
		name string
		file string
		args []string
	}{
		{"legacy props", "legacy-next/ue2/SmileSkins.utx", []string{"props", "", "MAD", "Palette19"}},
		{"legacy class defaults", "legacy/ue2/TestUC2.u", []string{"props", "", "DefaultProperties"}},
		{"legacy dump props", "legacy/ut99_stock/BluffFX.utx", []string{"dump", "", "--props"}},
		{"zen props", spicyBP, []string{"props", ""}},
		{"zen dump props", spicyBP, []string{"dump", "", "--props"}},
		{"zen row", taggedUE5, []string{"props", "", "--package", "/Game/Fixtures/DataTables/DT_AllProperties", "--row", "alpha"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string(nil), c.args...)
			args[1] = corpus.Path(t, c.file)
			docs := map[string]any{}
			for _, format := range []string{"--json", "--yaml"} {
				stdout, stderr, code := runCLI(t, append(args, format)...)
				if code != 0 {
					t.Fatalf("%s: exit %d\n%s", format, code, stderr)
				}
				var doc any
				decode := json.Unmarshal
				if format == "--yaml" {
					decode = yaml.Unmarshal
				}
				if err := decode([]byte(stdout), &doc); err != nil {
					t.Fatalf("%s output does not parse: %v", format, err)
				}
				docs[format] = normalize(t, doc)
			}
			if !reflect.DeepEqual(docs["--json"], docs["--yaml"]) {
				t.Errorf("the YAML document differs from the JSON one:\njson: %.600v\nyaml: %.600v", docs["--json"], docs["--yaml"])
			}
			if n := countKeys(docs["--json"]); n < 10 {
				t.Errorf("the documents hold only %d keys", n)
			}
		})
	}
}

// normalize passes a decoded document through JSON, so numbers compare
// alike whichever decoder read them.
func normalize(t *testing.T, doc any) any {
	t.Helper()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func countKeys(doc any) int {
	switch v := doc.(type) {
	case map[string]any:
		n := len(v)
		for _, x := range v {
			n += countKeys(x)
		}
		return n
	case []any:
		n := 0
		for _, x := range v {
			n += countKeys(x)
		}
		return n
	}
	return 0
}

// TestYAMLTagsMatchJSON checks every document the commands print as YAML:
// each field the JSON form names carries the same yaml tag, so a field
// added later cannot print under its Go name.
func TestYAMLTagsMatchJSON(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(typ reflect.Type, path string) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			j, y := f.Tag.Get("json"), f.Tag.Get("yaml")
			if j != y {
				t.Errorf("%s.%s (%s): json tag %q, yaml tag %q", path, f.Name, typ, j, y)
			}
			walk(f.Type, path+"."+f.Name)
		}
	}
	for _, doc := range []any{propsDoc{}, dumpDoc{}, zenDumpDoc{}, headerDumpDoc{}, report.ContainerList{}, soundsDoc{}} {
		walk(reflect.TypeOf(doc), reflect.TypeOf(doc).Name())
	}
}
