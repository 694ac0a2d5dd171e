// Package usmap reads .usmap files: the property schema of a game's
// classes and structs that modders dump from a running game (UE4SS,
// Dumper-7, UnrealMappingsDumper). A package cooked with unversioned
// properties (PKG_UnversionedProperties) stores no property tags, only
// values in the order of its class's schema, so reading or writing its
// properties needs this schema; package props does it with a *Mappings.
//
// Read decodes a file of versions 0 (Initial) to 4 (ExplicitEnumValues):
// the header with the optional package versioning, the payload compressed
// with no method, Zstandard, Brotli or Oodle (through a codec registered in
// a ue.Codecs table, since Oodle is the game's own library), then the name
// table, the enums and the structs with their properties and type trees.
// Bad input gives a *ue.FormatError naming the structure and its offset;
// every count is checked against the bytes left before anything is
// allocated, and a payload may not decompress beyond Options.MaxPayload.
package usmap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// Magic is the uint16 every .usmap file starts with.
const Magic = 0x30C4

// Version is a .usmap format version (EUsmapVersion).
type Version uint8

// The versions Read knows.
const (
	VersionInitial            Version = 0 // the first layout
	VersionPackageVersioning  Version = 1 // adds the optional package versioning
	VersionLongFName          Version = 2 // names have a uint16 length
	VersionLargeEnums         Version = 3 // enums have a uint16 entry count
	VersionExplicitEnumValues Version = 4 // enum entries store their values
	// LatestVersion is the newest version Read decodes.
	LatestVersion = VersionExplicitEnumValues
)

// Compression is the method a file's payload is compressed with.
type Compression uint8

// The compression methods.
const (
	CompressionNone      Compression = 0
	CompressionOodle     Compression = 1
	CompressionBrotli    Compression = 2
	CompressionZstandard Compression = 3
)

// String returns the method's name.
func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "None"
	case CompressionOodle:
		return "Oodle"
	case CompressionBrotli:
		return "Brotli"
	case CompressionZstandard:
		return "Zstandard"
	}
	return fmt.Sprintf("Compression(%d)", uint8(c))
}

// DefaultMaxPayload is the largest decompressed payload Read accepts when
// Options.MaxPayload is 0. The largest games' mappings are a few tens of
// megabytes.
const DefaultMaxPayload = 256 << 20

// ErrOodleUnavailable means the payload is Oodle-compressed and the
// Codecs given to Read have no Oodle decoder: decoding it needs the game's
// Oodle library (oo2core_9_win64.dll or liboo2corelinux64.so.9) loaded as
// the "Oodle" codec. It matches ue.ErrUnsupportedMethod with errors.Is.
var ErrOodleUnavailable = ue.NewSentinel("the mappings are Oodle-compressed: decoding them needs the game's Oodle library, "+
	"and no Oodle codec is registered", ue.ErrUnsupportedMethod)

// Options control Read. The zero value (or nil) uses the built-in codecs
// and DefaultMaxPayload.
type Options struct {
	// Codecs supplies the Oodle decoder (a codec named "Oodle"); nil has
	// only the built-in methods, so Oodle-compressed files are refused
	// with ErrOodleUnavailable.
	Codecs *ue.Codecs
	// MaxPayload is the largest decompressed payload accepted;
	// 0 means DefaultMaxPayload.
	MaxPayload int
	// Name names the file in errors.
	Name string
}

// Versioning is the package versioning a file may record (version 1 and
// later): the engine's file versions, custom versions and changelist.
type Versioning struct {
	FileVersionUE4 int32           `json:"file_version_ue4"`
	FileVersionUE5 int32           `json:"file_version_ue5"`
	CustomVersions []CustomVersion `json:"custom_versions"`
	NetCL          uint32          `json:"net_cl"`
}

// CustomVersion is one custom version: its GUID's 16 bytes as stored and
// its version.
type CustomVersion struct {
	Key     [16]byte `json:"key"`
	Version int32    `json:"version"`
}

