package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/iostore/zen"
)

// hashCommand returns the "hash" command.
func hashCommand() *command {
	return &command{
		name:     "hash",
		synopsis: "[--name S] [--package PATH] [--container NAME] [--export PATH [--engine VERSION]] [--script PATH] [--json]",
		summary:  "print the id or hash IoStore and zen files store for a name or path",
		description: `Print the identity hashes Unreal Engine (4.25 to 5.x) stores in IoStore
containers and zen packages, to find out what a name or path hashes to, or
what a value seen in 'unrmod dump', 'unrmod ls' or a hex editor stands for.
Give each value with a flag; the flags repeat and mix, and the values print
one line each, in the order given:

  $ unrmod hash --name ByteProperty --package /Script/CoreUObject
  name "ByteProperty":           0x73ccc841a7c628ee
  package "/Script/CoreUObject": 0x21febf02cdde2af3

Every value is CityHash64 of the text lowercased in A-Z only (other letters
keep their case), printed as 0x and 16 hex digits:

  --name S          the hash of an FName in name maps: package name maps,
                    container-header names, 4.26/4.27 global names. S is
                    the name without its number suffix: the engine keeps
                    Light_0 as Light plus the number 0, so hash Light (a
                    note says so). A name with a character above U+007F is
                    stored and hashed as UTF-16, other names one byte per
                    character. An empty S hashes the empty string
                    (0x9ae16a3b2f90404f); the engine stores an empty name
                    as None.
  --package PATH    the FPackageId of a long package name, /Game/Maps/Arena
                    (no extension, no object): the first 8 bytes of the
                    package's chunk ids and its key in container headers.
                    PATH.o gives the id of a UE 5 optional segment.
  --container NAME  the FIoContainerId of a container: the hash of its base
                    file name with any _P or _N_P suffix
                    (pakchunk0-WindowsNoEditor, MyMod_P), stored in the
                    .utoc header and as the container header's chunk id. A
                    file path works too: its folders and its .utoc, .ucas
                    (with any _sN) or .pak extension are dropped. Global
                    containers do not store this hash.
  --export PATH     the identity of a public export, PATH being the package
                    name, '.', the object, and ':' or '.' before each
                    subobject (/Game/Props/BP_Crate.BP_Crate_C,
                    /Game/Maps/Arena.Arena:PersistentLevel):
                      UE 4.26/4.27 store the GlobalImportIndex, the hash of
                      the full path (separators as '/') with 2
                      (PackageImport) in the top two bits, at export-map
                      offset 56 and in other packages' import maps;
                      UE 5 store the PublicExportHash, the hash of the path
                      after the package name, outers joined with '/'
                      (BP_Crate_C, Arena/PersistentLevel), at export-map
                      offset 56 and in importing packages'
                      ImportedPublicExportHashes;
                    plus the FPackageId of the export's package. Without
                    --engine both forms print; --engine prints the one that
                    release stores. /Script objects are native: use --script.
  --script PATH     the FPackageObjectIndex of a native object or package,
                    /Script/Engine.Actor or /Script/CoreUObject: the hash of
                    the path (separators as '/') with 1 (ScriptImport) in
                    the top two bits, as every engine version stores it in
                    import maps and export-map class, super and template
                    indices.

Backslashes in --package, --export and --script paths are read as '/', so
Windows-style paths can be pasted. The text lines show each value as it
was hashed (after that conversion, or with a container path reduced to its
base name). With --json, print one JSON array instead: per value an object
with kind, input, form and value (the hex string); exports add engine
("4.26/4.27" or "5.x"), package, package_id and relative_path.`,
		examples: []string{
			"unrmod hash --name ByteProperty --name None",
			"unrmod hash --package /Game/Blueprints/Items/Props/BP_Aphid_Meat_Prop",
			"unrmod hash --export /Game/Props/BP_Crate.BP_Crate_C",
			"unrmod hash --export /Game/Props/BP_Crate.Default__BP_Crate_C --engine 4.27",
			"unrmod hash --container pakchunk0-WindowsNoEditor --container Paks/MyMod_P.utoc",
			"unrmod hash --script /Script/Engine.BlueprintGeneratedClass --script /Script/CoreUObject --json",
		},
		setup: func(fs *flag.FlagSet) runner {
			var inputs []hashInput
			for _, k := range hashKinds {
				fs.Var(hashFlag{list: &inputs, kind: k.kind}, k.kind, k.usage)
			}
			engine := fs.String("engine", "", "with --export, print only the form release `VERSION` stores: "+zen.EngineNames()+" (5 is 5.0; default: both forms)")
			asJSON := fs.Bool("json", false, "print one JSON array instead of text")
			return func(s streams, args []string) error {
				if len(args) > 0 {
					k := guessHashKind(args[0])
					return usagef("hash", "unexpected argument %q: give each value with its flag, e.g. unrmod hash --%s %s", args[0], k, shellQuote(args[0]))
				}
				if len(inputs) == 0 {
					return usagef("hash", "nothing to hash: give --name, --package, --container, --export or --script, e.g. unrmod hash --package /Game/Maps/Arena")
				}
				var eng *zen.Engine
				fs.Visit(func(f *flag.Flag) {
					if f.Name == "engine" {
						eng = &zen.Engine{}
					}
				})
				if eng != nil {
					e, err := zen.ParseEngine(*engine)
					if err != nil {
						return usagef("hash", "%v (--engine)", err)
					}
					*eng = e
				}
				var all hashed
				for _, in := range inputs {
					h, err := hashValue(in, eng)
					if err != nil {
						return err
					}
					all.docs = append(all.docs, h.docs...)
					all.lines = append(all.lines, h.lines...)
					all.notes = append(all.notes, h.notes...)
				}
				var err error
				if *asJSON {
					err = writeJSON(s.out, all.docs)
				} else {
					err = writeHashLines(s.out, all.lines)
				}
				for _, n := range all.notes {
					fmt.Fprintf(s.err, "unrmod: note: %s\n", n)
				}
				return err
			}
		},
	}
}

