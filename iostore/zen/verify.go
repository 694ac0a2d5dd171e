package zen

import (
	"bytes"
	"fmt"

	"github.com/unrmod/unrmod/cityhash"
	"github.com/unrmod/unrmod/ue"
)

// VerifyOptions give Problems what the container holding a package knows.
type VerifyOptions struct {
	// ChunkPackageID, when not zero, is the package id of the chunk the
	// package was read from: it must be the hash of the package's name.
	ChunkPackageID PackageID
	// Entry is the container's store entry for the package, or nil.
	Entry *StoreEntry
	// Header is the header of the container the package was read from, or
	// nil: the engine that reads it reads packages of its own layouts
	// only (HeaderVersion.PackageLayouts).
	Header *ContainerHeader
}

// Problems checks everything the engine relies on that decoding does not
// already guarantee, and returns one Problem per inconsistency (none for an
// engine-written package): every name hash and the hash algorithm id;
// every export's serial offset and size as the layout's rule gives them
// and its data tiling the export data exactly; every export created and
// serialized exactly once by the export bundles, Create first; every object
// reference, dependency and arc in range; the public export hashes (UE5)
// or global import indices (4.26/4.27) against the exports' paths; and,
// with opts, the package id against the name and the store entry against
// the package.
func (p *Package) Problems(opts *VerifyOptions) []ue.Problem {
	v := &verifier{p: p}
	v.names()
	v.data()
	v.bundles()
	v.references()
	v.publicHashes()
	if opts != nil {
		v.container(opts)
	}
	return v.out
}

type verifier struct {
	p   *Package
	out []ue.Problem
}

func (v *verifier) add(structure, format string, args ...any) {
	v.out = append(v.out, ue.Problem{Struct: structure, Offset: -1, Msg: fmt.Sprintf(format, args...)})
}

func (v *verifier) exportWhere(i int) string {
	return fmt.Sprintf("export %d %q", i, v.p.ExportName(i))
}

func (v *verifier) names() {
	p := v.p
	if p.hashAlgorithm != cityhash.NameHashAlgorithmID {
		v.add("name map", "hash algorithm id 0x%016x, not 0x%016x: the engine ignores the saved hashes", p.hashAlgorithm, cityhash.NameHashAlgorithmID)
	}
	for i, s := range p.Names {
		if i < len(p.hashes) && p.hashes[i] != cityhash.NameHash(s) {
			v.add(fmt.Sprintf("name %d %q", i, s), "stored hash 0x%016x, the name hashes to 0x%016x", p.hashes[i], cityhash.NameHash(s))
		}
		if l := nameLength(s); l >= 1024 {
			v.add(fmt.Sprintf("name %d", i), "%d characters; the engine allows at most 1023", l)
		}
	}
	if _, err := p.MappedString(p.Name); err != nil {
		v.add("package summary", "package name: %v", err)
	}
}

func (v *verifier) data() {
	p := v.p
	if p.loose > 0 {
		v.add("export data", "%d bytes between the exports' data belong to no export", p.loose)
	}
	if len(p.Trailing) > 0 && !(p.Layout.IsUE5() && bytes.Equal(p.Trailing, packageFileTag[:])) {
		v.add("export data", "%d bytes after the last export's data belong to no export", len(p.Trailing))
	}
	if p.kept[secData] != nil {
		v.add("export data", "not laid out as the engine lays it out (%s)", dataOrder(p.Layout))
	}
	pl, err := p.planData()
	if err != nil {
		v.add("export data", "%v", err)
		return
	}
	if pl.isRaw {
		return // offsets as decoded; the layout problem is reported above
	}
	for i, e := range p.Exports {
		if e.SerialOffset != pl.serialOffsets[i] {
			v.add(v.exportWhere(i), "serial offset %d, want %d (%s)", e.SerialOffset, pl.serialOffsets[i], serialOffsetRule(p.Layout))
		}
	}
}

func dataOrder(l Layout) string {
	if l.hasGraphData() {
		return "each export's data in the order the bundles serialize them"
	}
	return "each export's data in export-map order"
}

func serialOffsetRule(l Layout) string {
	if l.hasDependencies() {
		return "its data's offset from the end of the header"
	}
	return "CookedHeaderSize plus the sizes of the exports before it"
}