// Mappings is a decoded .usmap file.
type Mappings struct {
	Version     Version     `json:"version"`
	Versioning  *Versioning `json:"versioning,omitempty"`
	Compression Compression `json:"compression"`
	// Names is the name table the payload indexes.
	Names []string `json:"-"`
	// Enums and Structs are in file order.
	Enums   []*Enum   `json:"enums"`
	Structs []*Struct `json:"structs"`
	// Extra are the payload's bytes after the structs (extension data
	// some dumpers append), kept as they are.
	Extra []byte `json:"-"`

	enums   map[string]*Enum
	structs map[string]*Struct

	// srcs supply what the file lacks (With), in order; base is the
	// Mappings they were added to, whose cached schemas are reused.
	srcs []Source
	base *Mappings

	mu      sync.Mutex
	schemas map[string][]Slot // Schema's results, by name as asked
}

// A Source supplies structs, classes and enums that a Mappings lacks,
// such as the Blueprint classes, user-defined structs and user-defined
// enums a cooked package defines itself (package props/pkgschema reads
// them). Struct and Enum return nil and no error for a name the source
// does not know, and an error (wrapping ErrMissing when the definition is
// elsewhere, ue.ErrCorrupt when it is damaged) when it knows of the name
// but cannot give its definition. They must be safe for concurrent use.
type Source interface {
	Struct(name string) (*Struct, error)
	Enum(name string) (*Enum, error)
}

// With returns mappings that hold what m holds and, for a struct, class
// or enum m lacks, what src gives (sources added by earlier calls are
// asked first). m itself is unchanged and the result shares its tables;
// the schemas m has cached are reused for names whose whole super chain
// m holds.
func (m *Mappings) With(src Source) *Mappings {
	base := m
	if m.base != nil {
		base = m.base
	}
	return &Mappings{
		Version: m.Version, Versioning: m.Versioning, Compression: m.Compression,
		Names: m.Names, Enums: m.Enums, Structs: m.Structs, Extra: m.Extra,
		enums: m.enums, structs: m.structs,
		srcs: append(append([]Source(nil), m.srcs...), src),
		base: base,
	}
}

// lookupStruct returns the struct named name from the file, else from
// the sources.
func (m *Mappings) lookupStruct(name string) (*Struct, error) {
	if s := m.structs[strings.ToLower(name)]; s != nil {
		return s, nil
	}
	for _, src := range m.srcs {
		s, err := src.Struct(name)
		if s != nil || err != nil {
			return s, err
		}
	}
	return nil, nil
}

// Enum is an enum: its name and its entries.
type Enum struct {
	Name    string      `json:"name"`
	Entries []EnumEntry `json:"entries"`
}

// EnumEntry is one enumerator: its value (the entry's position before
// version 4) and its name as the engine stores it, e.g. "EFoo::Bar".
type EnumEntry struct {
	Value uint64 `json:"value"`
	Name  string `json:"name"`
}

// Lookup returns the name of the entry with value v.
func (e *Enum) Lookup(v uint64) (string, bool) {
	for _, x := range e.Entries {
		if x.Value == v {
			return x.Name, true
		}
	}
	return "", false
}

// ValueOf returns the value of the entry named name: its whole name or
// the part after "::" (case-insensitive).
func (e *Enum) ValueOf(name string) (uint64, bool) {
	for _, x := range e.Entries {
		if strings.EqualFold(x.Name, name) {
			return x.Value, true
		}
	}
	for _, x := range e.Entries {
		if _, short, ok := strings.Cut(x.Name, "::"); ok && strings.EqualFold(short, name) {
			return x.Value, true
		}
	}
	return 0, false
}

// Struct is a class or struct: its name, its super struct's name ("" for
// none), how many schema slots its own properties take (static arrays
// take one per element) and its properties.
type Struct struct {
	Name          string      `json:"name"`
	Super         string      `json:"super,omitempty"`
	PropertyCount int         `json:"property_count"`
	Properties    []*Property `json:"properties"`
}

// Property is one serializable property of a struct: its first schema
// slot among the struct's own (Index), its static array size, its name and
// its type.
type Property struct {
	Index    int    `json:"index"`
	ArrayDim int    `json:"array_dim"`
	Name     string `json:"name"`
	Type     *Type  `json:"type"`
}

