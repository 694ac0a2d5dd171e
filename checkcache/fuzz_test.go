package checkcache_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/unrmod/unrmod/checkcache"
	"github.com/unrmod/unrmod/safefile"
)

// FuzzRecord decodes arbitrary bytes as a check record: never a panic,
// and a record that decodes encodes to the same bytes.
func FuzzRecord(f *testing.F) {
	seed := &checkcache.Record{Key: "/home/modder/Game/Content/Paks/pakchunk0-Windows.utoc", CheckVersion: checkcache.CheckVersion,
		Basis: "key=none;methods=Zlib", Checked: time.Unix(1764200000, 5).UTC(),
		Files: []safefile.FileID{{Size: 12013, ModTime: 1764100000000000000, ChangeTime: 1764100000000000001, Device: 2049, Inode: 4242, HasChange: true, HasInode: true},
			{Size: 1145648, ModTime: 1764100000000000002}}}
	data, err := seed.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)-4])
	f.Add([]byte("unrmodCK"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r checkcache.Record
		if err := r.UnmarshalBinary(b); err != nil {
			return
		}
		again, err := r.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("decoded and encoded again, the record differs")
		}
	})
}
