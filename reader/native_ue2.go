package reader

import (
	"fmt"
	"strings"
)

// UE2 native layouts that unrmod decodes to their end, so that it knows
// every lazy array they hold and can tell their offsets from values that
// only look like offsets. See docs/legacy-layouts.md#ue2-native-layouts for
// the layouts and the real files they were checked on.

// KnownUE2Layout reports whether unrmod decodes the native data of UE2
// Model, Polys, StaticMesh and StaticMeshInstance exports of a version v
// package: UT2004 and the games built on it (file version 128, licensee
// 29), whose layouts are checked on real maps and static-mesh packages.
// Packages of other UE2 versions rely on the heuristic scan instead.
func KnownUE2Layout(v Version) bool { return v.File == 128 && v.Licensee == 29 }

// Limits of the UE2 structures, from the engine's fixed-size arrays.
const (
	ue2MaxZones       = 64 // FBspNode::MAX_ZONES: a model's zone table
	ue2MaxTriangleUVs = 8  // UV channels of a static-mesh triangle
)

// Minimal encoded sizes of the UE2 elements, used to bound counts before
// reading them.
const (
	ue2BoxSize      = 25 // FBox: two FVectors and a valid byte
	ue2SphereSize   = 16 // FSphere: FVector and W
	ue2PrimSize     = ue2BoxSize + ue2SphereSize
	ue2NodeMin      = 16 + 8 + 1 + 7 + ue2SphereSize + 3 + 8 + 12
	ue2SurfMin      = 1 + 4 + 5 + 1 + 16 + 4
	ue2ZoneMin      = 1 + 8 + 8 + 4
	ue2LeafMin      = 3 + 8
	ue2SectionMin   = 1 + 4 + 1 + 4 + 4 + 4
	ue2BspVertex    = 12 + 16 + 12
	ue2LightMapMin  = 7 + 64 + 3*12 + 1 + 1 + 4
	ue2BitmapMin    = 1 + 1 + 7*4
	ue2LightTexMin  = 1 + 1 + 8 + 4 + 2*5 + 1 + 3*4
	ue2PolyMin      = 1 + 4*12 + 4 + 5 + 4
	ue2MeshSection  = 4 + 5*2
	ue2MeshVertex   = 2 * 12
	ue2UVStreamMin  = 1 + 2*4
	ue2KDOPNode     = 6*4 + 4 + 2*2
	ue2KDOPTriangle = 4 * 2
	ue2TriangleMin  = 3*12 + 4 + 3*4 + 4 + 4
	ue2LightInfoMin = 1 + 1 + 4
)

// array reads a dynamic array: a compact count, then that many elements,
// each read by elem and at least min bytes long.
func (nd *nativeDecoder) array(what string, min int, elem func()) {
	c := nd.c
	n := c.Count(what+" count", min)
	for k := 0; k < n && c.Err() == nil; k++ {
		elem()
	}
}

// lazyOf reads a lazy array of elements of varying size, each read by elem
// and at least min bytes long: an INT SeekPos, a compact count, the
// elements.
func (nd *nativeDecoder) lazyOf(field string, min int, elem func()) {
	c := nd.c
	la := LazyArray{Field: field, SeekPosAt: c.Pos()}
	la.SeekPos = c.I32(field + " SeekPos")
	la.Count = c.Count(field+" count", min)
	la.Start = c.Pos()
	for k := 0; k < la.Count && c.Err() == nil; k++ {
		elem()
	}
	if c.Err() != nil {
		return
	}
	la.End = c.Pos()
	nd.nl.Lazy = append(nd.nl.Lazy, la)
}

// primitive reads the UPrimitive part every mesh and model starts with: the
// bounding box and bounding sphere.
func (nd *nativeDecoder) primitive() {
	nd.c.Bytes(ue2BoxSize, "bounding box")
	nd.c.Bytes(ue2SphereSize, "bounding sphere")
}

// ints reads n INTs.
func (nd *nativeDecoder) ints(what string, n int) {
	for k := 0; k < n; k++ {
		nd.c.I32(what)
	}
}

// indices reads n compact indices.
func (nd *nativeDecoder) indices(what string, n int) {
	for k := 0; k < n; k++ {
		nd.c.Index(what)
	}
}

