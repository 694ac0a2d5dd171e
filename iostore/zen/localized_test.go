package zen_test

import (
	"strings"
	"testing"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore/zen"
)

// TestLocalizedSource checks the engine's rule for the source of a
// localized package name.
func TestLocalizedSource(t *testing.T) {
	for _, tc := range []struct {
		name, source, culture string
		ok                    bool
	}{
		{"/Game/L10N/fr/UI/Title", "/Game/UI/Title", "fr", true},
		{"/Game/L10N/en-US/Maps/Intro", "/Game/Maps/Intro", "en-us", true},
		{"/Game/l10n/FR/Title", "/Game/Title", "fr", true},
		{"/MyPlugin/L10N/de/Sounds/Hello", "/MyPlugin/Sounds/Hello", "de", true},
		{"/Game/L10N/x/Title", "/Game/L10N/x/Title", "", false}, // a culture of one character
		{"/Game/L10N/fr", "/Game/L10N/fr", "", false},           // no package under the culture
		{"/Game/UI/L10NTitle", "/Game/UI/L10NTitle", "", false}, // not a folder
		{"/Game/UI/Title", "/Game/UI/Title", "", false},
	} {
		source, culture, ok := zen.LocalizedSource(tc.name)
		if source != tc.source || culture != tc.culture || ok != tc.ok {
			t.Errorf("LocalizedSource(%q) = %q, %q, %v; want %q, %q, %v", tc.name, source, culture, ok, tc.source, tc.culture, ok)
		}
	}
}

// tcLocalized builds a UE 4.27 package as the engine's packer writes a
// localized (or redirected) one: SourceName is the source package's name,
// and the public exports in hashed carry the GlobalImportIndex of their
// path under the source name. The model is set by hand, not by the
// builder's default, so that it shows what the engine writes.
func tcLocalized(t *testing.T, name, source string, hashed map[string]bool) *zen.Package {
	t.Helper()
	p, err := zenbuild.Build(zenbuild.Spec{Name: name, Layout: zen.LayoutUE4, Imports: []string{"/Script/Engine.SoundWave", "/Script/Engine.Texture2D"},
		Exports: []zenbuild.Export{
			{Name: "Hello", Class: "/Script/Engine.SoundWave", Outer: -1, Flags: zen.FlagPublic, Data: []byte{0, 0, 0, 0}},
			{Name: "Subtitle", Class: "/Script/Engine.SoundWave", Outer: 0, Flags: zen.FlagPublic, Data: []byte{0, 0, 0, 0}},
			{Name: "OnlyHere", Class: "/Script/Engine.Texture2D", Outer: -1, Flags: zen.FlagPublic, Data: []byte{0, 0, 0, 0}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	k := -1
	for i, n := range p.Names {
		if n == source {
			k = i
		}
	}
	if k < 0 {
		k = len(p.Names)
		p.Names = append(p.Names, source)
	}
	p.SourceName = zen.MappedName{IndexAndType: uint32(k)}
	for i := range p.Exports {
		path := p.ExportPath(i)
		if hashed[p.ExportName(i)] {
			path = source + path[len(name):]
		}
		p.Exports[i].PublicExportHash = cityhash.PackageImportIndex(path)
	}
	data, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	q, err := zen.DecodePackage(name, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestVerifyLocalizedPackage checks that verify takes a 4.27 localized
// package as the engine writes it: the exports it shares with its source
// hashed under the source name, the others under its own; and a package a
// plugin redirects to /Game, every export hashed under /Game. A hash that
// is neither is still a problem.
func TestVerifyLocalizedPackage(t *testing.T) {
	for _, tc := range []struct {
		name, pkg, source string
		hashed            map[string]bool
		bad               bool
	}{
		{"localized", "/Game/L10N/fr/Sounds/Intro", "/Game/Sounds/Intro", map[string]bool{"Hello": true, "Subtitle": true}, false},
		{"localized, all shared", "/Game/L10N/de-DE/Sounds/Intro", "/Game/Sounds/Intro", map[string]bool{"Hello": true, "Subtitle": true, "OnlyHere": true}, false},
		{"redirected", "/MyDLC/Sounds/Intro", "/Game/Sounds/Intro", map[string]bool{"Hello": true, "Subtitle": true, "OnlyHere": true}, false},
		{"not localized", "/Game/Sounds/Intro", "/Game/Sounds/Intro", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tcLocalized(t, tc.pkg, tc.source, tc.hashed)
			if got := p.SourcePackageName(); got != tc.source {
				t.Errorf("SourcePackageName %q, want %q", got, tc.source)
			}
			if probs := p.Problems(&zen.VerifyOptions{ChunkPackageID: zen.PackageIDFromName(tc.pkg)}); len(probs) > 0 {
				t.Errorf("problems of an engine-written package: %v", probs)
			}
		})
	}
	// A hash of neither path.
	p := tcLocalized(t, "/Game/L10N/fr/Sounds/Intro", "/Game/Sounds/Intro", map[string]bool{"Hello": true})
	p.Exports[0].PublicExportHash = cityhash.PackageImportIndex("/Game/Elsewhere.Hello")
	probs := p.Problems(nil)
	if len(probs) != 1 || !strings.Contains(probs[0].Msg, "under the source package /Game/Sounds/Intro.Hello") {
		t.Errorf("problems %v, want one naming the source path", probs)
	}
}

// TestBuildLocalized checks that the builder gives a localized 4.27
// package what the engine's packer does when nothing else is said: the
// source name, and every public export hashed under it.
func TestBuildLocalized(t *testing.T) {
	const name, source = "/Game/L10N/fr/Sounds/Intro", "/Game/Sounds/Intro"
	want := tcLocalized(t, name, source, map[string]bool{"Hello": true, "Subtitle": true, "OnlyHere": true})
	data, err := zenbuild.Encode(zenbuild.Spec{Name: name, Layout: zen.LayoutUE4, Imports: []string{"/Script/Engine.SoundWave", "/Script/Engine.Texture2D"},
		Exports: []zenbuild.Export{
			{Name: "Hello", Class: "/Script/Engine.SoundWave", Outer: -1, Flags: zen.FlagPublic, Data: []byte{0, 0, 0, 0}},
			{Name: "Subtitle", Class: "/Script/Engine.SoundWave", Outer: 0, Flags: zen.FlagPublic, Data: []byte{0, 0, 0, 0}},
			{Name: "OnlyHere", Class: "/Script/Engine.Texture2D", Outer: -1, Flags: zen.FlagPublic, Data: []byte{0, 0, 0, 0}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := zen.DecodePackage(name, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.SourcePackageName() != source {
		t.Errorf("source name %q, want %q", p.SourcePackageName(), source)
	}
	for i := range p.Exports {
		if p.Exports[i].PublicExportHash != want.Exports[i].PublicExportHash {
			t.Errorf("export %d: GlobalImportIndex 0x%016x, the engine's 0x%016x", i, p.Exports[i].PublicExportHash, want.Exports[i].PublicExportHash)
		}
	}
	if probs := p.Problems(nil); len(probs) > 0 {
		t.Errorf("problems: %v", probs)
	}
}