// The kinds of value 'unrmod hash' prints, each named after its flag.
const (
	hashName      = "name"
	hashPackage   = "package"
	hashContainer = "container"
	hashExport    = "export"
	hashScript    = "script"
)

// hashKinds are the value flags of 'unrmod hash' with their help.
var hashKinds = []struct{ kind, usage string }{
	{hashName, "print the name-map hash of FName `S` (repeatable)"},
	{hashPackage, "print the FPackageId of long package name `PATH` (repeatable)"},
	{hashContainer, "print the FIoContainerId of container `NAME`, a base name or a .utoc path (repeatable)"},
	{hashExport, "print the GlobalImportIndex (UE4) and PublicExportHash (UE5) of export `PATH` (repeatable)"},
	{hashScript, "print the ScriptImport object index of native object `PATH` (repeatable)"},
}

// hashInput is one value to hash: its kind and the text given.
type hashInput struct {
	kind string
	text string
}

// hashFlag is a value flag of 'unrmod hash'. Every value flag appends to
// the same list, so the values keep the order of the command line.
type hashFlag struct {
	list *[]hashInput
	kind string
}

func (f hashFlag) String() string { return "" }

func (f hashFlag) Set(s string) error {
	*f.list = append(*f.list, hashInput{kind: f.kind, text: s})
	return nil
}

// hashDoc is one value of 'unrmod hash --json'.
type hashDoc struct {
	Kind  string `json:"kind"`  // the flag: name, package, container, export, script
	Input string `json:"input"` // the text as hashed (backslashes as '/', a container's base name)
	Form  string `json:"form"`  // what the value is: NameHash, FPackageId, FIoContainerId, ScriptImport, GlobalImportIndex, PublicExportHash
	Value string `json:"value"` // 0x and 16 hex digits
	// For exports:
	Engine       string `json:"engine,omitempty"`        // the releases storing Form: "4.26/4.27" or "5.x"
	Package      string `json:"package,omitempty"`       // the export's package name
	PackageID    string `json:"package_id,omitempty"`    // its FPackageId
	RelativePath string `json:"relative_path,omitempty"` // the path after the package name, outers joined with '/'
}

