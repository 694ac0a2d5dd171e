package zen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/ue"
)

// This file decodes and encodes the global script objects: the names and
// identities of the native objects (/Script/...) that zen packages import by
// hash (ScriptImport object indices). They live in the global container
// (global.utoc/.ucas), in one of two forms (docs/iostore.md §1.4, §6.1):
//
//   - UE5: one ScriptObjects chunk: a name batch (separated format), then an
//     int32 count and that many 32-byte FScriptObjectEntry {FMappedName
//     ObjectName, FPackageObjectIndex GlobalIndex, OuterIndex, CDOClassIndex}.
//   - UE 4.26/4.27: three chunks: LoaderGlobalNames (the names as an
//     interleaved blob), LoaderGlobalNameHashes (algorithm id and one hash
//     per name; the number of names is the number of hashes) and
//     LoaderInitialLoadMeta (int32 count and the same 32-byte entries,
//     nothing after them in engine-written files).
//
// Every multi-byte value is little-endian. Object names are FMappedNames of
// map type Global (2) indexing the names. An object with a null outer is a
// script package ("/Script/Engine"); every object's GlobalIndex is
// cityhash.ScriptImportIndex of its path.

// ScriptObjectEntry is one FScriptObjectEntry: a native object's name, its
// ScriptImport index (GlobalIndex), its outer (null for a script package)
// and, for a class default object, the index of its class (null otherwise).
type ScriptObjectEntry struct {
	Name     MappedName  `json:"name"`
	Index    ObjectIndex `json:"index"`
	Outer    ObjectIndex `json:"outer"`
	CDOClass ObjectIndex `json:"cdo_class"`
}

// scriptObjectSize is the size of an FScriptObjectEntry.
const scriptObjectSize = 32

// MaxScriptPathDepth is how many outers Path follows: an object nested
// deeper (or whose outers form a loop) has no path. Engine script objects
// are at most a few levels deep.
const MaxScriptPathDepth = 64

// MaxScriptPathLength is the longest path (in bytes of UTF-8) Path builds;
// longer ones have no path. It bounds the memory a crafted chunk can make
// Path and Problems use.
const MaxScriptPathLength = 4096

// ScriptObjects is the decoded global script objects of either form. It
// holds everything the chunks hold, so that an unchanged value encodes back
// byte for byte: AppendBinary (UE5 chunk) and EncodeUE4 (4.2x chunks).
// Parts whose bytes are not in the layout the encoders produce (stale name
// hashes, another hash algorithm id, bytes after the names; see KeptRaw)
// are written from their original bytes while Names is unchanged.
//
// Find, Path and ObjectName use an index built by the decoder; after
// changing Objects or Names, call Reindex. Lookups are safe for concurrent
// use; changing the value is not.
type ScriptObjects struct {
	// UE4 reports the form decoded: the 4.26/4.27 chunks (true) or the UE5
	// ScriptObjects chunk. Both encoders work whatever the form, so a set
	// can be converted; kept raw bytes exist only for the form decoded.
	UE4 bool `json:"ue4"`
	// Names is the global name map that object names index, in file order.
	// The encoders write their hashes with cityhash.NameHash.
	Names []string `json:"names"`
	// Objects are the script objects in file order.
	Objects []ScriptObjectEntry `json:"objects"`
	// Trailing holds bytes after the last object (UE5: of the ScriptObjects
	// chunk; 4.2x: of LoaderInitialLoadMeta); the encoders append them.
	Trailing []byte `json:"trailing,omitempty"`

	kept [soPartCount]*soKept

	mu    sync.Mutex
	index map[ObjectIndex]int32 // first object with each Index
	paths []soPath              // lazily resolved, see resolve
}

// The parts whose bytes may be kept raw.
type soPart int

const (
	soNameBatch  soPart = iota // UE5 name batch
	soNamesBlob                // 4.2x LoaderGlobalNames chunk
	soNameHashes               // 4.2x LoaderGlobalNameHashes chunk
	soPartCount
)

var soPartNames = [soPartCount]string{"name batch", "LoaderGlobalNames", "LoaderGlobalNameHashes"}

// soKept holds a part's original bytes and the canonical encoding of the
// decoded Names; the encoder writes raw while Names still encodes to canon.
type soKept struct{ canon, raw []byte }

