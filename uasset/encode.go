package uasset

import "math"

// Encode returns the header file (.uasset/.umap) and the export data
// (.uexp; nil for a single-file package) of p. Offsets and counts in the
// summary, the exports' SerialOffset and SerialSize, and TotalHeaderSize
// are recomputed from the model; every byte the model does not interpret
// is written back where it was relative to its neighbours. An unchanged
// decoded Package encodes to the bytes it was decoded from.
func (p *Package) Encode() (uasset, uexp []byte, err error) {
	area, starts, err := p.exportArea()
	if err != nil {
		return nil, nil, err
	}
	// The header's size does not depend on the offsets it holds: lay it
	// out once to learn its size, then write it with the final offsets.
	hdr, err := p.appendHeader(nil, int(p.Summary.TotalHeaderSize), starts, len(area))
	if err != nil {
		return nil, nil, err
	}
	if len(hdr) != int(p.Summary.TotalHeaderSize) {
		if hdr, err = p.appendHeader(nil, len(hdr), starts, len(area)); err != nil {
			return nil, nil, err
		}
	}
	if !p.Split {
		return append(hdr, area...), nil, nil
	}
	return append(hdr, p.HeaderTrailer...), area, nil
}

// AppendBinary appends the header file (.uasset/.umap) of p to b; for a
// single-file package that is the whole asset. Use Encode to get the
// .uexp as well.
func (p *Package) AppendBinary(b []byte) ([]byte, error) {
	h, _, err := p.Encode()
	if err != nil {
		return b, err
	}
	return append(b, h...), nil
}

func (p *Package) notEncodable(structure, format string, args ...any) error {
	return errorf(p.FileName, structure, -1, ErrNotEncodable, format, args...)
}

// exportArea lays out the exports' data: in the order they were decoded,
// then exports added since in index order. starts[i] is where export i's
// data begins in the area.
func (p *Package) exportArea() ([]byte, []int, error) {
	if p.stream != nil {
		return nil, nil, p.notEncodable("export data", "decoded without its export data (DecodeStream): EncodeStream writes it")
	}
	order, starts, size := p.areaLayout()
	area := make([]byte, 0, size)
	for _, i := range order {
		e := &p.Exports[i]
		area = append(area, e.lead...)
		area = append(area, e.Data...)
	}
	area = append(area, p.ExportTrailer...)
	return area, starts, nil
}

// areaLayout returns the order exportArea writes the exports' data in,
// where each starts and the area's size, the export trailer included.
func (p *Package) areaLayout() (order, starts []int, size int) {
	n := len(p.Exports)
	seen := make([]bool, n)
	order = make([]int, 0, n)
	for _, i := range p.order {
		if i < n && !seen[i] {
			seen[i] = true
			order = append(order, i)
		}
	}
	for i := range n {
		if !seen[i] {
			order = append(order, i)
		}
	}
	starts = make([]int, n)
	for _, i := range order {
		size += len(p.Exports[i].lead)
		starts[i] = size
		size += p.dataLen(i)
	}
	return order, starts, size + len(p.ExportTrailer)
}