func (v *verifier) bundles() {
	p := v.p
	n := len(p.Exports) + len(p.CellExports)
	created := make([]int, n)
	serialized := make([]int, n)
	for k, e := range p.BundleEntries {
		where := func() string { return fmt.Sprintf("export bundle entry %d", k) }
		switch {
		case int64(e.Export) >= int64(n):
			v.add(where(), "export %d is not one of the %d exports", e.Export, n)
			continue
		case e.Command == CommandCreate:
			created[e.Export]++
		case e.Command == CommandSerialize:
			if created[e.Export] == 0 {
				v.add(where(), "serializes export %d before it is created", e.Export)
			}
			serialized[e.Export]++
		default:
			v.add(where(), "command %d is neither Create (0) nor Serialize (1)", e.Command)
		}
	}
	for i := range n {
		if created[i] != 1 || serialized[i] != 1 {
			v.add(fmt.Sprintf("export %d", i), "created %d and serialized %d times by the export bundles; the loader needs each once", created[i], serialized[i])
		}
	}
	if p.Layout.hasDependencies() && len(p.DependencyHeaders) != len(p.Exports) {
		v.add("dependency bundle headers", "%d headers for %d exports; there is one per export", len(p.DependencyHeaders), len(p.Exports))
	}
	for i, h := range p.DependencyHeaders {
		total := int64(h.FirstEntry)
		for _, c := range h.Counts {
			total += int64(c)
		}
		if h.FirstEntry == -1 && total == -1 {
			continue // no dependencies: the engine writes -1
		}
		if h.FirstEntry < 0 || total > int64(len(p.DependencyEntries)) {
			v.add(fmt.Sprintf("dependency bundle header %d", i), "entries %d..%d lie outside the %d dependency entries", h.FirstEntry, total, len(p.DependencyEntries))
		}
	}
	bundles := len(p.Bundles)
	if p.Layout.hasDependencies() {
		bundles = 1
	}
	for k, a := range p.InternalArcs {
		if a.From < 0 || int(a.From) >= bundles || a.To < 0 || int(a.To) >= bundles {
			v.add(fmt.Sprintf("internal arc %d", k), "bundles %d → %d, the package has %d", a.From, a.To, bundles)
		}
	}
	for pk, arcs := range p.ExternalArcs {
		for k, a := range arcs {
			if a.FromImport < 0 || int(a.FromImport) >= len(p.Imports) || a.ToBundle < 0 || int(a.ToBundle) >= bundles || a.FromCommand > 1 {
				v.add(fmt.Sprintf("external arc %d of imported package %d", k, pk), "import %d (command %d) → bundle %d out of range (%d imports, %d bundles)",
					a.FromImport, a.FromCommand, a.ToBundle, len(p.Imports), bundles)
			}
		}
	}
	for g, gp := range p.Graph {
		for k, a := range gp.Arcs {
			if a.To < 0 || int(a.To) >= bundles || a.From < -1 {
				v.add(fmt.Sprintf("graph package %d (%v) arc %d", g, gp.Package, k), "bundles %d → %d out of range (%d bundles)", a.From, a.To, bundles)
			}
		}
	}
}

// ref checks one object reference of the package; where names the
// structure holding it, made only for a problem.
func (v *verifier) ref(where func() string, field string, x ObjectIndex, allowExport bool) {
	p := v.p
	switch x.Kind() {
	case KindNull:
		if x != NullObject {
			v.add(where(), "%s %v is a null reference with other bits set", field, x)
		}
	case KindExport:
		if i, ok := x.Export(); !allowExport || !ok || i >= len(p.Exports) {
			v.add(where(), "%s %v: export %d is not one of the %d exports", field, x, x.Value(), len(p.Exports))
		}
	case KindPackageImport:
		if !p.Layout.IsUE5() {
			return
		}
		pkg, hash, _ := x.PackageImport()
		if int64(hash) >= int64(len(p.ImportedPublicExportHashes)) {
			v.add(where(), "%s %v: public export hash %d is not one of the %d", field, x, hash, len(p.ImportedPublicExportHashes))
		}
		if p.Layout.hasDependencies() && int64(pkg) >= int64(len(p.ImportedPackages)) {
			v.add(where(), "%s %v: imported package %d is not one of the %d", field, x, pkg, len(p.ImportedPackages))
		}
	}
}

func (v *verifier) references() {
	p := v.p
	for i, x := range p.Imports {
		v.ref(func() string { return fmt.Sprintf("import %d", i) }, "entry", x, false)
	}
	for i, e := range p.Exports {
		where := func() string { return v.exportWhere(i) }
		v.ref(where, "outer", e.Outer, true)
		v.ref(where, "class", e.Class, true)
		v.ref(where, "super", e.Super, true)
		v.ref(where, "template", e.Template, true)
		if err := p.checkMappedName(e.ObjectName); err != nil {
			v.add(where(), "object name: %v", err)
		}
		if e.FilterFlags > 2 {
			v.add(where(), "filter flags %d are none of 0, 1 (not for client) and 2 (not for server)", e.FilterFlags)
		}
		if o, ok := e.Outer.Export(); ok && o == i {
			v.add(where(), "is its own outer")
		}
	}
	for k, x := range p.DependencyEntries {
		if x == 0 || x < 0 && int64(-x-1) >= int64(len(p.Imports)) || x > 0 && int64(x-1) >= int64(len(p.Exports)) {
			v.add(fmt.Sprintf("dependency bundle entry %d", k), "package index %d refers to no import (%d) or export (%d)", x, len(p.Imports), len(p.Exports))
		}
	}
}

