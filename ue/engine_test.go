package ue_test

import (
	"testing"

	"github.com/unrmod/unrmod/ue"
)

// TestReleasesTable checks the table's shape: one row per release, oldest
// first, and versions that never go back from one release to the next.
func TestReleasesTable(t *testing.T) {
	rows := ue.Releases()
	if len(rows) == 0 {
		t.Fatal("no releases")
	}
	for i, row := range rows {
		got, ok := row.Release.Info()
		if !ok || got != row {
			t.Errorf("%v: Info = %+v, %v", row.Release, got, ok)
		}
		if i == 0 {
			continue
		}
		prev := rows[i-1]
		if !prev.Release.Less(row.Release) {
			t.Errorf("%v after %v: not oldest first", row.Release, prev.Release)
		}
		if row.TocVersion != 0 && row.TocVersion < prev.TocVersion ||
			row.ZenLayout != 0 && row.ZenLayout < prev.ZenLayout ||
			row.ContainerHeaderVersion != ue.UnknownContainerHeader && row.ContainerHeaderVersion < prev.ContainerHeaderVersion ||
			row.FileVersionUE4 < prev.FileVersionUE4 || row.FileVersionUE5 < prev.FileVersionUE5 {
			t.Errorf("%v: a version goes back from %+v to %+v", row.Release, prev, row)
		}
	}
	if _, ok := (ue.Release{Major: 4, Minor: 13}).Info(); ok {
		t.Error("4.13 has a row")
	}
}

// TestParseRelease checks the spellings of a release.
func TestParseRelease(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ue.Release
		ok   bool
	}{
		{"4.27", ue.Release{Major: 4, Minor: 27}, true},
		{" UE5.4 ", ue.Release{Major: 5, Minor: 4}, true},
		{"5", ue.Release{Major: 5}, true},
		{"6.0", ue.Release{Major: 6}, true},
		{"five", ue.Release{}, false},
		{"5.x", ue.Release{}, false},
		{"", ue.Release{}, false},
	} {
		got, err := ue.ParseRelease(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseRelease(%q) = %v, %v", tc.in, got, err)
		}
	}
	if got := ue.Span([]ue.Release{{Major: 5, Minor: 5}, {Major: 5, Minor: 6}, {Major: 5, Minor: 8}}, "-"); got != "5.5-5.8" {
		t.Errorf("Span = %q", got)
	}
}
