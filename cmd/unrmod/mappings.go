package main

import (
	"flag"

	"github.com/unrmod/unrmod/usmap"
)

// mappingsFlag is --mappings: the game's .usmap property schema, which
// packages cooked with unversioned properties need.
type mappingsFlag struct{ path *string }

// addMappingsFlag registers --mappings on fs.
func addMappingsFlag(fs *flag.FlagSet) *mappingsFlag {
	return &mappingsFlag{fs.String("mappings", "", "the game's property schema `FILE` (.usmap, as UE4SS or Dumper-7 write it), which packages cooked with unversioned properties need")}
}

// load reads the mappings, or returns nil when none were given.
func (m *mappingsFlag) load() (*usmap.Mappings, error) {
	if m == nil || *m.path == "" {
		return nil, nil
	}
	return usmap.Open(*m.path, nil)
}