// soPath is the resolution state of one object's path.
type soPath struct {
	state uint8  // soUnknown, soWalking, soOK or a failure (soBad...)
	depth uint8  // levels below the script package (0 for the package)
	path  string // set when state is soOK
}

const (
	soUnknown uint8 = iota
	soWalking
	soOK
	soBadName     // the object's name does not resolve
	soBadOuter    // the outer is not a script object
	soBadLoop     // the outers loop back to the object
	soBadDepth    // more than MaxScriptPathDepth outers
	soBadLength   // the path is longer than MaxScriptPathLength
	soBadAncestor // an outer further up has no path
)

// Errors. Decoding returns *ue.FormatError values whose Struct starts with
// "script objects " and whose Offset is within the chunk named (the UE5
// ScriptObjects chunk, or for 4.2x the chunk named after "script objects");
// they wrap ErrCorrupt.

// DecodeScriptObjects decodes a UE5 ScriptObjects chunk (the uncompressed
// bytes of the global container's chunk of type ScriptObjects). name
// identifies the source in error messages.
func DecodeScriptObjects(name string, data []byte) (*ScriptObjects, error) {
	c := binio.NewCursor(data, 0)
	c.SetKind(ErrCorrupt)
	s := &ScriptObjects{}
	s.Names, _, _ = decodeNameBatch(c, "name batch")
	if c.Err() != nil {
		return nil, cursorError(name, "script objects ", c.Err())
	}
	batchEnd := c.Pos()
	s.Objects = decodeScriptObjectEntries(c)
	if c.Err() != nil {
		return nil, cursorError(name, "script objects ", c.Err())
	}
	s.Trailing = trailingBytes(data, c.Pos())
	canon, err := appendNameBatch(nil, s.Names, "script objects ", "name batch")
	if err != nil { // decoding builds only encodable names; report rather than panic
		return nil, errorf(name, "script objects name batch", 0, ErrCorrupt, "decoded names cannot be encoded again: %v", err)
	}
	s.keep(soNameBatch, canon, data[:batchEnd])
	s.Reindex()
	return s, nil
}

// DecodeScriptObjectsUE4 decodes the three UE 4.26/4.27 global chunks:
// LoaderGlobalNames (names), LoaderGlobalNameHashes (hashes) and
// LoaderInitialLoadMeta (meta). name identifies the source in error
// messages, whose Struct names the chunk at fault. The hashes chunk decides
// how many names there are, as in the engine: (size - 8) / 8.
func DecodeScriptObjectsUE4(name string, names, hashes, meta []byte) (*ScriptObjects, error) {
	s := &ScriptObjects{UE4: true}

	// LoaderGlobalNameHashes: uint64 algorithm id, one uint64 per name.
	if len(hashes) < 8 || len(hashes)%8 != 0 {
		return nil, errorf(name, "script objects LoaderGlobalNameHashes", 0, ErrCorrupt,
			"%d bytes are not an 8-byte algorithm id followed by 8-byte hashes", len(hashes))
	}
	n := len(hashes)/8 - 1

	// LoaderGlobalNames: n names, interleaved; bytes after them are kept raw.
	c := binio.NewCursor(names, 0)
	c.SetKind(ErrCorrupt)
	s.Names, _ = decodeNameBlobN(c, names, n)
	if c.Err() != nil {
		return nil, cursorError(name, "script objects LoaderGlobalNames ", c.Err())
	}

	// LoaderInitialLoadMeta: int32 count, the entries, anything after.
	c = binio.NewCursor(meta, 0)
	c.SetKind(ErrCorrupt)
	s.Objects = decodeScriptObjectEntries(c)
	if c.Err() != nil {
		return nil, cursorError(name, "script objects LoaderInitialLoadMeta ", c.Err())
	}
	s.Trailing = trailingBytes(meta, c.Pos())

	if err := checkNames(s.Names, "script objects LoaderGlobalNames "); err != nil {
		return nil, errorf(name, "script objects LoaderGlobalNames", 0, ErrCorrupt, "decoded names cannot be encoded again: %v", err)
	}
	s.keep(soNamesBlob, appendNameBlob(nil, s.Names, 0), names)
	s.keep(soNameHashes, appendNameHashes(nil, s.Names), hashes)
	s.Reindex()
	return s, nil
}

