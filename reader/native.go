package reader

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/internal/binio"
)

// NativeKind says what unrmod knows about the native data a class appends
// after its property list.
type NativeKind int

// Native kinds.
const (
	// NativeUnknown: a class unrmod does not parse; its native data is
	// scanned for values that look like lazy-array offsets (Suspects).
	NativeUnknown NativeKind = iota
	// NativeNone: a class known to embed no absolute file offsets.
	NativeNone
	// NativeTexture: Texture and subclasses (mip lazy arrays).
	NativeTexture
	// NativeSound: Sound (one lazy byte array).
	NativeSound
	// NativeMusic: Music (one lazy byte array).
	NativeMusic
	// NativeMesh: UE1 Mesh, LodMesh, SkeletalMesh (four lazy arrays).
	NativeMesh
	// NativeModel: UE2 Model (BSP; lightmap lazy arrays), decoded for
	// the versions KnownUE2Layout accepts.
	NativeModel
	// NativeStaticMesh: UE2 StaticMesh (the RawTriangles lazy array).
	NativeStaticMesh
	// NativePolys: UE2 Polys (no offsets), decoded to check its end.
	NativePolys
	// NativeStaticMeshInstance: UE2 StaticMeshInstance (no offsets).
	NativeStaticMeshInstance
)

var nativeKindNames = [...]string{"unknown", "none", "texture", "sound", "music", "mesh",
	"model", "static mesh", "polys", "static mesh instance"}

// ue2Kinds are the UE2 classes decoded when KnownUE2Layout holds.
var ue2Kinds = map[string]NativeKind{
	"model": NativeModel, "staticmesh": NativeStaticMesh, "polys": NativePolys,
	"staticmeshinstance": NativeStaticMeshInstance,
}

func (k NativeKind) String() string {
	if int(k) < len(nativeKindNames) {
		return nativeKindNames[k]
	}
	return fmt.Sprintf("NativeKind(%d)", int(k))
}

// LazyArray is one TLazyArray inside an export's data. From file version 62
// on, it starts with an INT SeekPos that holds the absolute file offset just
// past the array; the engine seeks there after reading the count.
type LazyArray struct {
	Field     string // e.g. "Mips[0]", "Verts"
	SeekPosAt int    // offset of the SeekPos INT in the export data; -1 when the version has none
	SeekPos   int32  // stored value
	Count     int    // element count
	Start     int    // offset of the first element in the export data
	End       int    // offset just past the last element, as parsed
}

// Mip is one texture mip level.
type Mip struct {
	Lazy         LazyArray
	USize, VSize int32
	UBits, VBits byte
}

// NativeLayout is what unrmod found in an export's data beyond the tags.
type NativeLayout struct {
	Kind     NativeKind
	Classes  []string      // the class and its known super classes, most derived first
	Props    *PropertyList // nil for class exports
	Lazy     []LazyArray   // every lazy array found, in data order
	Mips     []Mip         // textures: Mips, then CompMips
	CompMips int           // textures: how many of Mips are CompMips
	// End is the offset where the parsed native layout ends; -1 when the
	// class's data is not parsed to its end.
	End int
	// Suspects are offsets in the data of INT values that look like lazy
	// array offsets inside a class unrmod does not parse.
	Suspects []int
}

var textureClasses = map[string]bool{
	"texture": true, "firetexture": true, "watertexture": true, "wavetexture": true, "wettexture": true,
	"icetexture": true, "fractaltexture": true, "scriptedtexture": true,
}

// noOffsetClasses embed no absolute offsets in any supported version.
var noOffsetClasses = map[string]bool{
	"class": true, "function": true, "state": true, "struct": true, "const": true, "enum": true,
	"textbuffer": true, "package": true, "palette": true, "font": true, "level": true, "levelbase": true,
	"byteproperty": true, "intproperty": true, "boolproperty": true, "floatproperty": true,
	"objectproperty": true, "classproperty": true, "nameproperty": true, "strproperty": true,
	"stringproperty": true, "arrayproperty": true, "structproperty": true, "fixedarrayproperty": true,
	"mapproperty": true, "delegateproperty": true, "pointerproperty": true,
}

// noOffsetClassesUE1 embed no absolute offsets in UE1 (UE2 Model holds lazy
// lightmap arrays).
var noOffsetClassesUE1 = map[string]bool{"model": true, "polys": true}

