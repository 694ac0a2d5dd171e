package zen_test

import (
	"encoding/json"
	"testing"

	"github.com/unrmod/unrmod/iostore/zen"
)

func TestIDs(t *testing.T) {
	// hashing.md §5.2: the package id of a Grounded package.
	id := zen.PackageIDFromName("/Game/Blueprints/Items/Props/BP_Aphid_Meat_Prop")
	if id != 0x14f2082da820101a || id.String() != "0x14f2082da820101a" {
		t.Errorf("PackageIDFromName = %v", id)
	}
	if c := zen.ContainerIDFromName("CUE4ParseFixtures-Minimal-Zlib-Windows"); c != 0xdc74c2edae5549a3 || c.String() != "0xdc74c2edae5549a3" {
		t.Errorf("ContainerIDFromName = %v", c)
	}
	// Above 2^53: JSON must carry every bit, so ids are strings.
	in := struct {
		P zen.PackageID
		C zen.ContainerID
		L []zen.PackageID
	}{0xfff0000000000001, 0x8000000000000003, []zen.PackageID{1}}
	js, err := json.Marshal(in)
	if err != nil || string(js) != `{"P":"0xfff0000000000001","C":"0x8000000000000003","L":["0x0000000000000001"]}` {
		t.Fatalf("JSON %s, %v", js, err)
	}
	out := in
	out.P, out.C, out.L = 0, 0, nil
	if err := json.Unmarshal(js, &out); err != nil || out.P != in.P || out.C != in.C || len(out.L) != 1 || out.L[0] != 1 {
		t.Errorf("round trip %+v, %v", out, err)
	}
	var p zen.PackageID
	for text, want := range map[string]zen.PackageID{"0x10": 16, "0X1F": 31, "42": 42, "18446744073709551615": ^zen.PackageID(0)} {
		if err := p.UnmarshalText([]byte(text)); err != nil || p != want {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, p, err, want)
		}
	}
	for _, bad := range []string{"", "0x", "0x1g", "-1", "0x10000000000000000", "ab"} {
		if err := p.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("UnmarshalText(%q) accepted", bad)
		}
	}
}
