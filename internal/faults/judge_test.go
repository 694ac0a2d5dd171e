//go:build linux

package faults

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The harness's judgement of a folder after a kill: these run with the
// ordinary tests, so that a wrong verdict does not hide a real fault.
func TestJudge(t *testing.T) {
	container := &scenario{outputs: [][]string{{"o.utoc", "o.ucas"}}}
	inPlace := &scenario{inPlace: "a.unr", outputs: [][]string{{"a.unr", "a.unr.bak"}}}
	extract := &scenario{outDir: "ex"}
	tests := []struct {
		name     string
		sc       *scenario
		now, pre map[string]string
		ref      map[string]string
		want     outcome
	}{
		{"nothing written", container, map[string]string{}, map[string]string{}, map[string]string{"o.utoc": "N1", "o.ucas": "N2"}, outUntouched},
		{"old kept", container, map[string]string{"o.utoc": "O1", "o.ucas": "O2"}, map[string]string{"o.utoc": "O1", "o.ucas": "O2"}, map[string]string{"o.utoc": "N1", "o.ucas": "N2"}, outUntouched},
		{"new written", container, map[string]string{"o.utoc": "N1", "o.ucas": "N2"}, map[string]string{"o.utoc": "O1", "o.ucas": "O2"}, map[string]string{"o.utoc": "N1", "o.ucas": "N2"}, outForward},
		{"old index, new data", container, map[string]string{"o.utoc": "O1", "o.ucas": "N2"}, map[string]string{"o.utoc": "O1", "o.ucas": "O2"}, map[string]string{"o.utoc": "N1", "o.ucas": "N2"}, outBroken},
		{"new index only", container, map[string]string{"o.utoc": "N1"}, map[string]string{}, map[string]string{"o.utoc": "N1", "o.ucas": "N2"}, outBroken},
		{"old gone", container, map[string]string{}, map[string]string{"o.utoc": "O1", "o.ucas": "O2"}, map[string]string{"o.utoc": "N1", "o.ucas": "N2"}, outBroken},
		{"torn file", container, map[string]string{"o.utoc": "N1", "o.ucas": "X"}, map[string]string{}, map[string]string{"o.utoc": "N1", "o.ucas": "N2"}, outBroken},
		{"in place untouched", inPlace, map[string]string{"a.unr": "O"}, map[string]string{"a.unr": "O"}, map[string]string{"a.unr": "N", "a.unr.bak": "O"}, outUntouched},
		{"in place, backup made", inPlace, map[string]string{"a.unr": "O", "a.unr.bak": "O"}, map[string]string{"a.unr": "O"}, map[string]string{"a.unr": "N", "a.unr.bak": "O"}, outUntouched},
		{"in place done", inPlace, map[string]string{"a.unr": "N", "a.unr.bak": "O"}, map[string]string{"a.unr": "O"}, map[string]string{"a.unr": "N", "a.unr.bak": "O"}, outForward},
		{"in place, original lost", inPlace, map[string]string{"a.unr": "N"}, map[string]string{"a.unr": "O"}, map[string]string{"a.unr": "N", "a.unr.bak": "O"}, outBroken},
		{"extract halfway", extract, map[string]string{"ex/a": "N1", "ex/b": ""}, map[string]string{}, map[string]string{"ex/a": "N1", "ex/b": "N2"}, outPartial},
		{"extract torn file", extract, map[string]string{"ex/a": "N1", "ex/b": "X"}, map[string]string{}, map[string]string{"ex/a": "N1", "ex/b": "N2"}, outBroken},
		{"extract over the same files", extract, map[string]string{"ex/a": "N1", "ex/b": "N2"}, map[string]string{"ex/a": "N1"}, map[string]string{"ex/a": "N1", "ex/b": "N2"}, outForward},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// outputHashes reports a missing declared output as "".
			for _, g := range tt.sc.outputs {
				for _, f := range g {
					if _, ok := tt.now[f]; !ok {
						tt.now[f] = ""
					}
				}
			}
			got, why := tt.sc.judge(tt.now, tt.pre, &reference{new: tt.ref}, tt.pre[tt.sc.inPlace])
			if got != tt.want {
				t.Errorf("judge = %v (%s), want %v", got, why, tt.want)
			}
			if (got == outBroken) != (why != "") {
				t.Errorf("judge = %v with reason %q", got, why)
			}
		})
	}
}

// Damage is seeded, stays inside the file, and is made as described.
func TestDamage(t *testing.T) {
	dir := t.TempDir()
	orig := []byte(strings.Repeat("0123456789abcdef", 64))
	for i := 0; i < 200; i++ {
		rng := func() *rand.Rand { return rand.New(rand.NewPCG(7, uint64(i))) }
		text := i%2 == 1
		plan := func() damage {
			if text {
				return planTextDamage(rng(), "f", int64(len(orig)))
			}
			return planDamage(rng(), "f", int64(len(orig)), []region{{name: "h", off: 0, size: 64}, {name: "e", off: 100, size: 120, stride: 12, at: 11}})
		}
		d := plan()
		if d != plan() {
			t.Fatalf("the same seed planned %v and %v", d, plan())
		}
		if d.off < 0 || d.off >= int64(len(orig)) || d.off+max(d.n, 0) > int64(len(orig)) && d.op != "flip" && d.op != "replace" {
			t.Fatalf("%v lies outside the %d-byte file", d, len(orig))
		}
		switch d.where {
		case "h":
			if d.off >= 64 {
				t.Fatalf("%v lies outside its region", d)
			}
		case "e":
			if d.off < 100 || d.off >= 220 || (d.off-100)%12 != 11 {
				t.Fatalf("%v is not the last byte of an entry", d)
			}
		}
		path := filepath.Join(dir, "f")
		os.WriteFile(path, orig, 0o644)
		if err := d.apply(dir); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		switch d.op {
		case "truncate":
			if int64(len(got)) != d.off {
				t.Errorf("%v: %d bytes left", d, len(got))
			}
		case "delete":
			if len(got) != len(orig)-int(d.n) {
				t.Errorf("%v: %d bytes left", d, len(got))
			}
		case "flip", "zero", "replace":
			if len(got) != len(orig) {
				t.Errorf("%v: %d bytes left", d, len(got))
			}
		}
		if d.op != "replace" && string(got) == string(orig) {
			t.Errorf("%v left the file as it was", d)
		}
	}
}
