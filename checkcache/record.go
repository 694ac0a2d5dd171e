package checkcache

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/unrmod/unrmod/safefile"
)

// Record is what the cache remembers of one key: that its files passed
// the full check (of version CheckVersion, with basis Basis) at Checked,
// and what they were then.
type Record struct {
	// Key is the normal form of the key (safefile.Identity of the .utoc).
	Key          string
	CheckVersion uint32
	// Basis says what the check depended on beyond the files' bytes
	// (iostore.Container.CheckBasis: the key's fingerprint, the decoders).
	Basis   string
	Checked time.Time
	// Files are the identities of the files checked: the .utoc's, then
	// each .ucas partition's.
	Files []safefile.FileID
}

// The record's encoding, little-endian:
//
//	magic "unrmodCK", format version u16 (1),
//	check version u32, checked (ns since 1970, UTC) i64,
//	key: length u16 and bytes, basis: length u16 and bytes,
//	file count u16, each file 41 bytes: size i64, modification time i64,
//	change time i64, device u64, inode u64, flags u8 (1: change time,
//	2: device and inode),
//	CRC-32 (IEEE) of every byte before it, u32.
const (
	recordMagic   = "unrmodCK"
	recordFormat  = 1
	fileIDSize    = 41
	flagChange    = 1
	flagInode     = 2
	maxRecordText = 1<<16 - 1
)

// FormatError is a record that does not decode: damaged, cut short, or of
// another format.
type FormatError struct {
	File   string // the record's file, when known
	Offset int    // where in the record
	Msg    string
}

func (e *FormatError) Error() string {
	f := e.File
	if f == "" {
		f = "check record"
	}
	return fmt.Sprintf("%s: offset %d: %s", f, e.Offset, e.Msg)
}

// MarshalBinary encodes r.
func (r *Record) MarshalBinary() ([]byte, error) {
	if len(r.Key) > maxRecordText || len(r.Basis) > maxRecordText || len(r.Files) > maxRecordText {
		return nil, fmt.Errorf("check record: key, basis or file list too long")
	}
	b := make([]byte, 0, 8+2+4+8+2+len(r.Key)+2+len(r.Basis)+2+fileIDSize*len(r.Files)+4)
	b = append(b, recordMagic...)
	b = binary.LittleEndian.AppendUint16(b, recordFormat)
	b = binary.LittleEndian.AppendUint32(b, r.CheckVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(r.Checked.UnixNano()))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(r.Key)))
	b = append(b, r.Key...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(r.Basis)))
	b = append(b, r.Basis...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(r.Files)))
	for _, f := range r.Files {
		var flags uint8
		ct, dev, ino := f.ChangeTime, f.Device, f.Inode
		if f.HasChange {
			flags |= flagChange
		} else {
			ct = 0
		}
		if f.HasInode {
			flags |= flagInode
		} else {
			dev, ino = 0, 0
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(f.Size))
		b = binary.LittleEndian.AppendUint64(b, uint64(f.ModTime))
		b = binary.LittleEndian.AppendUint64(b, uint64(ct))
		b = binary.LittleEndian.AppendUint64(b, dev)
		b = binary.LittleEndian.AppendUint64(b, ino)
		b = append(b, flags)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

// UnmarshalBinary decodes a record MarshalBinary encoded; anything else
// gives a *FormatError.
func (r *Record) UnmarshalBinary(data []byte) error {
	d := &decoder{data: data}
	if len(data) < len(recordMagic)+4 {
		return d.fail("%d bytes, too short for a check record", len(data))
	}
	body := data[:len(data)-4]
	if got, want := binary.LittleEndian.Uint32(data[len(body):]), crc32.ChecksumIEEE(body); got != want {
		d.off = len(body)
		return d.fail("CRC-32 %08x, the bytes before it give %08x: damaged or cut short", got, want)
	}
	d.data = body
	if string(d.take(len(recordMagic))) != recordMagic {
		d.off = 0
		return d.fail("not a check record of unrmod")
	}
	if v := d.u16(); d.err == nil && v != recordFormat {
		return d.fail("record format %d, unrmod reads %d", v, recordFormat)
	}
	var out Record
	out.CheckVersion = d.u32()
	checked := int64(d.u64())
	out.Key = string(d.take(int(d.u16())))
	out.Basis = string(d.take(int(d.u16())))
	n := int(d.u16())
	if d.err == nil && n*fileIDSize > len(d.data)-d.off {
		return d.fail("%d file identities, the record has room for %d", n, (len(d.data)-d.off)/fileIDSize)
	}
	for range n {
		if d.err != nil {
			break
		}
		f := safefile.FileID{Size: int64(d.u64()), ModTime: int64(d.u64()), ChangeTime: int64(d.u64()), Device: d.u64(), Inode: d.u64()}
		flags := d.take(1)
		if d.err != nil {
			break
		}
		if flags[0]&^(flagChange|flagInode) != 0 {
			d.off--
			return d.fail("file flags 0x%02x, unrmod knows 0x%02x", flags[0], flagChange|flagInode)
		}
		f.HasChange, f.HasInode = flags[0]&flagChange != 0, flags[0]&flagInode != 0
		if !f.HasChange && f.ChangeTime != 0 || !f.HasInode && (f.Device != 0 || f.Inode != 0) {
			d.off--
			return d.fail("a file without a change time or file number holds one")
		}
		out.Files = append(out.Files, f)
	}
	if d.err != nil {
		return d.err
	}
	if d.off != len(d.data) {
		return d.fail("%d bytes after the last file identity", len(d.data)-d.off)
	}
	out.Checked = time.Unix(0, checked).UTC()
	*r = out
	return nil
}

// decoder reads a record's fields; the first failure sticks.
type decoder struct {
	data []byte
	off  int
	err  error
}

func (d *decoder) fail(format string, args ...any) error {
	if d.err == nil {
		d.err = &FormatError{Offset: d.off, Msg: fmt.Sprintf(format, args...)}
	}
	return d.err
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.data)-d.off {
		d.fail("needs %d bytes, %d remain", n, len(d.data)-d.off)
		return nil
	}
	b := d.data[d.off : d.off+n]
	d.off += n
	return b
}

func (d *decoder) u16() uint16 {
	if b := d.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}