// Kind is a property type as a .usmap stores it (EPropertyType).
type Kind uint8

// The kinds, in the file's numbering.
const (
	ByteProperty Kind = iota
	BoolProperty
	IntProperty
	FloatProperty
	ObjectProperty
	NameProperty
	DelegateProperty
	DoubleProperty
	ArrayProperty
	StructProperty
	StrProperty
	TextProperty
	InterfaceProperty
	MulticastDelegateProperty
	WeakObjectProperty
	LazyObjectProperty
	AssetObjectProperty
	SoftObjectProperty
	UInt64Property
	UInt32Property
	UInt16Property
	Int64Property
	Int16Property
	Int8Property
	MapProperty
	SetProperty
	EnumProperty
	FieldPathProperty
	OptionalProperty
	Utf8StrProperty
	AnsiStrProperty
	numKinds
)

var kindNames = [numKinds]string{
	"ByteProperty", "BoolProperty", "IntProperty", "FloatProperty", "ObjectProperty", "NameProperty",
	"DelegateProperty", "DoubleProperty", "ArrayProperty", "StructProperty", "StrProperty", "TextProperty",
	"InterfaceProperty", "MulticastDelegateProperty", "WeakObjectProperty", "LazyObjectProperty",
	"AssetObjectProperty", "SoftObjectProperty", "UInt64Property", "UInt32Property", "UInt16Property",
	"Int64Property", "Int16Property", "Int8Property", "MapProperty", "SetProperty", "EnumProperty",
	"FieldPathProperty", "OptionalProperty", "Utf8StrProperty", "AnsiStrProperty",
}

// String returns the engine's name of the type, e.g. "IntProperty".
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Type is a property's type tree: its kind, the struct of a
// StructProperty, the enum of an EnumProperty (and of a ByteProperty of an
// enum, whose Enum is set only when the file names one), the element type
// of an array, set or optional and the enum's underlying type (Inner), and
// a map's key (Inner) and value (Value).
type Type struct {
	Kind   Kind   `json:"kind"`
	Struct string `json:"struct,omitempty"`
	Enum   string `json:"enum,omitempty"`
	Inner  *Type  `json:"inner,omitempty"`
	Value  *Type  `json:"value,omitempty"`
}

// String returns the tree as text, e.g. "ArrayProperty(StructProperty(Vector))".
func (t *Type) String() string {
	if t == nil {
		return "<nil>"
	}
	s := t.Kind.String()
	var params []string
	switch t.Kind {
	case StructProperty:
		params = []string{t.Struct}
	case EnumProperty:
		params = []string{t.Enum, t.Inner.String()}
	case ArrayProperty, SetProperty, OptionalProperty:
		params = []string{t.Inner.String()}
	case MapProperty:
		params = []string{t.Inner.String(), t.Value.String()}
	case ByteProperty:
		if t.Enum != "" {
			params = []string{t.Enum}
		}
	}
	if len(params) > 0 {
		s += "(" + strings.Join(params, ",") + ")"
	}
	return s
}

// Struct returns the struct or class named name (case-insensitive, as
// FNames compare), or nil; with sources (With), what they give for a name
// the file lacks (nil when they fail: Schema says why).
func (m *Mappings) Struct(name string) *Struct {
	s, _ := m.lookupStruct(name)
	return s
}

// Enum returns the enum named name (case-insensitive), or nil; with
// sources (With), what they give for a name the file lacks.
func (m *Mappings) Enum(name string) *Enum {
	if e := m.enums[strings.ToLower(name)]; e != nil {
		return e
	}
	for _, src := range m.srcs {
		if e, err := src.Enum(name); e != nil || err != nil {
			return e
		}
	}
	return nil
}

// maxSuperChain is how many supers Schema follows before it calls the
// chain a loop.
const maxSuperChain = 256

// Slot is one position of a struct's schema: a property and the element
// of a static array it stands for.
type Slot struct {
	Property   *Property
	ArrayIndex int
	// Owner is the struct that declares the property.
	Owner *Struct
}