// decodeNameBlobN decodes the first n names of a 4.2x names blob (see
// decodeNameBlob) and returns them with the position after the last one.
func decodeNameBlobN(c *binio.Cursor, b []byte, n int) ([]string, int) {
	if int64(n)*2 > int64(len(b)) {
		c.FailAt(0, "names", fmt.Errorf("%d names (one per hash) need at least %d bytes, the chunk has %d", n, 2*n, len(b)))
		return nil, 0
	}
	if n == 0 {
		return nil, 0
	}
	out := make([]string, n)
	p := 0
	for i := range out {
		if len(b)-p < 2 {
			c.FailAt(p, fmt.Sprintf("name %d", i), fmt.Errorf("header truncated: the chunk ends after %d of the %d names its hashes count", i, n))
			return nil, 0
		}
		wide, l := nameHeader(b[p], b[p+1])
		p += 2
		if wide && p%2 == 1 {
			p++
		}
		size := l
		if wide {
			size = 2 * l
		}
		if size > len(b)-p {
			c.FailAt(p, fmt.Sprintf("name %d", i), fmt.Errorf("%d characters run past the end of the chunk", l))
			return nil, 0
		}
		out[i] = nameString(b[p:p+size], wide)
		p += size
	}
	return out, p
}

// decodeScriptObjectEntries reads the int32 count and the entries.
func decodeScriptObjectEntries(c *binio.Cursor) []ScriptObjectEntry {
	n := c.Count32("object count", scriptObjectSize)
	if c.Err() != nil || n == 0 {
		return nil
	}
	b := c.Bytes(n*scriptObjectSize, "objects")
	if c.Err() != nil {
		return nil
	}
	le := binary.LittleEndian
	out := make([]ScriptObjectEntry, n)
	for i := range out {
		e := b[i*scriptObjectSize:]
		out[i] = ScriptObjectEntry{
			Name:     MappedName{IndexAndType: le.Uint32(e), Number: le.Uint32(e[4:])},
			Index:    ObjectIndex(le.Uint64(e[8:])),
			Outer:    ObjectIndex(le.Uint64(e[16:])),
			CDOClass: ObjectIndex(le.Uint64(e[24:])),
		}
	}
	return out
}

func trailingBytes(data []byte, end int) []byte {
	if end < len(data) {
		return bytes.Clone(data[end:])
	}
	return nil
}

// keep records raw as part p's bytes when they differ from canon.
func (s *ScriptObjects) keep(p soPart, canon, raw []byte) {
	if !bytes.Equal(canon, raw) {
		s.kept[p] = &soKept{canon: canon, raw: bytes.Clone(raw)}
	}
}

// KeptRaw names the parts whose original bytes the encoders write because
// they are not laid out as the encoders would lay out Names (e.g. stale
// name hashes, another hash algorithm id, bytes after the 4.2x names).
// Engine-written chunks have none.
func (s *ScriptObjects) KeptRaw() []string {
	var out []string
	for p, k := range s.kept {
		if k != nil {
			out = append(out, soPartNames[p])
		}
	}
	return out
}

// applyKept replaces the canonical bytes dst[start:] of part p with the
// kept raw bytes when they are still what Names encodes to.
func (s *ScriptObjects) applyKept(dst []byte, start int, p soPart) []byte {
	if k := s.kept[p]; k != nil && bytes.Equal(dst[start:], k.canon) {
		return append(dst[:start], k.raw...)
	}
	return dst
}

// keptRaw returns part p's raw bytes when the encoder would write them.
func (s *ScriptObjects) keptRaw(p soPart) []byte {
	k := s.kept[p]
	if k == nil {
		return nil
	}
	var canon []byte
	var err error
	switch p {
	case soNameBatch:
		canon, err = appendNameBatch(nil, s.Names, "script objects ", "name batch")
	case soNamesBlob:
		canon = appendNameBlob(nil, s.Names, 0)
	case soNameHashes:
		canon = appendNameHashes(nil, s.Names)
	}
	if err != nil || !bytes.Equal(canon, k.canon) {
		return nil
	}
	return k.raw
}

// Encoding.

// AppendBinary appends the UE5 ScriptObjects chunk to dst: the name batch,
// the object count and entries, then Trailing. An unchanged value decoded
// by DecodeScriptObjects comes out byte for byte. It refuses, with a
// *ue.FormatError wrapping ErrNotEncodable, names too long for a name header
// and counts beyond the format's limits.
func (s *ScriptObjects) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst, err := appendNameBatch(dst, s.Names, "script objects ", "name batch")
	if err != nil {
		return nil, err
	}
	dst = s.applyKept(dst, start, soNameBatch)
	dst, err = s.appendObjects(dst)
	if err != nil {
		return nil, err
	}
	return append(dst, s.Trailing...), nil
}

