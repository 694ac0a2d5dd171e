package patch

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/unrmod/unrmod/internal/editdist"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/writer"
)

// maxPatchFile is the size of the largest patch file ParseFile reads: far
// more text than any patch needs (large data goes in data files).
const maxPatchFile = 64 << 20

// ParseFile reads and parses the patch file at path. Anything but a
// regular file of at most 64 MiB is refused before reading.
func ParseFile(path string) (*File, error) {
	data, err := safefile.ReadRegular(path, maxPatchFile, "a patch file")
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses a patch file. Parsing is strict: unknown keys, wrong types and
// missing fields are errors that give the file, line and column. Windows line
// endings and Windows path separators are accepted.
func Parse(path string, data []byte) (*File, error) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, syntaxError(path, data, err)
	}
	ps := &parser{file: path}
	// "---" alone is a document holding an empty null, which the decoder
	// places on a line after the input's last: it is an empty file too.
	if doc.Kind == 0 || len(doc.Content) == 0 || isEmptyNull(doc.Content[0]) {
		return nil, errorf(Pos{File: path}, "the patch file is empty; it needs at least `unrmod: 1` and `targets:`")
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		return nil, syntaxError(path, data, err)
	default:
		return nil, ps.errf(&next, "a patch file holds one YAML document; remove the second one (after `---`) or merge its targets into the first")
	}
	f, err := ps.patchFile(doc.Content[0])
	if err != nil {
		return nil, err
	}
	f.Path = path
	return f, nil
}

// isEmptyNull reports whether n is the implicit null of a document with
// no content (not an explicit ~ or null).
func isEmptyNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == ""
}

// yamlLine finds the line number in a yaml.v3 error message ("yaml: line 4: ...").
var yamlLine = regexp.MustCompile(`line (\d+):`)

// syntaxError turns a YAML syntax error in data into an Error that
// carries its line, with a hint for the mistake patches make most: a
// bracket in an unquoted value of a {…} mapping.
func syntaxError(path string, data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	pos := Pos{File: path}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		pos.Line, _ = strconv.Atoi(m[1])
	}
	if strings.Contains(msg, "did not find expected ',' or '}'") {
		if line, hint := flowBracketHint(data, pos.Line); hint != "" {
			pos.Line = line
			msg = strings.Replace(msg, yamlLine.FindString(msg), fmt.Sprintf("line %d:", line), 1) + "; " + hint
		}
	}
	return &Error{Pos: pos, Msg: "not valid YAML: " + msg, Err: err}
}

// flowValue matches a key and an unquoted value holding '[' or ']' in a
// {…} mapping (after '{' or ',', or at the start of a continued line).
var flowValue = regexp.MustCompile(`(?:^|[{,])\s*([^\s{},:#"'][^{},:]*?)\s*:\s+([^\s"'\[\]{},][^{},]*[\[\]][^{},]*?)\s*(?:[,}]|$)`)

// flowBracketHint looks for an unquoted value with a bracket inside a {…}
// mapping at or a few lines after line of data (yaml.v3 reports the line
// before the mistake, or the line where the mapping starts). Lines before
// the mistake hold none: the parser would have stopped there. It returns
// the line and a hint to quote the value, or "" when there is none.
func flowBracketHint(data []byte, line int) (int, string) {
	lines := strings.Split(string(data), "\n")
	for n := max(line, 1); n <= min(line+3, len(lines)); n++ {
		text := lines[n-1]
		if i := strings.Index(text, " #"); i >= 0 {
			text = text[:i]
		}
		inFlow := strings.ContainsAny(text, "{}") ||
			(n >= 2 && (strings.Contains(lines[n-2], "{") || strings.HasSuffix(strings.TrimSpace(lines[n-2]), ",")))
		if !inFlow {
			continue
		}
		if m := flowValue.FindStringSubmatch(text); m != nil {
			return n, fmt.Sprintf("inside {…} a bracket starts or ends a list, so the value %s of %s must be quoted: %s: \"%s\"",
				m[2], m[1], m[1], m[2])
		}
	}
	return 0, ""
}

type parser struct{ file string }

func (ps *parser) pos(n *yaml.Node) Pos { return Pos{File: ps.file, Line: n.Line, Col: n.Column} }

func (ps *parser) errf(n *yaml.Node, format string, args ...any) error {
	return errorf(ps.pos(n), format, args...)
}

