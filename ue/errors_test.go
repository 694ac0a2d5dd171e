package ue_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/ue"
)

// TestFormatError checks the text of a *FormatError with and without a
// file, an offset and a message.
func TestFormatError(t *testing.T) {
	for _, tc := range []struct {
		err  *ue.FormatError
		want string
	}{
		{&ue.FormatError{File: "a.utoc", Struct: "TOC header", Offset: 0x10, Msg: "bad"}, "a.utoc: TOC header at 0x10: bad"},
		{&ue.FormatError{Struct: "footer", Offset: -1, Msg: "bad"}, "footer: bad"},
		{&ue.FormatError{File: "x.pak", Struct: "index", Offset: 3, Err: ue.ErrCorrupt}, "x.pak: index at 0x3: corrupt data"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	err := fmt.Errorf("open: %w", ue.Errorf("f", "s", 1, ue.ErrWrongKey, "key %d", 2))
	var fe *ue.FormatError
	if !errors.As(err, &fe) || fe.Msg != "key 2" || !errors.Is(err, ue.ErrWrongKey) {
		t.Errorf("Errorf: As/Is failed on %v", err)
	}
}

// TestSharedSentinels checks that every format's sentinel matches the
// shared one of its kind (and keeps its own words), so a caller branches
// once for a container, a zen package and a pak.
func TestSharedSentinels(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err, kind  error
		text       string
		notAlsoErr error // a sentinel it must not match
	}{
		{"pak corrupt", pak.ErrCorrupt, ue.ErrCorrupt, "corrupt pak", ue.ErrWrongKey},
		{"pak version", pak.ErrUnsupportedVersion, ue.ErrUnsupportedVersion, "unsupported pak version", ue.ErrCorrupt},
		{"pak key required", pak.ErrKeyRequired, ue.ErrKeyRequired, "pak is encrypted: an AES key is required", ue.ErrWrongKey},
		{"pak wrong key", pak.ErrWrongKey, ue.ErrWrongKey, "wrong AES key", ue.ErrKeyRequired},
		{"pak hash", pak.ErrHashMismatch, ue.ErrHashMismatch, "file hash mismatch", ue.ErrCorrupt},
		{"pak method", pak.ErrUnsupportedMethod, ue.ErrUnsupportedMethod, "unsupported compression method", ue.ErrCorrupt},
		{"container corrupt", iostore.ErrCorrupt, ue.ErrCorrupt, "corrupt data", ue.ErrWrongKey},
		{"container key required", iostore.ErrKeyRequired, ue.ErrKeyRequired, "container is encrypted: an AES key is required", ue.ErrWrongKey},
		{"container wrong key", iostore.ErrWrongKey, ue.ErrWrongKey, "wrong AES key", ue.ErrKeyRequired},
		{"container hash", iostore.ErrHashMismatch, ue.ErrHashMismatch, "chunk hash mismatch", ue.ErrCorrupt},
		{"container method", iostore.ErrUnsupportedMethod, ue.ErrUnsupportedMethod, "unsupported compression method", ue.ErrCorrupt},
		{"zen corrupt", zen.ErrCorrupt, ue.ErrCorrupt, "corrupt data", ue.ErrNotEncodable},
		{"zen version", zen.ErrUnsupportedVersion, ue.ErrUnsupportedVersion, "unsupported version", ue.ErrCorrupt},
		{"zen encode", zen.ErrNotEncodable, ue.ErrNotEncodable, "cannot be encoded", ue.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wrapped := ue.Errorf("f", "s", 0, tc.err, "m")
			if !errors.Is(wrapped, tc.kind) || !errors.Is(wrapped, tc.err) {
				t.Errorf("%v does not match %v", tc.err, tc.kind)
			}
			if errors.Is(wrapped, tc.notAlsoErr) {
				t.Errorf("%v matches %v too", tc.err, tc.notAlsoErr)
			}
			if tc.err.Error() != tc.text {
				t.Errorf("text %q, want %q", tc.err.Error(), tc.text)
			}
		})
	}
}