// EncodeUE4 returns the three UE 4.26/4.27 chunks: LoaderGlobalNames,
// LoaderGlobalNameHashes and LoaderInitialLoadMeta (objects, then
// Trailing). An unchanged value decoded by DecodeScriptObjectsUE4 comes out
// byte for byte.
func (s *ScriptObjects) EncodeUE4() (names, hashes, meta []byte, err error) {
	if err := checkNames(s.Names, "script objects "); err != nil {
		return nil, nil, nil, err
	}
	names = appendNameBlob(nil, s.Names, 0)
	hashes = appendNameHashes(make([]byte, 0, 8+8*len(s.Names)), s.Names)
	names = s.applyKept(names, 0, soNamesBlob)
	hashes = s.applyKept(hashes, 0, soNameHashes)
	meta, err = s.appendObjects(make([]byte, 0, 4+scriptObjectSize*len(s.Objects)+len(s.Trailing)))
	if err != nil {
		return nil, nil, nil, err
	}
	return names, hashes, append(meta, s.Trailing...), nil
}

func (s *ScriptObjects) appendObjects(dst []byte) ([]byte, error) {
	if len(s.Objects) > math.MaxInt32 {
		return nil, encodeError("script objects object count", "%d objects exceed the format's int32 count", len(s.Objects))
	}
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, uint32(len(s.Objects)))
	for _, o := range s.Objects {
		dst = appendMappedName(dst, o.Name)
		dst = le.AppendUint64(dst, uint64(o.Index))
		dst = le.AppendUint64(dst, uint64(o.Outer))
		dst = le.AppendUint64(dst, uint64(o.CDOClass))
	}
	return dst, nil
}

// Lookup.

// Reindex rebuilds the lookup index behind Find, Path and ObjectName and
// drops the cached paths; call it after changing Objects or Names.
func (s *ScriptObjects) Reindex() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reindex()
	s.paths = nil
}

// reindex builds the index; s.mu must be held.
func (s *ScriptObjects) reindex() {
	s.index = make(map[ObjectIndex]int32, len(s.Objects))
	for i := len(s.Objects) - 1; i >= 0; i-- { // the first of duplicates wins
		s.index[s.Objects[i].Index] = int32(i)
	}
}

// Len returns the number of script objects.
func (s *ScriptObjects) Len() int { return len(s.Objects) }

// find returns the position in Objects of the object with index x, or -1.
// A value built without the decoder is indexed on first use; an entry made
// stale by changing Objects without Reindex is not found. s.mu must be
// held.
func (s *ScriptObjects) find(x ObjectIndex) int {
	if s.index == nil {
		s.reindex()
	}
	if x.IsNull() {
		return -1
	}
	i, ok := s.index[x]
	if !ok || int(i) >= len(s.Objects) || s.Objects[i].Index != x {
		return -1
	}
	return int(i)
}

// Find returns the script object whose Index is x (the first one, should
// the index appear twice).
func (s *ScriptObjects) Find(x ObjectIndex) (ScriptObjectEntry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.find(x); i >= 0 {
		return s.Objects[i], true
	}
	return ScriptObjectEntry{}, false
}

// Name resolves a global FMappedName against Names, adding the engine's
// "_<number-1>" suffix for a non-zero number. It reports false for an
// index outside Names or a map type other than Global.
func (s *ScriptObjects) Name(n MappedName) (string, bool) {
	if n.MapType() != 2 || int64(n.Index()) >= int64(len(s.Names)) {
		return "", false
	}
	if n.Number == 0 {
		return s.Names[n.Index()], true
	}
	return s.Names[n.Index()] + "_" + strconv.FormatUint(uint64(n.Number)-1, 10), true
}

// ObjectName returns the name (with number suffix) of the script object
// whose Index is x, e.g. "Actor" or "/Script/Engine" for a package.
func (s *ScriptObjects) ObjectName(x ObjectIndex) (string, bool) {
	o, ok := s.Find(x)
	if !ok {
		return "", false
	}
	return s.Name(o.Name)
}