// publicHashes checks each public export's identity hash against its path.
func (v *verifier) publicHashes() {
	p := v.p
	for i, e := range p.Exports {
		var want uint64
		if p.Layout.IsUE5() {
			if e.PublicExportHash == 0 {
				continue
			}
			want = cityhash.PublicExportHash(p.RelativePath(i, "/"))
		} else {
			if ObjectIndex(e.PublicExportHash) == NullObject {
				continue
			}
			want = cityhash.PackageImportIndex(p.ExportPath(i))
			// A localized or redirected package: the packer hashes the
			// path under the source name (a localized package's
			// exports that its source package has too).
			if src := p.sourceExportPath(i); e.PublicExportHash != want && src != p.ExportPath(i) {
				if alt := cityhash.PackageImportIndex(src); e.PublicExportHash != alt {
					v.add(v.exportWhere(i), "public export hash 0x%016x, its path %s hashes to 0x%016x and under the source package %s to 0x%016x",
						e.PublicExportHash, p.ExportPath(i), want, src, alt)
				}
				continue
			}
		}
		if e.PublicExportHash != want {
			v.add(v.exportWhere(i), "public export hash 0x%016x, its path %s hashes to 0x%016x", e.PublicExportHash, p.ExportPath(i), want)
		}
	}
}

// container checks the package against what its container says.
func (v *verifier) container(o *VerifyOptions) {
	p := v.p
	id := p.ID()
	if o.ChunkPackageID != 0 && o.ChunkPackageID != id {
		v.add("package summary", "package name %q hashes to %v, but the chunk id says %v", p.PackageName(), id, o.ChunkPackageID)
	}
	if h := o.Header; h != nil {
		if lo, hi := h.Version.PackageLayouts(); lo != LayoutUnknown && (p.Layout < lo || p.Layout > hi) {
			want := lo.String()
			if lo != hi {
				want += " to " + hi.String()
			}
			v.add("package summary", "the package is laid out for %v, but its container's header (version %d %s) is read by UE %s, which reads packages of %s",
				p.Layout, int32(h.Version), h.Version, h.Version.Engine(), want)
		}
	}
	e := o.Entry
	if e == nil {
		return
	}
	where := fmt.Sprintf("store entry (package %v)", e.PackageID)
	if !p.Layout.IsUE5() && e.ExportBundlesSize != 0 && e.ExportBundlesSize != uint64(p.size) {
		v.add(where, "ExportBundlesSize %d, the package is %d bytes", e.ExportBundlesSize, p.size)
	}
	if p.Layout.hasGraphData() && (e.ExportCount != 0 || e.ExportBundleCount != 0) {
		if int(e.ExportCount) != len(p.Exports) {
			v.add(where, "ExportCount %d, the package has %d exports", e.ExportCount, len(p.Exports))
		}
		if int(e.ExportBundleCount) != len(p.Bundles) {
			v.add(where, "ExportBundleCount %d, the package has %d export bundles", e.ExportBundleCount, len(p.Bundles))
		}
	}
	switch {
	case p.Layout.hasDependencies():
		if len(e.ImportedPackages) != len(p.ImportedPackages) {
			v.add(where, "%d imported packages, the package names %d", len(e.ImportedPackages), len(p.ImportedPackages))
			break
		}
		for k, ip := range p.ImportedPackages {
			if got := PackageIDFromName(ip.String()); got != e.ImportedPackages[k] {
				v.add(where, "imported package %d is %v, the package's imported package name %q hashes to %v", k, e.ImportedPackages[k], ip.String(), got)
			}
		}
	case p.Layout.IsUE5():
		if len(p.ExternalArcs) != len(e.ImportedPackages) {
			v.add(where, "%d imported packages, the graph data has arcs for %d", len(e.ImportedPackages), len(p.ExternalArcs))
		}
	default:
		imported := make(map[PackageID]bool, len(e.ImportedPackages))
		for _, id := range e.ImportedPackages {
			imported[id] = true
		}
		for g, gp := range p.Graph {
			if !imported[gp.Package] {
				v.add(fmt.Sprintf("graph package %d", g), "package %v is not among the store entry's imported packages", gp.Package)
			}
		}
	}
}
