package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/internal/zenbuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/uasset"
)

// TestConvertStreamedCLI converts a generated package over the streaming
// threshold (convert.StreamThreshold) with the command, both ways and
// from a container: the cooked asset written from the zen file and from
// the container must be the one convert writes in memory, byte for byte,
// and converting it back must give the package's bytes.
func TestConvertStreamedCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("writes packages over the streaming threshold")
	}
	size := convert.StreamThreshold + 1<<20
	native := make([]byte, size)
	for i := range native {
		native[i] = byte('a' + i*7%26)
	}
	e := zen.Engine{Major: 5, Minor: 6}
	const name = "/Game/Huge/BigTable"
	data, err := zenbuild.Encode(zenbuild.Spec{Name: name, Layout: e.Layout(), Versioned: true,
		Flags:   zen.PackageFlags(uasset.PkgCooked),
		Imports: []string{"/Script/CoreUObject", "/Script/CoreUObject.Object"},
		Exports: []zenbuild.Export{
			{Name: "Settings", Class: "/Script/CoreUObject.Object", Outer: -1, Flags: zen.FlagPublic | 0x2,
				Props: []zenbuild.Prop{{Name: "Health", Type: "IntProperty", Value: int32(100)}}},
			{Name: "BigData", Class: "/Script/CoreUObject.Object", Outer: -1, Flags: zen.FlagPublic | 0x2,
				Props: []zenbuild.Prop{{Name: "Width", Type: "IntProperty", Value: int32(4096)}}, Native: native},
		}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	so := zenbuild.ScriptObjects("/Script/CoreUObject.Object")
	global := filepath.Join(dir, "ScriptObjects.bin")
	chunk, err := so.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	zfile := filepath.Join(dir, "in", "Game", "Content", "Huge", "BigTable.uasset")
	os.MkdirAll(filepath.Dir(zfile), 0o755)
	if err := os.WriteFile(global, chunk, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zfile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// What convert writes in memory.
	p, err := zen.DecodePackage(name, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := convert.ToLegacy(p, &convert.LegacyOptions{Engine: e, Imports: convert.NewContainerSource(so), FileName: "BigTable.uasset"})
	if err != nil {
		t.Fatal(err)
	}
	wantH, wantX, err := convert.EncodeLegacyChecked(a, p)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pack.Scan(filepath.Join(dir, "in"), pack.TocVersionFor(e))
	if err != nil {
		t.Fatal(err)
	}
	utoc := filepath.Join(dir, "Huge-Windows.utoc")
	if _, err := pack.Pack(plan, utoc, &pack.Options{Engine: e, NoPak: true, Writer: iostore.WriterOptions{Method: "Zlib"}}); err != nil {
		t.Fatal(err)
	}
	for _, src := range [][]string{{zfile}, {utoc, "--package", name}} {
		out := filepath.Join(t.TempDir(), "BigTable.uasset")
		args := append([]string{"convert"}, src...)
		args = append(args, "--to", "legacy", "--engine", "5.6", "--global", global, "-o", out)
		if _, stderr, code := runCLI(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", src, code, stderr)
		}
		gotH, _ := os.ReadFile(out)
		gotX, _ := os.ReadFile(uasset.CompanionNames(out).Uexp)
		if !bytes.Equal(gotH, wantH) || !bytes.Equal(gotX, wantX) {
			t.Fatalf("%v: the asset differs from the one converted in memory", src)
		}
		back := filepath.Join(t.TempDir(), "Back.uasset")
		if _, stderr, code := runCLI(t, "convert", out, "--to", "zen", "--engine", "5.6", "-o", back); code != 0 {
			t.Fatalf("back: exit %d: %s", code, stderr)
		}
		if got, _ := os.ReadFile(back); !bytes.Equal(got, data) {
			t.Fatalf("%v: zen → legacy → zen differs from the package (%d bytes, want %d)", src, len(got), len(data))
		}
	}
}