// ue2End sets the end of the decoded layout when the export is of the class
// itself: a subclass may append data of its own.
func (nd *nativeDecoder) ue2End(class string) {
	if nd.c.Err() == nil && len(nd.nl.Classes) > 0 && strings.EqualFold(nd.nl.Classes[0], class) {
		nd.nl.End = nd.c.Pos()
	}
}

// model decodes a UE2 Model (BSP): geometry, zones, the render sections,
// the lightmaps and the lightmap textures, whose two mip levels are BYTE
// lazy arrays.
func (nd *nativeDecoder) model() {
	c := nd.c
	nd.primitive()
	vec := func() { c.Bytes(12, "vector") }
	nd.array("Vectors", 12, vec)
	nd.array("Points", 12, vec)
	nd.array("Nodes", ue2NodeMin, func() {
		c.Bytes(16+8+1, "node plane, zone mask and flags")
		nd.indices("node index", 7) // iVertPool, iSurf, iBack, iFront, iPlane, iCollisionBound, iRenderBound
		c.Bytes(ue2SphereSize, "node bounding sphere")
		c.Bytes(3, "node zones and vertex count")
		nd.ints("node index", 5) // iLeaf[2], iSection, iFirstVertex, iLightMap
	})
	nd.array("Surfs", ue2SurfMin, func() {
		c.Index("surface material")
		c.U32("surface poly flags")
		nd.indices("surface index", 5) // pBase, vNormal, vTextureU, vTextureV, iBrushPoly
		c.Index("surface actor")
		c.Bytes(16, "surface plane")
		c.F32("surface lightmap scale")
	})
	nd.array("Verts", 2, func() { nd.indices("vert index", 2) })
	c.I32("NumSharedSides")
	at := c.Pos()
	zones := c.I32("NumZones")
	if zones < 0 || zones > ue2MaxZones {
		c.FailAt(at, "NumZones", fmt.Errorf("%d zones; a model has at most %d", zones, ue2MaxZones))
		return
	}
	for k := 0; k < int(zones) && c.Err() == nil; k++ {
		c.Index("zone actor")
		c.Bytes(ue2ZoneMin-1, "zone visibility, connectivity and render time")
	}
	c.Index("Polys")
	nd.array("Bounds", ue2BoxSize, func() { c.Bytes(ue2BoxSize, "bound") })
	nd.array("LeafHulls", 4, func() { c.I32("leaf hull") })
	nd.array("Leaves", ue2LeafMin, func() {
		nd.indices("leaf index", 3)
		c.U64("leaf visible zones")
	})
	nd.array("Lights", 1, func() { c.Index("light") })
	c.I32("RootOutside")
	c.I32("Linked")
	nd.array("Sections", ue2SectionMin, func() {
		nd.array("section vertices", ue2BspVertex, func() { c.Bytes(ue2BspVertex, "section vertex") })
		c.I32("section vertex revision")
		c.Index("section material")
		c.I32("section node count")
		c.U32("section poly flags")
		c.I32("section lightmap texture")
	})
	nd.array("LightMaps", ue2LightMapMin, func() {
		nd.indices("lightmap index", 7) // iTexture, iSurf, iZone, OffsetX, OffsetY, SizeX, SizeY
		c.Bytes(64+3*12, "lightmap matrix and axes")
		nd.array("lightmap bitmaps", ue2BitmapMin, func() {
			c.Index("bitmap light")
			nd.array("bitmap bits", 1, func() { c.U8("bitmap bit") })
			nd.ints("bitmap size", 7) // SizeX, SizeY, Stride, MinX, MinY, MaxX, MaxY
		})
		c.Index("lightmap level")
		c.I32("lightmap revision")
	})
	n := 0
	nd.array("LightMapTextures", ue2LightTexMin, func() {
		c.Index("lightmap texture level")
		nd.array("lightmap texture lightmaps", 4, func() { c.I32("lightmap texture lightmap") })
		c.U64("lightmap texture cache id")
		c.I32("lightmap texture revision")
		nd.lazy(fmt.Sprintf("LightMapTextures[%d].Data[0]", n), 1)
		nd.lazy(fmt.Sprintf("LightMapTextures[%d].Data[1]", n), 1)
		c.U8("lightmap texture format")
		nd.ints("lightmap texture size and revision", 3) // Width, Height, Revision
		n++
	})
	nd.ue2End("Model")
}

