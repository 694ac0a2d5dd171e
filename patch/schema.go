package patch

import (
	"os"
	"path/filepath"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/usmap"
)

// schema is what set-property needs of a target cooked with unversioned
// properties: the game's mappings and, for zen packages, a resolver that
// names their classes through the global container's script objects.
type schema struct {
	m *usmap.Mappings
	r *zen.Resolver
}

// loadMappings reads a target's mappings: file (relative to dir), or
// returns nil when the target names none.
func loadMappings(t *Target, dir string, codecs *ue.Codecs) (*usmap.Mappings, error) {
	if t.Mappings == "" {
		return nil, nil
	}
	m, err := usmap.Open(localPath(dir, t.Mappings), &usmap.Options{Codecs: codecs})
	if err != nil {
		return nil, &Error{Pos: t.mappingsPos, Msg: "mappings: " + err.Error(), Err: err}
	}
	return m, nil
}

// loadScript reads the script objects that name a zen package's script
// imports: the target's global: file, else a global.utoc beside near (a
// container or a zen package file) or one folder up; nil when there is
// none, or when the target names no mappings (only unversioned packages
// need class names).
func loadScript(t *Target, dir, near string) (*zen.ScriptObjects, error) {
	if t.Mappings == "" {
		return nil, nil
	}
	path := ""
	if t.Global != "" {
		path = localPath(dir, t.Global)
	} else {
		d := filepath.Dir(near)
		for _, p := range []string{filepath.Join(d, "global.utoc"), filepath.Join(filepath.Dir(d), "global.utoc")} {
			if _, err := os.Stat(p); err == nil && !safefile.SameFile(p, near) {
				path = p
				break
			}
		}
		if path == "" {
			return nil, nil
		}
	}
	so, err := iostore.LoadScriptObjectsFrom(path, nil)
	if err != nil {
		pos := t.globalPos
		if t.Global == "" {
			pos = t.mappingsPos
		}
		return nil, &Error{Pos: pos, Msg: "global: " + err.Error(), Err: err}
	}
	return so, nil
}
