package patch

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue"
)

// ContainerMode says what a container target writes.
type ContainerMode uint8

const (
	// ModeMod (the default) writes a small container of its own (a _P mod
	// container with its .pak) holding only the changed packages, with
	// their bulk data, and the files added or replaced.
	ModeMod ContainerMode = iota
	// ModeFull writes the whole container again with the changes.
	ModeFull
)

func (m ContainerMode) String() string {
	if m == ModeFull {
		return "full"
	}
	return "mod"
}

// ContainerTarget is a target that patches packages and files inside an
// IoStore container (docs/patch-format.md, "Container targets").
type ContainerTarget struct {
	Pos Pos
	// Container is the .utoc or .pak path as written.
	Container string
	// Pak says that Container is a pak of cooked assets: packages name
	// .uasset/.umap files in it, and the output is a pak.
	Pak bool
	// Key decrypts the container (and encrypts the output, which keeps
	// the container's key GUID).
	Key  *ue.Key
	Mode ContainerMode
	// Compression is the method of new or changed chunks: "keep" (the
	// container's, or Zlib when Options.Codecs cannot write it), "none",
	// "zlib", "lz4" or "oodle" (through the Oodle library in
	// Options.Codecs).
	Compression string
	// Layout is the full mode's layout: preserve (the default) keeps the
	// unchanged chunks' blocks where they are; compact lays the container
	// out again.
	Layout   iostore.RewriteLayout
	Packages []*PackageTarget
	Files    []*FileOp
}

// PackageTarget is a package of a container and the operations on it.
type PackageTarget struct {
	Pos     Pos
	Package string // package name, ls path or file name, as --package takes it
	Ops     []Op
}

// FileOp replaces, adds or removes a file of a container.
type FileOp struct {
	Pos  Pos
	Kind string // replace-file, add-file or remove-file
	// Path is the file's path in the container, relative to the game's
	// root as ls shows it ("Maine/Content/UI/T_Logo.uasset").
	Path string
	// Source is the file with the new content (replace-file's with:,
	// add-file's from:), relative to the patch file.
	Source string
}

var containerKeys = []string{"container", "aes-key", "output", "mode", "compression", "layout", "mappings", "global", "packages", "files"}

func (ps *parser) containerTarget(n *yaml.Node) (*Target, error) {
	m, err := ps.fields(n, "a container target", containerKeys, []string{"container"})
	if err != nil {
		return nil, err
	}
	ct := &ContainerTarget{Pos: ps.pos(n), Compression: "keep"}
	t := &Target{Pos: ps.pos(n), Container: ct}
	if ct.Container, err = ps.nonEmpty(m["container"], "container"); err != nil {
		return nil, err
	}
	ct.Container = slashes(ct.Container)
	ct.Pak = isPakPath(ct.Container)
	if err := ps.schemaKeys(t, m); err != nil {
		return nil, err
	}
	if o, ok := m["output"]; ok {
		if t.Output, err = ps.nonEmpty(o, "output"); err != nil {
			return nil, err
		}
		t.Output = slashes(t.Output)
	}
	if k, ok := m["aes-key"]; ok {
		s, err := ps.nonEmpty(k, "aes-key")
		if err != nil {
			return nil, err
		}
		key, err := ue.ParseKey(s)
		if err != nil {
			return nil, ps.errf(k, "aes-key: %v", err)
		}
		ct.Key = &key
	}
	if v, ok := m["mode"]; ok {
		s, err := ps.nonEmpty(v, "mode")
		if err != nil {
			return nil, err
		}
		switch strings.ToLower(s) {
		case "mod":
			ct.Mode = ModeMod
		case "full":
			ct.Mode = ModeFull
		default:
			return nil, ps.errf(v, "mode must be mod (a small _P container with only what changed) or full (the whole container again), not %q", s)
		}
	}
	if v, ok := m["compression"]; ok {
		s, err := ps.nonEmpty(v, "compression")
		if err != nil {
			return nil, err
		}
		s = strings.ToLower(s)
		if ct.Pak && !contains([]string{"keep", "none", "zlib", "oodle"}, s) {
			return nil, ps.errf(v, "compression of a pak target must be keep, none, zlib or oodle, not %q", s)
		}
		if !contains([]string{"keep", "none", "zlib", "lz4", "oodle"}, s) {
			return nil, ps.errf(v, "compression must be keep, none, zlib, lz4 or oodle, not %q", s)
		}
		ct.Compression = s
	}
	if v, ok := m["layout"]; ok {
		s, err := ps.nonEmpty(v, "layout")
		if err != nil {
			return nil, err
		}
		if ct.Layout, err = iostore.ParseRewriteLayout(s); err != nil {
			return nil, ps.errf(v, "%v", err)
		}
		if ct.Pak {
			return nil, ps.errf(v, "layout applies to IoStore containers; a pak is always written file after file")
		}
		if ct.Mode != ModeFull {
			return nil, ps.errf(v, "layout applies to mode: full; a mod container is always laid out anew")
		}
	}
	if v, ok := m["packages"]; ok {
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			return nil, ps.errf(v, "`packages:` must be a non-empty list of {package: NAME, ops: [...]}")
		}
		for _, c := range v.Content {
			pm, err := ps.fields(c, "a package of a container target", []string{"package", "ops"}, []string{"package", "ops"})
			if err != nil {
				return nil, err
			}
			pt := &PackageTarget{Pos: ps.pos(c)}
			if pt.Package, err = ps.nonEmpty(pm["package"], "package"); err != nil {
				return nil, err
			}
			if pt.Ops, err = ps.ops(pm["ops"]); err != nil {
				return nil, err
			}
			ct.Packages = append(ct.Packages, pt)
		}
	}
	if v, ok := m["files"]; ok {
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			return nil, ps.errf(v, "`files:` must be a non-empty list of replace-file, add-file or remove-file operations")
		}
		for _, c := range v.Content {
			f, err := ps.fileOp(c, ct.Mode)
			if err != nil {
				return nil, err
			}
			ct.Files = append(ct.Files, f)
		}
	}
	if len(ct.Packages) == 0 && len(ct.Files) == 0 {
		return nil, ps.errf(n, "a container target needs `packages:` or `files:` (what to change)")
	}
	return t, nil
}