// fields reads a mapping whose keys must be among allowed; required keys must
// be present.
func (ps *parser) fields(n *yaml.Node, what string, allowed, required []string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, ps.errf(n, "%s must be a mapping (key: value lines), not %s", what, kindName(n))
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !contains(allowed, k.Value) {
			msg := fmt.Sprintf("unknown key %q in %s", k.Value, what)
			if s := suggest(k.Value, allowed); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, ps.errf(k, "%s; allowed: %s", msg, strings.Join(allowed, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, ps.errf(k, "key %q appears twice in %s", k.Value, what)
		}
		out[k.Value] = v
	}
	for _, r := range required {
		if _, ok := out[r]; !ok {
			return nil, ps.errf(n, "%s is missing the required key %q", what, r)
		}
	}
	return out, nil
}

func (ps *parser) str(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", ps.errf(n, "%s must be a text value, not %s", what, kindName(n))
	}
	return n.Value, nil
}

func (ps *parser) nonEmpty(n *yaml.Node, what string) (string, error) {
	s, err := ps.str(n, what)
	if err == nil && strings.TrimSpace(s) == "" {
		err = ps.errf(n, "%s is empty", what)
	}
	return s, err
}

// strList reads a list of text values (a single value counts as a list of
// one) and returns the entries' nodes, so errors can point at an entry.
func (ps *parser) strList(n *yaml.Node, what string) ([]*yaml.Node, error) {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		if strings.TrimSpace(n.Value) == "" {
			return nil, ps.errf(n, "%s is empty", what)
		}
		return []*yaml.Node{n}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, ps.errf(n, "%s must be a list such as [AllowDownload], not %s", what, kindName(n))
	}
	for _, c := range n.Content {
		if _, err := ps.nonEmpty(c, what+" entry"); err != nil {
			return nil, err
		}
	}
	return n.Content, nil
}

func (ps *parser) patchFile(n *yaml.Node) (*File, error) {
	m, err := ps.fields(n, "the patch file", []string{"unrmod", "targets"}, []string{"unrmod", "targets"})
	if err != nil {
		return nil, err
	}
	f := &File{}
	v := m["unrmod"]
	f.Version, err = strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil {
		return nil, ps.errf(v, "`unrmod:` must be the format version number (1)")
	}
	if f.Version != FormatVersion {
		return nil, ps.errf(v, "patch format version %d is not supported; this unrmod reads version %d", f.Version, FormatVersion)
	}
	tn := m["targets"]
	if tn.Kind != yaml.SequenceNode || len(tn.Content) == 0 {
		return nil, ps.errf(tn, "`targets:` must be a non-empty list of packages to patch")
	}
	for _, c := range tn.Content {
		t, err := ps.target(c)
		if err != nil {
			return nil, err
		}
		f.Targets = append(f.Targets, t)
	}
	return f, nil
}

var targetKeys = []string{"file", "output", "guid", "layout", "mappings", "global", "ops"}

// schemaKeys reads a target's mappings: and global: keys.
func (ps *parser) schemaKeys(t *Target, m map[string]*yaml.Node) error {
	var err error
	if v, ok := m["mappings"]; ok {
		if t.Mappings, err = ps.nonEmpty(v, "mappings"); err != nil {
			return err
		}
		t.Mappings, t.mappingsPos = slashes(t.Mappings), ps.pos(v)
	}
	if v, ok := m["global"]; ok {
		if t.Global, err = ps.nonEmpty(v, "global"); err != nil {
			return err
		}
		t.Global, t.globalPos = slashes(t.Global), ps.pos(v)
	}
	return nil
}

func (ps *parser) target(n *yaml.Node) (*Target, error) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "container" {
				return ps.containerTarget(n)
			}
		}
	}
	m, err := ps.fields(n, "a target", targetKeys, []string{"file", "ops"})
	if err != nil {
		return nil, err
	}
	t := &Target{Pos: ps.pos(n)}
	if t.File, err = ps.nonEmpty(m["file"], "file"); err != nil {
		return nil, err
	}
	t.File = slashes(t.File)
	if o, ok := m["output"]; ok {
		if t.Output, err = ps.nonEmpty(o, "output"); err != nil {
			return nil, err
		}
		t.Output = slashes(t.Output)
	}
	if g, ok := m["guid"]; ok {
		gp := ps.pos(g)
		t.guidPos = &gp
		s, err := ps.nonEmpty(g, "guid")
		if err != nil {
			return nil, err
		}
		switch strings.ToLower(s) {
		case "regenerate":
			t.GUID = GUIDRegenerate
		case "keep":
			t.GUID = GUIDKeep
		default:
			id, err := reader.ParseGUID(s)
			if err != nil {
				return nil, ps.errf(g, "guid must be keep, regenerate or 32 hex digits: %v", err)
			}
			t.GUID, t.SetTo = GUIDExplicit, id
		}
	}
	if l, ok := m["layout"]; ok {
		s, err := ps.nonEmpty(l, "layout")
		if err != nil {
			return nil, err
		}
		if t.Layout, err = writer.ParseLayout(s); err != nil {
			return nil, ps.errf(l, "%v", err)
		}
	}
	if err := ps.schemaKeys(t, m); err != nil {
		return nil, err
	}
	if t.Ops, err = ps.ops(m["ops"]); err != nil {
		return nil, err
	}
	return t, nil
}