// Schema returns the schema of the struct or class named name: the slots
// of its own properties, then of its super's, and so on up the chain, as
// unversioned properties count them. It fails when a struct of the chain
// is missing or the chain loops. Schemas are made once and shared: the
// caller must not modify the slice. It is safe for concurrent use, as
// long as the Mappings' structs are not changed.
func (m *Mappings) Schema(name string) ([]Slot, error) {
	m.mu.Lock()
	s, ok := m.schemas[name]
	m.mu.Unlock()
	if ok {
		return s, nil
	}
	if m.base != nil {
		// Whatever the file holds whole is cached once, in the base.
		if s, err := m.base.Schema(name); err == nil || !errors.Is(err, ErrMissing) {
			return s, err
		}
	}
	s, err := m.schema(name)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.schemas == nil {
		m.schemas = map[string][]Slot{}
	}
	m.schemas[name] = s
	m.mu.Unlock()
	return s, nil
}

// schema builds Schema's result.
func (m *Mappings) schema(name string) ([]Slot, error) {
	var slots []Slot
	seen := map[*Struct]bool{}
	for n := name; n != ""; {
		s, err := m.lookupStruct(n)
		if err != nil {
			if n == name {
				return nil, fmt.Errorf("struct or class %q: %w", name, err)
			}
			return nil, fmt.Errorf("struct or class %q, the super of %s's chain: %w", n, name, err)
		}
		if s == nil {
			if n == name {
				return nil, fmt.Errorf("the mappings have no struct or class %q: %w", name, ErrMissing)
			}
			return nil, fmt.Errorf("the mappings have no struct or class %q, the super of %s's chain: %w", n, name, ErrMissing)
		}
		if seen[s] || len(seen) == maxSuperChain {
			return nil, fmt.Errorf("the super chain of %q loops at %q: %w", name, n, ue.ErrCorrupt)
		}
		seen[s] = true
		own := make([]Slot, s.PropertyCount)
		for _, p := range s.Properties {
			for j := 0; j < p.ArrayDim; j++ {
				if k := p.Index + j; k < len(own) {
					own[k] = Slot{Property: p, ArrayIndex: j, Owner: s}
				}
			}
		}
		slots = append(slots, own...)
		n = s.Super
	}
	return slots, nil
}

// ErrMissing means the mappings lack a struct, class or enum that a
// package needs.
var ErrMissing = errors.New("not in the mappings")

// MaxFileSize is the largest .usmap file Open reads (real ones are a few
// MiB; the payload limit is Options.MaxPayload).
const MaxFileSize = 256 << 20

// Open reads the .usmap file name, refusing anything but a regular file and
// a file larger than MaxFileSize.
func Open(name string, opts *Options) (*Mappings, error) {
	data, err := safefile.ReadRegular(name, MaxFileSize, "a .usmap file")
	if err != nil {
		return nil, err
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = name
	}
	return Read(data, &o)
}