// hashLine is one line of text output: a label ending in ':' and a value.
type hashLine struct{ label, value string }

// hashed is what inputs give: the JSON objects, the text lines and notes
// for standard error.
type hashed struct {
	docs  []hashDoc
	lines []hashLine
	notes []string
}

// Engine families whose export identity differs, as the output names them.
const (
	engineUE4 = "4.26/4.27"
	engineUE5 = "5.x"
)

// hashValue hashes one input. engine selects the export form; nil prints
// both. A bad input is a usage error that says what a valid one looks like.
func hashValue(in hashInput, engine *zen.Engine) (hashed, error) {
	var h hashed
	text := in.text
	if !utf8.ValidString(text) {
		return h, usagef("hash", "--%s %q is not valid UTF-8 text; the engine hashes text, so give it as text", in.kind, text)
	}
	add := func(form, input, value string) {
		h.docs = append(h.docs, hashDoc{Kind: in.kind, Input: input, Form: form, Value: value})
		h.lines = append(h.lines, hashLine{in.kind + " " + strconv.Quote(input) + ":", value})
	}
	switch in.kind {
	case hashName:
		add("NameHash", text, hex64(cityhash.NameHash(text)))
		if text == "" {
			h.notes = append(h.notes, fmt.Sprintf("the engine turns an empty name into None; name maps hold the hash of \"None\" (%s)", hex64(cityhash.NameHash("None"))))
		} else if base, num, ok := zen.SplitNameNumber(text); ok {
			h.notes = append(h.notes, fmt.Sprintf("the engine keeps the name %q as %q plus the number suffix _%s; name maps hold the hash of %q: unrmod hash --name %s",
				text, base, num, base, shellQuote(base)))
		}
	case hashPackage:
		p := slashes(text)
		if err := checkPackageArg(p); err != nil {
			return h, usagef("hash", "--package %q: %v; a long package name is /Root/Folders/Name without extension or object, e.g. /Game/Maps/Arena (for an object use --export /Game/Maps/Arena.Arena)", text, err)
		}
		add("FPackageId", p, zen.PackageIDFromName(p).String())
	case hashContainer:
		base := containerBaseName(text)
		switch {
		case base == "":
			return h, usagef("hash", "--container %q: no container name; give the base name of the .utoc, e.g. pakchunk0-WindowsNoEditor or MyMod_P", text)
		case strings.TrimSpace(base) != base:
			return h, usagef("hash", "--container %q: white space at the start or end of the name; give the base name of the .utoc, e.g. pakchunk0-WindowsNoEditor or MyMod_P", text)
		}
		add("FIoContainerId", base, zen.ContainerIDFromName(base).String())
		if len(base) == len("global") && equalFoldASCII(base, "global") {
			h.notes = append(h.notes, "global containers do not store this hash: UE 5 global.utoc files store 0xffffffffffffffff")
		}
	case hashScript:
		p := slashes(text)
		if err := zen.CheckScriptPath(p); err != nil {
			return h, usagef("hash", "--script %q: %v; a script path is /Script/Module or /Script/Module.Object[:Subobject], e.g. /Script/Engine.Actor or /Script/CoreUObject", text, errText(err))
		}
		add("ScriptImport", p, zen.ObjectIndex(cityhash.ScriptImportIndex(p)).String())
	case hashExport:
		p := slashes(text)
		ep, err := zen.ParseObjectPath(p)
		if err == nil && hasPrefixFold(p, "/Script/") {
			err = errors.New("/Script objects are native and imported as ScriptImport: use --script")
		}
		if err != nil {
			return h, usagef("hash", "--export %q: %v; an export path is /Root/Folders/Package.Object[:Subobject...], e.g. /Game/Props/BP_Crate.BP_Crate_C or /Game/Maps/Arena.Arena:PersistentLevel", text, err)
		}
		pkgID := zen.PackageIDFromName(ep.Package).String()
		rel := ep.Relative()
		export := func(form, engine, label, value string) {
			h.docs = append(h.docs, hashDoc{Kind: hashExport, Input: p, Form: form, Value: value,
				Engine: engine, Package: ep.Package, PackageID: pkgID, RelativePath: rel})
			h.lines = append(h.lines, hashLine{"export " + strconv.Quote(p) + " " + label + ":", value})
		}
		if engine == nil || engine.Major < 5 {
			export("GlobalImportIndex", engineUE4, "GlobalImportIndex (UE "+engineUE4+")", zen.ObjectIndex(cityhash.PackageImportIndex(p)).String())
		}
		if engine == nil || engine.Major >= 5 {
			export("PublicExportHash", engineUE5, "PublicExportHash (UE "+engineUE5+")", hex64(cityhash.PublicExportHash(rel)))
		}
		h.lines = append(h.lines, hashLine{"export " + strconv.Quote(p) + " package id:", pkgID})
	default:
		return h, usagef("hash", "unknown kind of value %q", in.kind)
	}
	return h, nil
}