// ops reads a non-empty list of operations.
func (ps *parser) ops(on *yaml.Node) ([]Op, error) {
	if on.Kind != yaml.SequenceNode || len(on.Content) == 0 {
		return nil, ps.errf(on, "`ops:` must be a non-empty list of operations (%s)", strings.Join(opNames(), ", "))
	}
	var out []Op
	for _, c := range on.Content {
		op, err := ps.op(c)
		if err != nil {
			return nil, err
		}
		out = append(out, op)
	}
	return out, nil
}

// opParsers maps each operation name to its parser.
var opParsers = map[string]func(ps *parser, at Pos, n *yaml.Node) (Op, error){
	"rename":          parseRename,
	"package-flags":   parsePackageFlags,
	"object-flags":    parseObjectFlags,
	"replace-export":  parseReplaceExport,
	"set-property":    parseSetProperty,
	"add-name":        parseAddName,
	"retarget-import": parseRetargetImport,
	"replace-texture": parseReplaceTexture,
	"replace-sound":   parseReplaceSound,
	"prune-imports":   parsePruneImports,
	"add-row":         parseAddRow,
	"remove-row":      parseRemoveRow,
	"rename-row":      parseRenameRow,
	"remove-element":  parseRemoveElement,
}

func opNames() []string {
	var out []string
	for k := range opParsers {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (ps *parser) op(n *yaml.Node) (Op, error) {
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return nil, ps.errf(n, "each operation is a mapping with one key, the operation's name (%s)", strings.Join(opNames(), ", "))
	}
	k, v := n.Content[0], n.Content[1]
	parse, ok := opParsers[k.Value]
	if !ok {
		msg := fmt.Sprintf("unknown operation %q", k.Value)
		if s := suggest(k.Value, opNames()); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return nil, ps.errf(k, "%s; operations: %s", msg, strings.Join(opNames(), ", "))
	}
	return parse(ps, ps.pos(k), v)
}

// dataSource is inline or file data for replace-export.
type dataSource struct {
	pos   Pos
	file  string // path relative to the patch file
	bytes []byte // inline hex or base64
}

// load returns the data: the inline bytes, or the file's, read relative to
// the patch's folder dir and refused past max bytes (what names the data
// in that error).
func (d *dataSource) load(dir string, max int64, what string) ([]byte, error) {
	if d.file == "" {
		return d.bytes, nil
	}
	data, err := safefile.ReadRegular(localPath(dir, d.file), max, what)
	if err != nil {
		return nil, errorf(d.pos, "data file: %v", err)
	}
	return data, nil
}

func (ps *parser) data(n *yaml.Node) (*dataSource, error) {
	m, err := ps.fields(n, "data", []string{"file", "hex", "base64"}, nil)
	if err != nil {
		return nil, err
	}
	if len(m) != 1 {
		return nil, ps.errf(n, "data takes exactly one of file, hex or base64")
	}
	d := &dataSource{pos: ps.pos(n)}
	for k, v := range m {
		s, err := ps.str(v, "data "+k)
		if err != nil {
			return nil, err
		}
		switch k {
		case "file":
			if strings.TrimSpace(s) == "" {
				return nil, ps.errf(v, "data file is empty")
			}
			d.file = slashes(s)
		case "hex":
			clean := strings.Map(func(r rune) rune {
				if r == ' ' || r == '\n' || r == '\t' || r == ':' {
					return -1
				}
				return r
			}, strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
			if d.bytes, err = hex.DecodeString(clean); err != nil {
				return nil, ps.errf(v, "data hex is not valid hexadecimal: %v", err)
			}
		case "base64":
			if d.bytes, err = base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), "")); err != nil {
				return nil, ps.errf(v, "data base64 is not valid base64: %v", err)
			}
		}
	}
	return d, nil
}

// slashes accepts Windows separators in paths written in a patch.
func slashes(p string) string { return strings.ReplaceAll(p, `\`, "/") }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// suggest returns the allowed word closest to s, if it is close.
func suggest(s string, allowed []string) string {
	best, bestD := "", 3
	for _, a := range allowed {
		if d := editdist.Distance(strings.ToLower(s), a); d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return fmt.Sprintf("the value %q", n.Value)
}