// Read decodes a .usmap file held in data.
func Read(data []byte, opts *Options) (*Mappings, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxPayload <= 0 {
		o.MaxPayload = DefaultMaxPayload
	}
	r := &reader{file: o.Name}
	c := r.cursor(data)
	m := &Mappings{}
	at := c.Pos()
	if magic := c.U16("magic"); c.Err() == nil && magic != Magic {
		return nil, r.errorAt(at, "header", ue.ErrCorrupt, "magic 0x%04X is not 0x%04X: not a .usmap file", magic, Magic)
	}
	at = c.Pos()
	m.Version = Version(c.U8("version"))
	if c.Err() != nil {
		return nil, r.fail(c, "header")
	}
	if m.Version > LatestVersion {
		return nil, r.errorAt(at, "header", ue.ErrUnsupportedVersion, "version %d (this reader knows 0 to %d)", m.Version, LatestVersion)
	}
	if m.Version >= VersionPackageVersioning {
		at := c.Pos()
		has := c.U32("has versioning")
		if c.Err() == nil && has > 1 {
			return nil, r.errorAt(at, "header", ue.ErrCorrupt, "has-versioning bool %d is neither 0 nor 1", has)
		}
		if has == 1 {
			v := &Versioning{FileVersionUE4: c.I32("UE4 file version"), FileVersionUE5: c.I32("UE5 file version")}
			n := c.Count32("custom version count", 20)
			v.CustomVersions = make([]CustomVersion, n)
			for i := range v.CustomVersions {
				copy(v.CustomVersions[i].Key[:], c.Bytes(16, "custom version key"))
				v.CustomVersions[i].Version = c.I32("custom version")
			}
			v.NetCL = c.U32("net CL")
			m.Versioning = v
		}
	}
	at = c.Pos()
	m.Compression = Compression(c.U8("compression method"))
	compSize := c.U32("compressed size")
	size := c.U32("decompressed size")
	if c.Err() != nil {
		return nil, r.fail(c, "header")
	}
	if int64(size) > int64(o.MaxPayload) {
		return nil, r.errorAt(at+5, "header", ue.ErrCorrupt, "decompressed size %d is beyond the limit of %d bytes", size, o.MaxPayload)
	}
	if int64(compSize) > int64(c.Len()) {
		return nil, r.errorAt(at+1, "header", ue.ErrCorrupt, "compressed size %d; %d bytes left", compSize, c.Len())
	}
	payloadAt := c.Pos()
	src := c.Bytes(int(compSize), "payload")
	payload, err := decompress(m.Compression, src, int(size), &o)
	if err != nil {
		return nil, &ue.FormatError{File: r.file, Struct: "payload (" + m.Compression.String() + ")", Offset: int64(payloadAt), Msg: err.Error(), Err: err}
	}
	if err := r.payload(m, payload); err != nil {
		return nil, err
	}
	return m, nil
}

// decompress decodes the payload to exactly size bytes.
func decompress(method Compression, src []byte, size int, o *Options) ([]byte, error) {
	switch method {
	case CompressionNone:
		if len(src) != size {
			return nil, fmt.Errorf("uncompressed payload of %d bytes claims %d: %w", len(src), size, ue.ErrCorrupt)
		}
		return src, nil
	case CompressionOodle:
		codec, ok := o.Codecs.Lookup("Oodle")
		if !ok || codec.Decompress == nil {
			return nil, ErrOodleUnavailable
		}
		dst := make([]byte, size, size+ue.DecompressSlack)
		if err := codec.Decompress(dst, src); err != nil {
			return nil, fmt.Errorf("Oodle: %w: %w", err, ue.ErrCorrupt)
		}
		return dst, nil
	case CompressionBrotli:
		return readAll(brotli.NewReader(bytes.NewReader(src)), size, "Brotli")
	case CompressionZstandard:
		d, err := zstd.NewReader(bytes.NewReader(src), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(size)+1<<10))
		if err != nil {
			return nil, err
		}
		defer d.Close()
		return readAll(d, size, "Zstandard")
	}
	return nil, fmt.Errorf("compression method %d: %w", uint8(method), ue.ErrUnsupportedMethod)
}

// readAll reads exactly size bytes from r and checks that r ends there.
func readAll(r io.Reader, size int, method string) ([]byte, error) {
	dst := make([]byte, size)
	if _, err := io.ReadFull(r, dst); err != nil {
		return nil, fmt.Errorf("%s stream ends before %d bytes: %v: %w", method, size, err, ue.ErrCorrupt)
	}
	var one [1]byte
	if n, _ := r.Read(one[:]); n != 0 {
		return nil, fmt.Errorf("%s stream decodes to more than the %d bytes the header claims: %w", method, size, ue.ErrCorrupt)
	}
	return dst, nil
}

// reader decodes one file.
type reader struct {
	file  string
	names []string
	ver   Version
}

func (r *reader) cursor(b []byte) *binio.Cursor {
	c := binio.NewCursor(b, 0)
	c.SetKind(ue.ErrCorrupt)
	return c
}

