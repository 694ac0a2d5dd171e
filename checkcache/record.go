package checkcache

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
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

// recordStruct names a check record in its errors.
const recordStruct = "check record"

// UnmarshalBinary decodes a record MarshalBinary encoded; anything else
// gives a *ue.FormatError (matching ue.ErrCorrupt) at the offset of what
// is wrong.
func (r *Record) UnmarshalBinary(data []byte) error {
	fail := func(off int, format string, args ...any) error {
		return ue.Errorf("", recordStruct, int64(off), ue.ErrCorrupt, format, args...)
	}
	if len(data) < len(recordMagic)+4 {
		return fail(0, "%d bytes, too short for a check record", len(data))
	}
	body := data[:len(data)-4]
	if got, want := binary.LittleEndian.Uint32(data[len(body):]), crc32.ChecksumIEEE(body); got != want {
		return fail(len(body), "CRC-32 %08x, the bytes before it give %08x: damaged or cut short", got, want)
	}
	c := binio.NewCursor(body, 0)
	c.SetKind(ue.ErrCorrupt)
	if string(c.Bytes(len(recordMagic), "magic")) != recordMagic {
		return fail(0, "not a check record of unrmod")
	}
	if v := c.U16("format version"); c.Err() == nil && v != recordFormat {
		return fail(len(recordMagic), "record format %d, unrmod reads %d", v, recordFormat)
	}
	var out Record
	out.CheckVersion = c.U32("check version")
	checked := c.I64("check time")
	out.Key = string(c.Bytes(int(c.U16("key length")), "key"))
	out.Basis = string(c.Bytes(int(c.U16("basis length")), "basis"))
	n := int(c.U16("file count"))
	if c.Err() == nil && n*fileIDSize > c.Len() {
		return fail(c.Pos()-2, "%d file identities, the record has room for %d", n, c.Len()/fileIDSize)
	}
	for range n {
		f := safefile.FileID{Size: c.I64("file size"), ModTime: c.I64("modification time"), ChangeTime: c.I64("change time"),
			Device: c.U64("device"), Inode: c.U64("inode")}
		flags := c.U8("file flags")
		if c.Err() != nil {
			break
		}
		if flags&^(flagChange|flagInode) != 0 {
			return fail(c.Pos()-1, "file flags 0x%02x, unrmod knows 0x%02x", flags, flagChange|flagInode)
		}
		f.HasChange, f.HasInode = flags&flagChange != 0, flags&flagInode != 0
		if !f.HasChange && f.ChangeTime != 0 || !f.HasInode && (f.Device != 0 || f.Inode != 0) {
			return fail(c.Pos()-1, "a file without a change time or file number holds one")
		}
		out.Files = append(out.Files, f)
	}
	if err := c.Err(); err != nil {
		return ue.CursorError("", recordStruct+" ", err)
	}
	if c.Len() != 0 {
		return fail(c.Pos(), "%d bytes after the last file identity", c.Len())
	}
	out.Checked = time.Unix(0, checked).UTC()
	*r = out
	return nil
}