// appendHeader writes the summary and the header tables, assuming the
// header is hs bytes long (for the exports' SerialOffset).
func (p *Package) appendHeader(dst []byte, hs int, starts []int, areaLen int) ([]byte, error) {
	s := p.Summary // a copy: counts and offsets are recomputed here
	l := p.layout
	origHS := int64(p.Summary.TotalHeaderSize)
	if len(p.sections) == 0 {
		return nil, p.notEncodable("header", "the package was not made by Decode")
	}
	if p.DependsMap != nil && len(p.DependsMap) != len(p.Exports) {
		return nil, p.notEncodable("depends map", "%d lists for %d exports: give every export its list", len(p.DependsMap), len(p.Exports))
	}
	have := make(map[secKind]bool)
	for _, sec := range p.sections {
		have[sec.kind] = true
	}
	for _, c := range []struct {
		k secKind
		n int
	}{{secNames, len(p.Names)}, {secImports, len(p.Imports)}, {secExports, len(p.Exports)},
		{secSoftPackageRefs, len(p.SoftPackageReferences)}, {secPreload, len(p.PreloadDependencies)}, {secDataResources, len(p.DataResources)}} {
		if c.n > 0 && !have[c.k] {
			return nil, p.notEncodable(c.k.String(), "the file has no %s to hold %d entries", c.k, c.n)
		}
	}
	if p.DependsMap != nil && !have[secDepends] {
		return nil, p.notEncodable("depends map", "the file has no depends map")
	}
	if hs > math.MaxInt32 {
		return nil, p.notEncodable("header", "%d bytes is more than TotalHeaderSize can say", hs)
	}
	s.TotalHeaderSize = int32(hs)
	// The engine saves the current counts as the last generation: follow
	// the counts when the file did.
	if g := len(s.Generations); g > 0 && s.Generations[g-1] == (Generation{p.Summary.ExportCount, p.Summary.NameCount}) {
		s.Generations = append(s.Generations[:g-1:g-1], Generation{int32(len(p.Exports)), int32(len(p.Names))})
	}
	s.NameCount = int32(len(p.Names))
	s.ImportCount = int32(len(p.Imports))
	s.ExportCount = int32(len(p.Exports))
	if have[secSoftPackageRefs] {
		s.SoftPackageReferencesCount = int32(len(p.SoftPackageReferences))
	}
	if have[secPreload] {
		s.PreloadDependencyCount = int32(len(p.PreloadDependencies))
	}
	delta := int64(hs) - origHS
	origEnd := origHS + int64(p.origAreaLen())
	end := int64(hs + areaLen)
	switch p.bulk {
	case offsetFromHeader:
		s.BulkDataStartOffset += delta
	case offsetFromEnd:
		s.BulkDataStartOffset += end - origEnd
	}
	switch p.payload {
	case offsetFromHeader:
		s.PayloadTOCOffset += delta
	case offsetFromEnd:
		s.PayloadTOCOffset += end - origEnd
	}
	if delta != 0 && s.ThumbnailTableOffset > 0 {
		return nil, p.notEncodable("thumbnail table", "the header changes size and the thumbnail table holds offsets this package does not rewrite (an editor package)")
	}

	// First pass: the summary's size.
	var sa archive
	s.serialize(&sa, &l)
	pos := len(sa.out)
	var body archive
	for _, sec := range p.sections {
		body.out = append(body.out, sec.lead...)
		at := pos + len(body.out)
		if sec.kind == numSecKinds {
			break
		}
		if at > math.MaxInt32 {
			return nil, p.notEncodable(sec.kind.String(), "offset beyond 2 GiB")
		}
		if f32, f64 := s.offsetField(sec.kind); f32 != nil {
			*f32 = int32(at)
		} else if f64 != nil {
			*f64 = int64(at)
		}
		if err := p.appendTable(&body, sec.kind, &l, hs, starts); err != nil {
			return nil, err
		}
	}
	sa.out = sa.out[:0]
	sa.out = dst
	s.serialize(&sa, &l)
	return append(sa.out, body.out...), nil
}

// origAreaLen is the size of the export data area as decoded.
func (p *Package) origAreaLen() int { return p.areaLen }

func (p *Package) appendTable(a *archive, k secKind, l *layout, hs int, starts []int) error {
	switch k {
	case secNames:
		for i := range p.Names {
			p.Names[i].serialize(a, l)
		}
	case secImports:
		for i := range p.Imports {
			p.Imports[i].serialize(a, l)
		}
	case secExports:
		for i := range p.Exports {
			e := p.Exports[i] // a copy: offsets are recomputed
			e.SerialOffset = int64(hs + starts[i])
			e.SerialSize = int64(p.dataLen(i))
			if p.layout.UE4 < ue4ExportSizes64 && (e.SerialOffset > math.MaxInt32 || e.SerialSize > math.MaxInt32) {
				return p.notEncodable(p.exportLabel(i), "data beyond 2 GiB in a 32-bit export map")
			}
			e.serialize(a, l)
		}
	case secDepends:
		for _, d := range p.DependsMap {
			a.count(len(d), 4, "count")
			for _, x := range d {
				a.index(&x, "index")
			}
		}
	case secSoftPackageRefs:
		for i := range p.SoftPackageReferences {
			a.name(&p.SoftPackageReferences[i], "package name")
		}
	case secPreload:
		for i := range p.PreloadDependencies {
			a.index(&p.PreloadDependencies[i], "index")
		}
	case secDataResources:
		a.u32(&p.DataResourceVersion, "version")
		a.count(len(p.DataResources), 0, "count")
		for i := range p.DataResources {
			p.DataResources[i].serialize(a, p.DataResourceVersion)
		}
	}
	return nil
}