// ClassChain returns the class of export i and the super classes defined in
// this package, most derived first. An imported class ends the chain.
func (p *Package) ClassChain(i int) []string {
	r := p.Exports[i].Class
	if r == 0 {
		return []string{"Class"}
	}
	var out []string
	for depth := 0; r != 0 && depth < 64; depth++ {
		out = append(out, p.ObjectName(r))
		ei, ok := r.Export()
		if !ok {
			break
		}
		r = p.Exports[ei].Super
	}
	return out
}

// NativeKind returns what unrmod knows about export i's native data, from
// its class alone (without parsing the data).
func (p *Package) NativeKind(i int) NativeKind {
	if p.Exports[i].Class == 0 {
		return NativeNone
	}
	return p.nativeKind(p.ClassChain(i))
}

func (p *Package) nativeKind(chain []string) NativeKind {
	ue1 := p.Header.Version.File < VerUE2
	ue2 := KnownUE2Layout(p.Header.Version)
	for _, c := range chain {
		lc := strings.ToLower(c)
		if k, ok := ue2Kinds[lc]; ok && ue2 {
			return k
		}
		switch {
		case textureClasses[lc]:
			return NativeTexture
		case lc == "sound":
			return NativeSound
		case lc == "music":
			return NativeMusic
		case ue1 && (lc == "mesh" || lc == "lodmesh" || lc == "skeletalmesh"):
			return NativeMesh
		case noOffsetClasses[lc] || ue1 && noOffsetClassesUE1[lc]:
			return NativeNone
		}
	}
	return NativeUnknown
}

// Native decodes the native layout of export i far enough to find every
// embedded absolute file offset. The error describes data that does not parse
// as its class requires; the layout returned with it holds what was found.
func (p *Package) Native(i int) (*NativeLayout, error) { return p.native(i, true) }

// native is Native; without keepProps the layout's Props holds where the
// tag list starts and ends but not its tags, unless the native decoder
// needs them (a texture's size), so that verifying an export costs no
// Property value per tag.
func (p *Package) native(i int, keepProps bool) (*NativeLayout, error) {
	e := &p.Exports[i]
	chain := p.ClassChain(i)
	nl := &NativeLayout{Kind: p.nativeKind(chain), Classes: chain, End: -1}
	if e.Class == 0 || len(e.Data) == 0 {
		if len(e.Data) == 0 {
			nl.End = 0
		}
		return nl, nil
	}
	props, err := p.properties(i, keepProps || nl.Kind == NativeTexture)
	if err != nil {
		return nl, err
	}
	nl.Props = props
	c := binio.NewCursor(e.Data, int64(e.SerialOffset))
	c.Seek(props.End, "native data")
	nd := &nativeDecoder{p: p, i: i, c: c, nl: nl}
	switch nl.Kind {
	case NativeTexture:
		nd.texture(props)
	case NativeSound, NativeMusic:
		nd.soundOrMusic()
	case NativeMesh:
		nd.mesh()
	case NativeModel:
		nd.model()
	case NativeStaticMesh:
		nd.staticMesh()
	case NativePolys:
		nd.polys()
	case NativeStaticMeshInstance:
		nd.staticMeshInstance()
	case NativeUnknown:
		nl.Suspects = scanSuspects(e.Data, props.End, int64(e.SerialOffset))
		return nl, nil
	default:
		return nl, nil
	}
	if c.Err() != nil {
		return nl, p.exportErr(i, c, nl.Kind.String()+" data")
	}
	if nd.err != nil {
		return nl, nd.err
	}
	return nl, nil
}

type nativeDecoder struct {
	p   *Package
	i   int
	c   *binio.Cursor
	nl  *NativeLayout
	err error
}

func (nd *nativeDecoder) hasSeekPos() bool { return nd.p.Header.Version.File >= VerLazySeekPos }

// lazy reads one lazy array whose elements are elemSizes[k] bytes each; the
// first size consistent with SeekPos wins (Deus Ex meshes use 8-byte verts).
func (nd *nativeDecoder) lazy(field string, elemSizes ...int) LazyArray {
	c := nd.c
	la := LazyArray{Field: field, SeekPosAt: -1}
	if nd.hasSeekPos() {
		la.SeekPosAt = c.Pos()
		la.SeekPos = c.I32(field + " SeekPos")
	}
	la.Count = c.Count(field+" count", elemSizes[0])
	la.Start = c.Pos()
	if c.Err() != nil {
		return la
	}
	size := elemSizes[0]
	if la.SeekPosAt >= 0 {
		rel := int64(la.SeekPos) - int64(nd.p.Exports[nd.i].SerialOffset)
		for _, s := range elemSizes {
			if rel == int64(la.Start)+int64(la.Count)*int64(s) {
				size = s
				break
			}
		}
	}
	la.End = la.Start + la.Count*size
	c.Bytes(la.Count*size, field+" elements")
	nd.nl.Lazy = append(nd.nl.Lazy, la)
	return la
}