// polys decodes a UE2 Polys export: the editor's brush polygons.
func (nd *nativeDecoder) polys() {
	c := nd.c
	at := c.Pos()
	num := c.I32("polygon count")
	c.I32("polygon capacity")
	if num < 0 || int64(num)*ue2PolyMin > int64(c.Len()) {
		c.FailAt(at, "polygon count", fmt.Errorf("%d polygons do not fit in the %d bytes left", num, c.Len()))
		return
	}
	for k := 0; k < int(num) && c.Err() == nil; k++ {
		vat := c.Pos()
		nv := c.Index("polygon vertex count")
		if nv < 0 || int64(nv)*12 > int64(c.Len()) {
			c.FailAt(vat, "polygon vertex count", fmt.Errorf("%d vertices do not fit in the %d bytes left", nv, c.Len()))
			return
		}
		c.Bytes(4*12, "polygon base, normal and texture axes")
		c.Bytes(int(nv)*12, "polygon vertices")
		c.U32("polygon flags")
		nd.indices("polygon reference", 5) // Actor, Material, ItemName, iLink, iBrushPoly
		c.F32("polygon lightmap scale")
	}
	nd.ue2End("Polys")
}

// staticMesh decodes a UE2 StaticMesh: sections, vertex, colour, UV and
// index streams, the collision tree, and the RawTriangles lazy array, whose
// triangles vary in size with their UV channels.
func (nd *nativeDecoder) staticMesh() {
	c := nd.c
	nd.primitive()
	nd.array("Sections", ue2MeshSection, func() { c.Bytes(ue2MeshSection, "section") })
	c.Bytes(ue2BoxSize, "bounding box")
	nd.array("VertexStream", ue2MeshVertex, func() { c.Bytes(ue2MeshVertex, "vertex") })
	c.I32("vertex stream revision")
	for _, s := range []string{"ColorStream", "AlphaStream"} {
		nd.array(s, 4, func() { c.U32("colour") })
		c.I32(s + " revision")
	}
	nd.array("UVStreams", ue2UVStreamMin, func() {
		nd.array("UV stream", 8, func() { c.Bytes(8, "UV") })
		nd.ints("UV stream fields", 2)
	})
	for _, s := range []string{"IndexBuffer", "WireframeIndexBuffer"} {
		nd.array(s, 2, func() { c.U16("index") })
		c.I32(s + " revision")
	}
	c.Index("CollisionModel")
	nd.array("kDOPNodes", ue2KDOPNode, func() { c.Bytes(ue2KDOPNode, "kDOP node") })
	nd.array("kDOPTriangles", ue2KDOPTriangle, func() { c.Bytes(ue2KDOPTriangle, "kDOP triangle") })
	nd.lazyOf("RawTriangles", ue2TriangleMin, func() {
		c.Bytes(3*12, "triangle vertices")
		at := c.Pos()
		uvs := c.I32("triangle UV count")
		if uvs < 0 || uvs > ue2MaxTriangleUVs {
			c.FailAt(at, "triangle UV count", fmt.Errorf("%d UV channels; a triangle has at most %d", uvs, ue2MaxTriangleUVs))
			return
		}
		c.Bytes(int(uvs)*3*8, "triangle UVs")
		c.Bytes(3*4, "triangle colours")
		c.I32("triangle material")
		c.U32("triangle smoothing mask")
	})
	c.I32("InternalVersion")
	// Three fields UT2004 appends: a FLOAT array, an object reference and
	// an INT.
	nd.array("UT2004 FLOAT array", 4, func() { c.F32("UT2004 FLOAT") })
	c.Index("UT2004 object reference")
	c.I32("UT2004 INT")
	nd.ue2End("StaticMesh")
}

// staticMeshInstance decodes a UE2 StaticMeshInstance: a placed mesh's
// vertex colours and the lights that reach it.
func (nd *nativeDecoder) staticMeshInstance() {
	c := nd.c
	nd.array("ColorStream", 4, func() { c.U32("colour") })
	c.I32("ColorStream revision")
	nd.array("Lights", ue2LightInfoMin, func() {
		c.Index("light actor")
		nd.array("light visibility bits", 1, func() { c.U8("visibility bit") })
		c.I32("light applied")
	})
	nd.ue2End("StaticMeshInstance")
}