func (r *reader) errorAt(off int, structure string, kind error, format string, args ...any) error {
	return &ue.FormatError{File: r.file, Struct: structure, Offset: int64(off), Msg: fmt.Sprintf(format, args...), Err: kind}
}

func (r *reader) fail(c *binio.Cursor, structure string) error {
	err := c.Err()
	if what, off, msg, ok := binio.Describe(err); ok {
		return &ue.FormatError{File: r.file, Struct: structure, Offset: off, Msg: what + ": " + msg, Err: err}
	}
	return &ue.FormatError{File: r.file, Struct: structure, Offset: int64(c.Pos()), Msg: fmt.Sprint(err), Err: ue.ErrCorrupt}
}

// payload decodes the decompressed payload; offsets in its errors count
// from the payload's start.
func (r *reader) payload(m *Mappings, b []byte) error {
	r.ver = m.Version
	c := r.cursor(b)
	const where = "payload name table"
	minName := 1
	if m.Version >= VersionLongFName {
		minName = 2
	}
	n := r.count(c, "name count", minName)
	if c.Err() != nil {
		return r.fail(c, where)
	}
	m.Names = make([]string, n)
	for i := range m.Names {
		var l int
		if m.Version >= VersionLongFName {
			l = int(c.U16("name length"))
		} else {
			l = int(c.U8("name length"))
		}
		m.Names[i] = string(c.Bytes(l, "name"))
		if c.Err() != nil {
			return r.fail(c, fmt.Sprintf("payload name %d", i))
		}
	}
	r.names = m.Names

	// An enum is at least a name and an entry count.
	n = r.count(c, "enum count", 5)
	if c.Err() != nil {
		return r.fail(c, "payload enums")
	}
	m.Enums = make([]*Enum, 0, n)
	m.enums = make(map[string]*Enum, n)
	for i := 0; i < n; i++ {
		e := &Enum{}
		e.Name, _ = r.name(c, "enum name", false)
		var entries int
		entrySize := 4
		if m.Version >= VersionExplicitEnumValues {
			entrySize = 12
		}
		at := c.Pos()
		if m.Version >= VersionLargeEnums {
			entries = int(c.U16("enum entry count"))
		} else {
			entries = int(c.U8("enum entry count"))
		}
		if c.Err() == nil && entries*entrySize > c.Len() {
			c.FailAt(at, "enum entry count", fmt.Errorf("%d entries need %d bytes, %d left", entries, entries*entrySize, c.Len()))
		}
		if c.Err() != nil {
			return r.fail(c, fmt.Sprintf("payload enum %d (%s)", i, e.Name))
		}
		e.Entries = make([]EnumEntry, entries)
		for j := range e.Entries {
			v := uint64(j)
			if m.Version >= VersionExplicitEnumValues {
				v = c.U64("enum value")
			}
			e.Entries[j].Value = v
			e.Entries[j].Name, _ = r.name(c, "enum entry name", false)
		}
		if c.Err() != nil {
			return r.fail(c, fmt.Sprintf("payload enum %d (%s)", i, e.Name))
		}
		m.Enums = append(m.Enums, e)
		// The first of duplicated names wins, as the engine's readers do.
		if k := strings.ToLower(e.Name); m.enums[k] == nil {
			m.enums[k] = e
		}
	}

	// A struct is at least two names and two counts.
	n = r.count(c, "struct count", 12)
	if c.Err() != nil {
		return r.fail(c, "payload structs")
	}
	m.Structs = make([]*Struct, 0, n)
	m.structs = make(map[string]*Struct, n)
	for i := 0; i < n; i++ {
		s, err := r.structure(c, i)
		if err != nil {
			return err
		}
		m.Structs = append(m.Structs, s)
		if k := strings.ToLower(s.Name); m.structs[k] == nil {
			m.structs[k] = s
		}
	}
	m.Extra = b[c.Pos():]
	return nil
}