func (nd *nativeDecoder) texture(props *PropertyList) {
	c := nd.c
	mips := func(prefix string) {
		n := c.Count(prefix+" count", 11)
		for k := 0; k < n && c.Err() == nil; k++ {
			la := nd.lazy(fmt.Sprintf("%s[%d]", prefix, k), 1)
			m := Mip{Lazy: la}
			m.USize = c.I32("USize")
			m.VSize = c.I32("VSize")
			m.UBits = c.U8("UBits")
			m.VBits = c.U8("VBits")
			nd.nl.Mips = append(nd.nl.Mips, m)
		}
	}
	mips("Mips")
	if q := props.Find(nd.p, "bHasComp", 0); q != nil && q.Type == PropBool && q.Bool {
		before := len(nd.nl.Mips)
		mips("CompMips")
		nd.nl.CompMips = len(nd.nl.Mips) - before
	}
	if strings.EqualFold(nd.nl.Classes[0], "Texture") {
		nd.nl.End = c.Pos()
	}
}

func (nd *nativeDecoder) soundOrMusic() {
	c := nd.c
	c.Index("FileType")
	if c.Err() != nil {
		return
	}
	// UE2 games (UT2003/2004) store a FLOAT Likelihood before the sound data;
	// take it when the lazy array only fits after it.
	e := &nd.p.Exports[nd.i]
	if nd.nl.Kind == NativeSound && nd.p.Header.Version.File >= VerUE2 && nd.hasSeekPos() && c.Len() >= 9 {
		at := c.Pos()
		if !lazyFits(e.Data, at, int64(e.SerialOffset)) && lazyFits(e.Data, at+4, int64(e.SerialOffset)) {
			c.F32("Likelihood")
		}
	}
	nd.lazy("Data", 1)
	nd.nl.End = c.Pos()
}

// lazyFits reports whether a byte lazy array at pos has a SeekPos that points
// exactly past its bytes.
func lazyFits(data []byte, pos int, base int64) bool {
	if pos+5 > len(data) {
		return false
	}
	seek := int64(int32(binary.LittleEndian.Uint32(data[pos:])))
	n, k, err := binio.ReadIndex(data[pos+4:])
	if err != nil || n < 0 {
		return false
	}
	return seek == base+int64(pos+4+k)+int64(n)
}

func (nd *nativeDecoder) mesh() {
	c := nd.c
	v := nd.p.Header.Version.File
	bbox := func(what string) {
		c.Bytes(25, what+" bounding box")
		if v > 61 {
			c.Bytes(16, what+" bounding sphere")
		} else {
			c.Bytes(12, what+" bounding sphere")
		}
	}
	bbox("primitive")
	nd.lazy("Verts", 4, 8)
	nd.lazy("Tris", 20)
	n := c.Count("AnimSeqs count", 17)
	for k := 0; k < n && c.Err() == nil; k++ {
		c.Index("AnimSeq name")
		c.Index("AnimSeq group")
		c.I32("AnimSeq start frame")
		c.I32("AnimSeq frame count")
		nn := c.Count("AnimSeq notify count", 5)
		for j := 0; j < nn && c.Err() == nil; j++ {
			c.F32("notify time")
			c.Index("notify function")
		}
		c.F32("AnimSeq rate")
	}
	nd.lazy("Connects", 8)
	bbox("mesh")
	nd.lazy("VertLinks", 4)
}

// scanSuspects applies the lazy-array heuristic to data[from:]: an INT v at p
// with p+5 <= v <= end (absolute), followed by a compact count n such that the
// bytes between the count and v divide into n elements.
func scanSuspects(data []byte, from int, base int64) []int {
	var out []int
	end := base + int64(len(data))
	for pos := from; pos+5 <= len(data); pos++ {
		v := int64(int32(binary.LittleEndian.Uint32(data[pos:])))
		abs := base + int64(pos)
		if v < abs+5 || v > end {
			continue
		}
		n, k, err := binio.ReadIndex(data[pos+4:])
		if err != nil || n < 0 {
			continue
		}
		after := abs + 4 + int64(k)
		span := v - after
		if span < 0 || (n == 0 && span != 0) || (n > 0 && span%int64(n) != 0) {
			continue
		}
		out = append(out, pos)
	}
	return out
}
