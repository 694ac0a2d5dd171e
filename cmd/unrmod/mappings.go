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

// load reads the mappings, or returns nil when none were given; an Oodle
// .usmap is read through the run's Oodle library (key's --oodle).
func (m *mappingsFlag) load(key *keyFlag) (*usmap.Mappings, error) {
	if m == nil || *m.path == "" {
		return nil, nil
	}
	codecs, err := key.codecs(*m.path)
	if err != nil {
		return nil, err
	}
	return usmap.Open(*m.path, &usmap.Options{Codecs: codecs})
}
