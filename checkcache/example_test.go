package checkcache_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/unrmod/unrmod/checkcache"
	"github.com/unrmod/unrmod/safefile"
)

// The identities of a file taken before and after it was checked, from
// the handle it was read through, are recorded; a later run that finds the
// same file skips the check.
func Example() {
	dir, _ := os.MkdirTemp("", "checkcache")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "Game.utoc")
	os.WriteFile(file, []byte("contents"), 0o644)
	time.Sleep(150 * time.Millisecond) // a check remembered begins a clock tick after the last change

	identify := func() []safefile.FileID {
		f, _ := os.Open(file)
		defer f.Close()
		id, _ := safefile.FileIDOf(f)
		return []safefile.FileID{id}
	}
	cache := checkcache.Open(filepath.Join(dir, "cache"))
	const basis = "key=none"
	if _, err := cache.Lookup(file, identify(), basis); err != nil {
		fmt.Println("first run:", checkcache.Describe(err))
	}
	before := identify()
	start := time.Now()
	// ... read and check the file ...
	if err := cache.Record(file, before, identify(), basis, start); err != nil {
		fmt.Println(err)
	}
	if _, err := cache.Lookup(file, identify(), basis); err == nil {
		fmt.Println("second run: checked before, unchanged since")
	}
	// Output:
	// first run: no full check of it is remembered
	// second run: checked before, unchanged since
}