// Path returns the engine's path name of the script object whose Index is
// x: the outermost object is the script package ("/Script/Engine"), its
// objects follow after '.' ("/Script/Engine.Actor",
// "/Script/Engine.Default__Actor"), their subobjects after ':'
// ("/Script/Foo.Outer:Inner") and anything deeper after '.' again, as
// UObject path names are built. It reports false when x is not a script
// object or its path cannot be built: a name that does not resolve, an
// outer that is not a script object, outers that loop, more than
// MaxScriptPathDepth outers or a path longer than MaxScriptPathLength.
// Paths are built on first use and cached.
func (s *ScriptObjects) Path(x ObjectIndex) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.find(x)
	if i < 0 {
		return "", false
	}
	p := s.resolve(i)
	return p.path, p.state == soOK
}

// resolve returns object i's path state, resolving it and the outers it
// needs. Every object is walked O(MaxScriptPathDepth) times at most, so
// resolving all of them is linear. s.mu must be held.
func (s *ScriptObjects) resolve(i int) soPath {
	if len(s.paths) != len(s.Objects) {
		s.paths = make([]soPath, len(s.Objects))
	}
	if st := s.paths[i].state; st != soUnknown {
		return s.paths[i]
	}
	// Walk up from i until an object whose state is known, a package, a
	// missing outer or a loop; stack holds the objects to resolve, i first.
	var stackBuf [MaxScriptPathDepth + 2]int
	stack := stackBuf[:0]
	j := i
	top := soUnknown // what ends the walk, for the last object on the stack
	for {
		if len(stack) == MaxScriptPathDepth+2 {
			top = soBadDepth
			break
		}
		st := s.paths[j].state
		if st == soWalking {
			top = soBadLoop
			break
		}
		if st != soUnknown {
			break // stack top's outer is resolved (or failed)
		}
		s.paths[j].state = soWalking
		stack = append(stack, j)
		o := s.Objects[j].Outer
		if o.IsNull() {
			break // a script package
		}
		k := s.find(o)
		if k < 0 {
			top = soBadOuter
			break
		}
		j = k
	}
	if top == soBadDepth {
		// The chain from i is too deep (or a long loop); only i's depth is
		// known to exceed the limit: the others are walked again when asked.
		for _, k := range stack[1:] {
			s.paths[k].state = soUnknown
		}
		s.paths[i] = soPath{state: soBadDepth}
		return s.paths[i]
	}
	if top == soBadLoop {
		// j is on the stack: it and every object above it form the loop;
		// those below lead into it.
		inLoop := false
		for _, k := range stack {
			if k == j {
				inLoop = true
			}
			if inLoop {
				s.paths[k] = soPath{state: soBadLoop}
			} else {
				s.paths[k] = soPath{state: soBadAncestor}
			}
		}
		return s.paths[i]
	}
	for n := len(stack) - 1; n >= 0; n-- {
		k := stack[n]
		s.paths[k] = s.buildPath(k, n == len(stack)-1 && top == soBadOuter)
	}
	return s.paths[i]
}

// buildPath builds object k's path from its outer's resolved one.
func (s *ScriptObjects) buildPath(k int, outerMissing bool) soPath {
	o := s.Objects[k]
	name, ok := s.Name(o.Name)
	switch {
	case outerMissing:
		return soPath{state: soBadOuter}
	case !ok:
		return soPath{state: soBadName}
	case o.Outer.IsNull():
		if len(name) > MaxScriptPathLength {
			return soPath{state: soBadLength}
		}
		return soPath{state: soOK, path: name}
	}
	k = s.find(o.Outer)
	if k < 0 { // cannot happen: the walk found it
		return soPath{state: soBadOuter}
	}
	outer := s.paths[k]
	if outer.state != soOK {
		return soPath{state: soBadAncestor}
	}
	if outer.depth >= MaxScriptPathDepth {
		return soPath{state: soBadDepth}
	}
	if len(outer.path)+1+len(name) > MaxScriptPathLength {
		return soPath{state: soBadLength}
	}
	sep := "."
	if outer.depth == 1 {
		sep = ":" // the subobject of a package's object
	}
	return soPath{state: soOK, depth: outer.depth + 1, path: outer.path + sep + name}
}

// Verification.

