package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/checkcache"
)

// The variables that place and turn off the remembered checks.
const (
	cacheDirEnv   = "UNRMOD_CACHE_DIR"
	checkCacheEnv = "UNRMOD_CHECK_CACHE"
)

// checksHelp is what the help of the commands that use the remembered
// checks says of them.
const checksHelp = `A game container checked whole (every chunk decoded and hashed, every
package verified) is remembered in unrmod's cache folder
($` + cacheDirEnv + `, else the user's cache folder, e.g. ~/.cache/unrmod)
by its files' sizes, times and file numbers: a later run that finds the
same files unchanged copies their chunks without decoding them again, and
says so. --no-check-cache or ` + checkCacheEnv + `=off checks every time
and remembers nothing.`

// checksFlag is --no-check-cache.
type checksFlag struct{ off bool }

// addChecksFlag registers --no-check-cache on fs.
func addChecksFlag(fs *flag.FlagSet) *checksFlag {
	c := &checksFlag{}
	fs.BoolVar(&c.off, "no-check-cache", false, "check game containers fully every time, remembering nothing (also "+checkCacheEnv+"=off)")
	return c
}

// cache returns the run's remembered checks: nil when turned off or when
// no cache folder can be named (nothing is remembered then).
func (c *checksFlag) cache() *checkcache.Cache {
	if c == nil || c.off || strings.EqualFold(os.Getenv(checkCacheEnv), "off") {
		return nil
	}
	if d := os.Getenv(cacheDirEnv); d != "" {
		return checkcache.Open(filepath.Join(d, "checks"))
	}
	d, err := checkcache.DefaultDir()
	if err != nil {
		return nil
	}
	return checkcache.Open(d)
}
