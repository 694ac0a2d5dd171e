package report_test

import (
	"strings"
	"testing"

	"github.com/unrmod/unrmod/internal/corpus"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/ue"
)

// TestContainerInfoWordsErrors checks that the errors a report quotes
// name the library's settings unless the front end names them its way.
func TestContainerInfoWordsErrors(t *testing.T) {
	file := corpus.Path(t, "iostore/cue4parse_ue5_8/Tagged/OodleEncrypted/CUE4ParseFixtures-Minimal-OodleEncrypted-Windows.utoc")
	c, err := iostore.Open(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cli := &report.Options{Setting: func(s ue.Setting) string {
		if s == ue.SettingKey {
			return "--aes-key"
		}
		return ""
	}}
	tests := []struct {
		name string
		opts *report.Options
		want string
	}{
		{"library", nil, "pass the key with Options.Key"},
		{"command line", cli, "pass the key with --aes-key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := report.NewContainerInfo(file, c, tt.opts)
			if d.DirectoryIndex == nil || !strings.HasSuffix(d.DirectoryIndex.Error, tt.want) {
				t.Errorf("directory index: %+v, want an error ending %q", d.DirectoryIndex, tt.want)
			}
			if d.ContainerHeader == nil || d.ContainerHeader.Version != nil || !strings.HasSuffix(d.ContainerHeader.Error, tt.want) {
				t.Errorf("container header: %+v, want an error ending %q", d.ContainerHeader, tt.want)
			}
			if d.Encryption == "none" || d.Chunks != len(c.Chunks()) {
				t.Errorf("encryption %s, %d chunks", d.Encryption, d.Chunks)
			}
		})
	}
}
