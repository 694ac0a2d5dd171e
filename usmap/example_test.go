package usmap_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/unrmod/unrmod/usmap"
)

// Read a game's mappings and list the schema of one of its structs: its
// own properties first, then those of its supers.
func Example() {
	dir := os.Getenv("UNRMOD_CORPUS")
	if dir == "" {
		return
	}
	m, err := usmap.Open(filepath.Join(dir, "mappings/cue4parse_ue5_8/CUE4ParseFixtures-Zstandard.usmap"), nil)
	if err != nil {
		log.Fatal(err)
	}
	slots, err := m.Schema("FixtureTableRow")
	if err != nil {
		log.Fatal(err)
	}
	for i, s := range slots {
		fmt.Println(i, s.Property.Name, s.Property.Type)
	}
}
