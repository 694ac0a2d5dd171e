package ue_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/unrmod/unrmod/ue"
)

func TestAdviceReword(t *testing.T) {
	key := &ue.Advice{Setting: ue.SettingKey, Name: "Options.Key", Err: ue.ErrKeyRequired,
		Before: "data is encrypted; pass the key with "}
	force := &ue.Advice{Setting: ue.SettingForce, Name: "Options.Force", Before: "use ", After: " to replace it"}
	flag := func(s ue.Setting) string {
		if s == ue.SettingKey {
			return "--aes-key"
		}
		return ""
	}
	tests := []struct {
		name string
		err  error
		text func(error) string
		want string
	}{
		{"alone", key, nil, "data is encrypted; pass the key with --aes-key"},
		{"in a FormatError", ue.Errorf("a.utoc", "directory index", 0x10, key, "%s", key.Error()), nil,
			"a.utoc: directory index at 0x10: data is encrypted; pass the key with --aes-key"},
		{"a FormatError's message", ue.Errorf("a.utoc", "directory index", 0x10, key, "paths: %s", key.Error()),
			func(err error) string { var fe *ue.FormatError; errors.As(err, &fe); return fe.Msg },
			"paths: data is encrypted; pass the key with --aes-key"},
		{"wrapped", fmt.Errorf("open: %w", key), nil, "open: data is encrypted; pass the key with --aes-key"},
		{"joined", errors.Join(key, force), nil, "data is encrypted; pass the key with --aes-key\nuse Options.Force to replace it"},
		{"a setting the front end does not name", force, nil, "use Options.Force to replace it"},
		{"no advice", errors.New("pass the key with Options.Key"), nil, "pass the key with Options.Key"},
		{"nil", nil, func(error) string { return "text" }, "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := tt.text
			if text == nil {
				text = func(err error) string { return err.Error() }
			}
			if got := ue.Reword(tt.err, text(tt.err), flag); got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
	if !errors.Is(key, ue.ErrKeyRequired) || key.Error() != "data is encrypted; pass the key with Options.Key" {
		t.Errorf("advice: %v", key)
	}
}

// TestOodleLibraryAdvice checks that the advice about Oodle data names the
// library's API setting by default and the front end's words when asked,
// and keeps its cause for errors.Is.
func TestOodleLibraryAdvice(t *testing.T) {
	a := ue.OodleLibrary("Options.Codecs", ue.ErrUnsupportedMethod)
	if !strings.HasSuffix(a.Error(), "give it with Options.Codecs") || !strings.Contains(a.Error(), "oo2core_9_win64.dll") {
		t.Errorf("Error() = %q", a.Error())
	}
	if !errors.Is(a, ue.ErrUnsupportedMethod) {
		t.Error("the advice does not match its cause")
	}
	err := fmt.Errorf("block 3: %w", a)
	got := ue.Reword(err, err.Error(), func(s ue.Setting) string {
		if s == ue.SettingOodle {
			return "--oodle PATH"
		}
		return ""
	})
	if !strings.HasSuffix(got, "give it with --oodle PATH") || !strings.HasPrefix(got, "block 3: Oodle needs") {
		t.Errorf("reworded: %q", got)
	}
}