// writeHashLines prints the lines with their values aligned.
func writeHashLines(w io.Writer, lines []hashLine) error {
	width := 0
	for _, l := range lines {
		width = max(width, utf8.RuneCountInString(l.label))
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.label)
		b.WriteString(strings.Repeat(" ", width-utf8.RuneCountInString(l.label)+1))
		b.WriteString(l.value)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// checkPackageArg checks the value of --package: a long package name,
// optionally with the ".o" of a UE 5 optional segment.
func checkPackageArg(s string) error {
	if base, ok := cutSuffixFold(s, ".o"); ok && !strings.ContainsAny(base, ".:") {
		s = base
	}
	return zen.CheckPackageName(s)
}

// slashes returns a path with every '\' turned into '/'.
func slashes(s string) string { return strings.ReplaceAll(s, `\`, "/") }

// containerBaseName returns the base name of a container given as a base
// name or as a file path: no folders, no .utoc, .ucas or .pak extension,
// and for .ucas no partition suffix _sN.
func containerBaseName(s string) string {
	s = s[strings.LastIndexAny(s, `/\`)+1:]
	for _, ext := range []string{".utoc", ".ucas", ".pak"} {
		if base, ok := cutSuffixFold(s, ext); ok {
			s = base
			if ext == ".ucas" {
				s = trimPartitionSuffix(s)
			}
			break
		}
	}
	return s
}

// trimPartitionSuffix removes the _sN of a .ucas partition's base name.
func trimPartitionSuffix(s string) string {
	i := len(s)
	for i > 0 && '0' <= s[i-1] && s[i-1] <= '9' {
		i--
	}
	if i < len(s) && i >= 2 && s[i-2:i] == "_s" {
		return s[:i-2]
	}
	return s
}

// guessHashKind returns the flag a stray argument probably belongs to.
func guessHashKind(s string) string {
	s = slashes(s)
	switch {
	case hasPrefixFold(s, "/Script/"):
		return hashScript
	case strings.HasPrefix(s, "/") && strings.Contains(s[strings.LastIndexByte(s, '/'):], "."):
		return hashExport
	case strings.HasPrefix(s, "/"):
		return hashPackage
	case strings.Contains(s, "/") || hasSuffixFold(s, ".utoc"):
		return hashContainer
	}
	return hashName
}

// shellQuote returns s as one shell word, quoted when it needs to be.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == ':' || r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && equalFoldASCII(s[:len(prefix)], prefix)
}

// hasSuffixFold reports whether s ends with suffix, ignoring ASCII case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && equalFoldASCII(s[len(s)-len(suffix):], suffix)
}

// cutSuffixFold is strings.CutSuffix ignoring ASCII case.
func cutSuffixFold(s, suffix string) (string, bool) {
	if hasSuffixFold(s, suffix) {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// equalFoldASCII compares two strings of equal length, ignoring ASCII case
// only (as the engine lowercases).
func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