var fileOpNames = []string{"add-file", "remove-file", "replace-file"}

func (ps *parser) fileOp(n *yaml.Node, mode ContainerMode) (*FileOp, error) {
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return nil, ps.errf(n, "each file operation is a mapping with one key (%s)", strings.Join(fileOpNames, ", "))
	}
	k, v := n.Content[0], n.Content[1]
	f := &FileOp{Pos: ps.pos(k), Kind: k.Value}
	var src string
	switch k.Value {
	case "replace-file":
		src = "with"
	case "add-file":
		src = "from"
	case "remove-file":
		if mode != ModeFull {
			return nil, ps.errf(k, "remove-file needs mode: full: a mod container cannot remove a file of the game's container")
		}
	default:
		msg := "unknown file operation " + `"` + k.Value + `"`
		if s := suggest(k.Value, fileOpNames); s != "" {
			msg += ` (did you mean "` + s + `"?)`
		}
		return nil, ps.errf(k, "%s; file operations: %s", msg, strings.Join(fileOpNames, ", "))
	}
	keys := []string{"path"}
	if src != "" {
		keys = append(keys, src)
	}
	m, err := ps.fields(v, k.Value, keys, keys)
	if err != nil {
		return nil, err
	}
	p, err := ps.nonEmpty(m["path"], k.Value+" path")
	if err != nil {
		return nil, err
	}
	f.Path = strings.TrimPrefix(slashes(p), "/")
	if bad := badContainerPath(f.Path); bad != "" {
		return nil, ps.errf(m["path"], "%s path %q %s", k.Value, p, bad)
	}
	if src != "" {
		s, err := ps.nonEmpty(m[src], k.Value+" "+src)
		if err != nil {
			return nil, err
		}
		f.Source = slashes(s)
	}
	return f, nil
}

// badContainerPath says why p cannot be a path in a container, or "".
func badContainerPath(p string) string {
	if strings.HasPrefix(p, "../") || strings.Contains(p, ":") {
		return "leaves the game's root (paths are relative to it, e.g. Maine/Content/UI/T_Logo.uasset)"
	}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." || strings.ContainsRune(c, 0) {
			return "is not a plain relative path (empty, . or .. components)"
		}
	}
	if len(p) > iostore.MaxPathLen {
		return "is too long"
	}
	return ""
}