// count reads a uint32 count of elements of at least minSize bytes.
func (r *reader) count(c *binio.Cursor, what string, minSize int) int {
	at := c.Pos()
	n := c.U32(what)
	if c.Err() != nil {
		return 0
	}
	if int64(n)*int64(minSize) > int64(c.Len()) {
		c.FailAt(at, what, fmt.Errorf("count %d needs at least %d bytes, %d left", n, int64(n)*int64(minSize), c.Len()))
		return 0
	}
	return int(n)
}

// name reads a name-table index; -1 is no name ("" and ok true when
// none is allowed).
func (r *reader) name(c *binio.Cursor, what string, none bool) (string, bool) {
	at := c.Pos()
	i := c.I32(what)
	if c.Err() != nil {
		return "", false
	}
	if i == -1 && none {
		return "", true
	}
	if i < 0 || int64(i) >= int64(len(r.names)) {
		c.FailAt(at, what, fmt.Errorf("name index %d outside the %d names", i, len(r.names)))
		return "", false
	}
	return r.names[i], true
}

// maxTypeDepth is how deep a property's type tree may nest.
const maxTypeDepth = 32

// structure reads struct i.
func (r *reader) structure(c *binio.Cursor, i int) (*Struct, error) {
	s := &Struct{}
	s.Name, _ = r.name(c, "struct name", false)
	where := func() string { return fmt.Sprintf("payload struct %d (%s)", i, s.Name) }
	s.Super, _ = r.name(c, "super struct name", true)
	s.PropertyCount = int(c.U16("property count"))
	at := c.Pos()
	// A property is at least an index, an array size, a name and a kind.
	n := int(c.U16("serializable property count"))
	if c.Err() == nil && n*8 > c.Len() {
		c.FailAt(at, "serializable property count", fmt.Errorf("%d properties need %d bytes, %d left", n, n*8, c.Len()))
	}
	if c.Err() != nil {
		return nil, r.fail(c, where())
	}
	s.Properties = make([]*Property, 0, n)
	for j := 0; j < n; j++ {
		at := c.Pos()
		p := &Property{Index: int(c.U16("property index")), ArrayDim: int(c.U8("property array size"))}
		p.Name, _ = r.name(c, "property name", false)
		p.Type = r.typ(c, 0)
		if c.Err() != nil {
			return nil, r.fail(c, where()+" property "+p.Name)
		}
		if p.ArrayDim == 0 || p.Index+p.ArrayDim > s.PropertyCount {
			return nil, r.errorAt(at, where(), ue.ErrCorrupt, "property %s takes slots %d to %d of the struct's %d",
				p.Name, p.Index, p.Index+p.ArrayDim-1, s.PropertyCount)
		}
		s.Properties = append(s.Properties, p)
	}
	return s, nil
}

// typ reads a type tree.
func (r *reader) typ(c *binio.Cursor, depth int) *Type {
	at := c.Pos()
	t := &Type{Kind: Kind(c.U8("property type"))}
	if c.Err() != nil {
		return t
	}
	if depth >= maxTypeDepth {
		c.FailAt(at, "property type", fmt.Errorf("type tree nested more than %d levels", maxTypeDepth))
		return t
	}
	switch t.Kind {
	case EnumProperty:
		t.Inner = r.typ(c, depth+1)
		t.Enum, _ = r.name(c, "enum name", true)
	case StructProperty:
		t.Struct, _ = r.name(c, "struct name", false)
	case SetProperty, ArrayProperty, OptionalProperty:
		t.Inner = r.typ(c, depth+1)
	case MapProperty:
		t.Inner = r.typ(c, depth+1)
		t.Value = r.typ(c, depth+1)
	default:
		if t.Kind >= numKinds {
			c.FailAt(at, "property type", fmt.Errorf("unknown property type %d", uint8(t.Kind)))
		}
	}
	return t
}

// ShortName turns an object path or a class name as resolvers print it
// ("/Script/Engine.DataTable", "ScriptStruct'/Script/Mod.Row'",
// "DataTable") into the name the mappings know the struct or class by
// ("DataTable", "Row").
func ShortName(path string) string {
	path = strings.TrimSuffix(path, "'")
	if i := strings.LastIndexAny(path, "./:'"); i >= 0 {
		path = path[i+1:]
	}
	return path
}