// Problems reports what an engine-written set never has: stored name
// hashes that are not cityhash.NameHash of their name (or another hash
// algorithm id), bytes after the 4.2x names, object names that do not
// resolve in Names or are not of the Global map, indices that are not
// ScriptImport indices, indices listed twice, outers and CDO classes that
// are not script objects, outers that loop or nest too deep, and — the
// engine's rule — indices that are not cityhash.ScriptImportIndex of the
// object's path. Stored hashes are checked while Names is unchanged since
// decoding (the encoders write the stored bytes then); once it changes,
// the encoders write fresh hashes. Offsets are -1: objects are named by
// their position in Objects.
func (s *ScriptObjects) Problems() []ue.Problem {
	out := s.nameProblems()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, o := range s.Objects {
		add := func(format string, args ...any) { // names the object only when there is a problem
			where := "script object " + strconv.Itoa(i)
			if name, ok := s.Name(o.Name); ok {
				where += " " + strconv.Quote(name)
			}
			out = append(out, ue.Problem{Struct: where, Offset: -1, Msg: fmt.Sprintf(format, args...)})
		}
		if _, ok := s.Name(o.Name); !ok {
			if o.Name.MapType() != 2 {
				add("name map type %d is not Global (2)", o.Name.MapType())
			} else {
				add("name index %d outside the %d global names", o.Name.Index(), len(s.Names))
			}
		}
		if o.Index.Kind() != KindScriptImport {
			add("index %v is a %v reference, not a ScriptImport", o.Index, o.Index.Kind())
		}
		if first := s.find(o.Index); first != i && first >= 0 {
			add("index %v is also that of script object %d", o.Index, first)
		}
		if !o.CDOClass.IsNull() && s.find(o.CDOClass) < 0 {
			add("CDO class %v is not a script object", o.CDOClass)
		}
		p := s.resolve(i)
		switch p.state {
		case soOK:
			if want := ScriptObject(p.path); o.Index != want && o.Index.Kind() == KindScriptImport {
				add("index %v is not the ScriptImport index of its path %q (%v)", o.Index, p.path, want)
			}
		case soBadOuter:
			add("outer %v is not a script object", o.Outer)
		case soBadLoop:
			add("its outers loop back to it")
		case soBadDepth:
			add("more than %d outers (or a loop)", MaxScriptPathDepth)
		case soBadLength:
			add("its path is longer than %d bytes", MaxScriptPathLength)
		case soBadAncestor:
			add("outer %v has no path", o.Outer)
		}
	}
	return out
}

// nameProblems checks the stored hashes the encoders would write raw.
func (s *ScriptObjects) nameProblems() []ue.Problem {
	var out []ue.Problem
	add := func(structure, format string, args ...any) {
		out = append(out, ue.Problem{Struct: structure, Offset: -1, Msg: fmt.Sprintf(format, args...)})
	}
	checkHashes := func(structure string, algorithm uint64, hashes []uint64) {
		if algorithm != cityhash.NameHashAlgorithmID {
			add(structure, "hash algorithm id 0x%X is not 0x%X: the engine ignores the stored hashes", algorithm, cityhash.NameHashAlgorithmID)
			return
		}
		for i, h := range hashes {
			if i < len(s.Names) && h != cityhash.NameHash(s.Names[i]) {
				add(fmt.Sprintf("%s name %d %q", structure, i, s.Names[i]), "stored hash 0x%016x is not the name's hash 0x%016x", h, cityhash.NameHash(s.Names[i]))
			}
		}
	}
	if raw := s.keptRaw(soNameBatch); raw != nil {
		c := binio.NewCursor(raw, 0)
		if _, hashes, algorithm := decodeNameBatch(c, "name batch"); c.Err() == nil && len(hashes) > 0 {
			checkHashes("script objects name batch", algorithm, hashes)
		}
	}
	if raw := s.keptRaw(soNamesBlob); raw != nil {
		c := binio.NewCursor(raw, 0)
		if _, end := decodeNameBlobN(c, raw, len(s.Names)); c.Err() == nil && end < len(raw) {
			add("script objects LoaderGlobalNames", "%d bytes after the %d names the hashes count", len(raw)-end, len(s.Names))
		}
	}
	if raw := s.keptRaw(soNameHashes); raw != nil && len(raw) >= 8 {
		hashes := make([]uint64, (len(raw)-8)/8)
		for i := range hashes {
			hashes[i] = binary.LittleEndian.Uint64(raw[8+8*i:])
		}
		checkHashes("script objects LoaderGlobalNameHashes", binary.LittleEndian.Uint64(raw), hashes)
	}
	return out
}
