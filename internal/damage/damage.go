// Package damage makes damaged copies of zen packages and IoStore
// containers for the tests of the writers' input checks: each damage is
// one a reader decodes without complaint and `unrmod verify` rejects, in a
// field an encoder could recompute (a name hash, a name, an export's serial
// offset, a chunk id), so that a writer that does not check its input
// would turn it into a file that verifies.
package damage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/internal/iostorebuild"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/zen"
)

// Kind is a damage to a zen package.
type Kind string

const (
	// NameHash flips the low byte of a name's stored hash.
	NameHash Kind = "name hash"
	// NameByte changes the last character of a name (to another letter),
	// leaving its stored hash as it was.
	NameByte Kind = "name byte"
	// ExportField damages a field of the export map that the data does
	// not depend on: before UE 5.3 it adds 16 to the first export's
	// CookedSerialOffset (which the encoder derives); from 5.3, where that
	// offset places the data, it flips a byte of the first public export's
	// PublicExportHash.
	ExportField Kind = "export map field"
)

// Kinds lists every Kind.
var Kinds = []Kind{NameHash, NameByte, ExportField}

// Package returns a copy of the zen package data (named file) with damage
// k. The name damaged is the last name whose text and hash each occur once
// in data.
func Package(file string, data []byte, k Kind) ([]byte, error) {
	p, err := zen.DecodePackage(file, data, nil)
	if err != nil {
		return nil, err
	}
	out := bytes.Clone(data)
	switch k {
	case NameHash, NameByte:
		for i := len(p.Names) - 1; i > 0; i-- {
			s := p.Names[i]
			h, _, ok := p.StoredNameHash(i)
			if !ok || len(s) < 2 || bytes.Count(data, []byte(s)) != 1 {
				continue
			}
			if k == NameByte {
				at := bytes.Index(data, []byte(s)) + len(s) - 1
				if out[at] == 'x' {
					out[at] = 'y'
				} else {
					out[at] = 'x'
				}
				return out, nil
			}
			for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
				enc := order.AppendUint64(nil, h)
				if bytes.Count(data, enc) == 1 {
					at := bytes.Index(data, enc)
					if order == binary.LittleEndian {
						out[at] ^= 0x5A
					} else {
						out[at+7] ^= 0x5A
					}
					return out, nil
				}
			}
		}
		return nil, fmt.Errorf("%s: no name whose text and hash occur once", file)
	case ExportField:
		if len(p.Exports) == 0 {
			return nil, fmt.Errorf("%s: no export", file)
		}
		if p.Layout >= zen.LayoutUE53 {
			for i := range p.Exports {
				h := p.Exports[i].PublicExportHash
				enc := binary.LittleEndian.AppendUint64(nil, h)
				if h != 0 && bytes.Count(data, enc) == 1 {
					out[bytes.Index(data, enc)] ^= 0x5A
					return out, nil
				}
			}
			return nil, fmt.Errorf("%s: no public export whose hash occurs once", file)
		}
		e := &p.Exports[0]
		key := binary.LittleEndian.AppendUint64(nil, e.SerialOffset)
		key = binary.LittleEndian.AppendUint64(key, uint64(len(e.Data)))
		if bytes.Count(data, key) != 1 {
			return nil, fmt.Errorf("%s: the first export's entry is not found once", file)
		}
		at := bytes.Index(data, key)
		binary.LittleEndian.PutUint64(out[at:], e.SerialOffset+16)
		return out, nil
	}
	return nil, fmt.Errorf("unknown damage %q", k)
}

// ChunkID returns a copy of the .utoc bytes toc (of file) with a byte of
// chunk i's id changed: the low byte of its value, so that the id still
// names a chunk of the same type.
func ChunkID(file string, toc []byte, i int) ([]byte, error) {
	t, err := iostore.DecodeTOC(file, toc)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(t.ChunkIDs) {
		return nil, fmt.Errorf("%s: no chunk %d", file, i)
	}
	out := bytes.Clone(toc)
	out[iostore.HeaderSize+int64(i)*12] ^= 0x5A
	return out, nil
}

// ChunkIDKind is the damage Container makes to a chunk id in the .utoc.
const ChunkIDKind Kind = "chunk id"

// Container writes into dir, as NAME.utoc and NAME.ucas, the demo UE 4.27
// container (iostorebuild.DemoContainers) with damage k done to the package
// whose path ends in pkg: a Kind of Package to the package chunk's data,
// stored under a chunk hash computed over the damaged bytes (so that only
// the package checks find it), or ChunkIDKind to the package chunk's id in
// the .utoc. With k "" the container is written undamaged. It returns the
// .utoc path.
func Container(dir, name string, k Kind, pkg string) (string, error) {
	demos, err := iostorebuild.DemoContainers()
	if err != nil {
		return "", err
	}
	b := demos[0].Container
	b.Chunks = slices.Clone(b.Chunks)
	chunk := -1
	for i, ch := range b.Chunks {
		if strings.HasSuffix(ch.Path, pkg) && ch.ID.Type(b.Version) == iostore.ChunkExportBundleData {
			chunk = i
		}
	}
	if chunk < 0 {
		return "", fmt.Errorf("the demo container has no package %s", pkg)
	}
	if k != "" && k != ChunkIDKind {
		data, err := Package(pkg, b.Chunks[chunk].Data, k)
		if err != nil {
			return "", err
		}
		b.Chunks[chunk].Data = data
	}
	utoc, err := b.WriteFiles(dir, name)
	if err != nil || k != ChunkIDKind {
		return utoc, err
	}
	c, err := iostore.Open(utoc, nil)
	if err != nil {
		return "", err
	}
	id := b.Chunks[chunk].ID
	i, ok := c.Find(id)
	c.Close()
	if !ok {
		return "", fmt.Errorf("%s: chunk %v not found", utoc, id)
	}
	toc, err := os.ReadFile(utoc)
	if err != nil {
		return "", err
	}
	if toc, err = ChunkID(utoc, toc, i); err != nil {
		return "", err
	}
	return utoc, os.WriteFile(utoc, toc, 0o644)
}
