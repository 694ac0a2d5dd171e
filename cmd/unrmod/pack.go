package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/unrmod/unrmod/convert"
	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/iostore/pack"
	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ufile"
)

// packCommand returns the "pack" command.
func packCommand() *command {
	return &command{
		name:     "pack",
		synopsis: "DIR -o OUT/NAME_P[.pak] --engine VERSION [--base GAME.utoc] [--compression zlib|lz4|none|oodle] [flags]",
		summary:  "pack loose zen packages into an IoStore container (.utoc, .ucas and .pak), or cooked files into a .pak",
		description: `Pack the cooked files under DIR into the container OUT/NAME_P.utoc and its
.ucas, with the companion OUT/NAME_P.pak that makes the game mount it.

DIR is laid out like the game's root, as 'unrmod extract' writes it. Zen
packages (.uasset, .umap) and their bulk data (.ubulk, .uptnl, .m.ubulk)
become chunks. Cooked assets (a .uasset or .umap with its .uexp, as the
editor cooks them for paks) are converted to the zen packages the engine's
packer makes of them, all of them together (for UE 4.26/4.27 the export
bundles of packages that depend on each other are decided together); their
bulk files become chunks as they are. A dependency of a cooked asset on a
package not in DIR (the game's) is written as the engine writes it for a
package it does not pack. A package's name comes from its path, as the engine maps it:
<Game>/Content/X.uasset is /Game/X, Engine/Content/X is /Engine/X and
.../Plugins/.../<Plugin>/Content/X is /<Plugin>/X; it must be the name the
package holds. Chunks that extract wrote without a path (chunks/<Type>/<id>.bin)
go back under their ids. Any other file (ini, locres, ...) goes into the .pak.

UE5 shader libraries (ShaderArchive-<Library>-<Format>.ushaderbytecode)
become chunks, as the engine's packer makes them: a game running from
IoStore never reads one from the .pak. The library header extract wrote
goes back into its ShaderCodeLibrary chunk. A library as the cooker wrote
it (UE 5.0-5.7) is converted: its shaders are regrouped into ShaderCode
chunks, each group compressed with Oodle Mermaid when the game's Oodle
library is given (--oodle; it is needed to read the cooker's compressed
shaders), and the cooker's ShaderAssetInfo-*.assetinfo.json gives each
package's shader map hashes in its store entry.

The container header is built from the packages. What no package holds (the
UE 4.27 load order, UE5 shader map hashes) comes from the container header
extract wrote into DIR, or from --base, the game container the packages come
from (a .utoc, or a container header saved as a file).

--engine picks the TOC version (` + pack.TocVersions() + `),
the container-header version and the chunk hash (SHA-1 before UE5,
BLAKE3-160 after); --base takes them from the game's container. A mod
container needs the _P suffix to win over the game's files; for UE 4.27
its name should also sort after the game's pak (e.g. z_MyMod_P), because
the first store entry registered wins there. The container id comes from
the output's name (global.utoc gets the engine's 0xFFFFFFFFFFFFFFFF). As the
engine's packer does, UE5 containers get perfect-hash seeds
(--perfect-hash=false leaves them out), the block size is a power of two
and, with --partition-size, every chunk stays in one partition.
--aes-key encrypts the container's blocks and directory index with
AES-256-ECB, and for UE 6.0 (TOC version 10) with AES-256-CTR, a fresh
random IV per block and one for the index; --key-guid names the key.

--compression oodle compresses with Kraken (level Normal) through the
game's own Oodle library, which unrmod neither ships nor downloads: give it
with --oodle PATH or UNRMOD_OODLE, or let unrmod find it beside the game of
--base (<Game>/Binaries/Win64/oo2core_9_win64.dll). Blocks the library does
not make smaller are stored, as the engine does.

The output is read back and verified before it replaces anything; a
failed pack leaves no file. No output file (.utoc, .ucas partitions, .pak)
may be a file of --base, through a link or by a name that differs only in
the case of its extension: such an output is refused before anything is
read. Progress bars (converting, then packing) are
drawn on standard error when it is a terminal.

An -o ending in .pak packs DIR into that one pak instead, for games that
load cooked assets (.uasset/.uexp/.ubulk) from paks: every file under DIR,
sorted by path, mounted at ../../../ followed by the folder they share (as
UnrealPak mounts them; --mount-point sets another), in the pak version
--engine reads: ` + pak.EngineVersions() + `.
--compression is zlib (the default, kept for files it makes smaller), none
or oodle (version 8+ paks); --aes-key encrypts the index and the files (AES-256-ECB; AES-CTR
with a fresh IV per file and index part for 6.0, as UE 6.0 encrypts), --key-guid
names the key. A folder 'unrmod extract' wrote from a pak packs back into
a pak with the same mount point, paths and bytes. The pak is read back and
checked before it replaces anything.`,
		examples: []string{
			"unrmod pack extracted/ -o mods/z_MyMod_P --engine 4.27",
			"unrmod pack MyCookedMod/ -o Paks/~mods/z_MyMod_P --engine 4.27 --base Paks/pakchunk0-WindowsNoEditor.utoc",
			"unrmod pack mymod/ -o Paks/~mods/z_MyMod_P --base Paks/pakchunk0-WindowsNoEditor.utoc",
			"unrmod pack out/ -o /tmp/Game-Windows --engine 5.5 --compression none --dry-run",
			"unrmod pack extracted/ -o Paks/~mods/z_MyMod_P --engine 6.0 --aes-key 0x0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
			"unrmod pack extracted/ -o Paks/~mods/z_MyMod_P.pak --engine 4.25",
		},
		setup: func(fs *flag.FlagSet) runner {
			out := fs.String("o", "", "write `OUT/NAME`.utoc, .ucas and .pak (required)")
			engine := fs.String("engine", "", "the game's engine `VERSION`: "+zen.EngineNames()+" (or --base)")
			base := fs.String("base", "", "the game's container `GAME.utoc` (or a container header file): its versions, block size and store entries")
			comp := fs.String("compression", "zlib", "`METHOD` of the blocks: zlib, lz4, none or oodle (Kraken, through the game's Oodle library: --oodle)")
			mount := fs.String("mount-point", "", "directory-index mount `POINT`, e.g. ../../../Maine/Content/ (default: the files' common directory)")
			blockSize := fs.String("block-size", "64K", "compression block `SIZE`, a power of two (bytes, or with K/M)")
			partSize := fs.String("partition-size", "0", "split the .ucas into partitions of at most `SIZE` (bytes, or with K/M/G); 0 keeps one file")
			perfect := fs.Bool("perfect-hash", true, "write perfect-hash seeds, as the engine does (UE5 TOC versions; --perfect-hash=false leaves them out)")
			keyGUID := fs.String("key-guid", "", "the `GUID` the game knows the AES key by (32 hex digits; default all zero)")
			jobs := fs.Int("j", 0, "compress `N` blocks, or convert N cooked assets, at once (default: the number of CPUs)")
			dry := fs.Bool("dry-run", false, "print what would be packed and write nothing")
			asJSON := fs.Bool("json", false, "print the report as one JSON document")
			key := addKeyFlag(fs)
			return func(s streams, args []string) error {
				dir, err := oneArg("pack", args, "DIR")
				if err != nil {
					return err
				}
				if *out == "" {
					return usagef("pack", "missing -o OUT/NAME")
				}
				if st, err := os.Stat(dir); err != nil || !st.IsDir() {
					return usagef("pack", "%s is not a folder", dir)
				}
				if strings.EqualFold(filepath.Ext(*out), ".pak") {
					for _, name := range []string{"base", "block-size", "partition-size", "perfect-hash", "j"} {
						if isFlagSet(fs, name) {
							return usagef("pack", "--%s applies to containers, not to a .pak output", name)
						}
					}
					return packPak(s, dir, *out, pakPackFlags{engine: *engine, compression: *comp, mount: *mount,
						keyGUID: *keyGUID, key: key, dry: *dry, asJSON: *asJSON})
				}
				// Every file of the run, checked against each other before
				// anything is read: no output part may be a part of --base.
				utoc := iostore.TocPath(*out)
				uses := []safefile.Use{{Path: dir, What: "the folder packed"}}
				var baseFile *ufile.File
				if *base != "" {
					if baseFile = recognise(*base); baseFile.Kind == ufile.Container {
						uses = append(uses, iostore.ContainerUses(*base, false, true, "base container")...)
					} else {
						uses = append(uses, safefile.Use{Path: *base, What: "the base container header"})
					}
				}
				if !*dry {
					uses = append(uses, iostore.ContainerUses(utoc, true, true, "output container")...)
				}
				locks, err := checkAndLock(s, uses...)
				if err != nil {
					return err
				}
				defer locks.Release()
				opts := &pack.Options{}
				var baseTOC *iostore.TOC
				if *base != "" {
					h, t, err := loadBase(baseFile, key)
					if err != nil {
						return err
					}
					opts.Base, opts.BaseTOC, baseTOC = h, t, t
				}
				switch {
				case *engine != "":
					if opts.Engine, err = zen.ParseEngine(*engine); err != nil {
						return usagef("pack", "--engine: %v", err)
					}
				case opts.Base != nil && opts.Base.Version != zen.HeaderUE4:
					opts.Engine = opts.Base.Version.NewestEngine()
				case opts.Base != nil:
					opts.Engine = zen.Engine{Major: 4, Minor: 27}
				default:
					return usagef("pack", "give the game's engine with --engine (%s) or its container with --base", zen.EngineNames())
				}
				wo := &opts.Writer
				if wo.BlockSize, err = parseSize32(*blockSize); err != nil {
					return usagef("pack", "--block-size: %v", err)
				}
				if err := iostore.CheckBlockSize(wo.BlockSize); err != nil {
					return usagef("pack", "--block-size: %v", err)
				}
				if wo.PartitionSize, err = parseSize(*partSize); err != nil {
					return usagef("pack", "--partition-size: %v", err)
				}
				if baseTOC != nil {
					opts.TocVersion = baseTOC.Header.Version
					if !isFlagSet(fs, "block-size") {
						wo.BlockSize = baseTOC.Header.CompressionBlockSize
					}
				}
				near := dir
				if *base != "" {
					near = *base
				}
				if wo.Codecs, err = key.codecs(near); err != nil {
					return err
				}
				opts.Shaders = key.oodle.shaderOptions()
				switch strings.ToLower(*comp) {
				case "zlib", "lz4", "none":
					wo.Method = *comp
				case "oodle":
					if err := canWriteOodle(wo.Codecs); err != nil {
						return err
					}
					wo.Method = "Oodle"
				default:
					return usagef("pack", "--compression %q: want zlib, lz4, none or oodle", *comp)
				}
				if *mount != "" {
					m := filepath.ToSlash(*mount)
					if !strings.HasPrefix(m, "../../../") || strings.Contains(m[len("../../../"):], "..") {
						return usagef("pack", "--mount-point %q: want a path under ../../../ (the game's root), e.g. ../../../Maine/Content/", *mount)
					}
					wo.MountPoint = strings.TrimSuffix(m, "/") + "/"
				}
				wo.Key, wo.Workers = key.key, *jobs
				opts.NoPerfectHash = !*perfect
				if *perfect && isFlagSet(fs, "perfect-hash") {
					wo.PerfectHash = true // asked for: refused for a TOC version without seeds
				}
				if *keyGUID != "" {
					if wo.KeyGUID, err = parseGUID(*keyGUID); err != nil {
						return usagef("pack", "--key-guid: %v", err)
					}
				}
				v := pack.TocVersionFor(opts.Engine)
				if opts.TocVersion != 0 {
					v = opts.TocVersion
				}
				plan, err := pack.Scan(dir, v)
				if err != nil {
					return err
				}
				if *dry {
					return printPackPlan(s.out, plan, utoc, opts, v, *asJSON)
				}
				wo.Session = s.sess
				opts.Jobs = *jobs
				var conv *progress
				if n := plan.Count(pack.Cooked); n > 0 {
					conv = newCountProgress(s.err, "convert", int64(2*n))
					opts.ConvertProgress = func(done, total int) { conv.set(int64(done), int64(total)) }
				}
				bar := newProgress(s.err, "pack", plan.Bytes())
				wo.Progress = bar.add
				start := time.Now()
				res, err := pack.Pack(plan, utoc, opts)
				conv.finish()
				bar.finish()
				if errors.Is(err, convert.ErrOodleRequired) {
					return fmt.Errorf("%w: %s (a game running from IoStore does not read a .ushaderbytecode from the .pak, so pack converts it)", err, oodleHow)
				}
				if err != nil {
					return err
				}
				doc := packDoc{Dir: dir, Container: utoc, Pak: res.Pak, Engine: opts.Engine.String(), TocVersion: int(v),
					Compression: wo.Method, Packages: res.Packages, ShaderLibraries: res.ShaderLibraries, Chunks: res.Chunks, Bytes: res.Bytes, Loose: len(res.Loose),
					Seconds: time.Since(start).Seconds(), Warnings: []string{}}
				for _, w := range res.Warnings {
					msg := packWarning(w)
					doc.Warnings = append(doc.Warnings, msg)
					fmt.Fprintf(s.err, "unrmod: warning: %s\n", msg)
				}
				doc.Stored = res.Stored
				if *asJSON {
					return writeJSON(s.out, doc)
				}
				fmt.Fprintln(s.out, doc.summary())
				return nil
			}
		},
	}
}

// packDoc is the report of "unrmod pack".
type packDoc struct {
	Dir         string `json:"dir"`
	Container   string `json:"container"`
	Pak         string `json:"pak"`
	Engine      string `json:"engine"`
	TocVersion  int    `json:"toc_version"`
	Compression string `json:"compression"`
	Packages    int    `json:"packages"`
	// ShaderLibraries counts the UE5 shader libraries stored as chunks.
	ShaderLibraries int     `json:"shader_libraries"`
	Chunks          int     `json:"chunks"`
	Bytes           int64   `json:"bytes"`
	Stored          int64   `json:"stored_bytes"`
	Loose           int     `json:"loose_files"`
	Seconds         float64 `json:"seconds"`
	// Warnings are pack's warnings, as printed on standard error.
	Warnings []string `json:"warnings"`
}

// packWarning words a warning of pack, with the flag that avoids it.
func packWarning(w pack.Warning) string {
	if w.Kind == pack.UncheckedShaderLibrary {
		return w.String() + "; give the game's container with --base GAME.utoc to check"
	}
	if w.Kind == pack.NoLoadOrder && !w.BaseGiven {
		return w.String() + "; give the game's container with --base GAME.utoc (or pack a folder 'unrmod extract' wrote, which holds its container header)"
	}
	return w.String()
}

func (d *packDoc) summary() string {
	rate := ""
	if d.Seconds > 0 {
		rate = fmt.Sprintf(", %.0f MB/s", float64(d.Bytes)/1e6/d.Seconds)
	}
	libs := ""
	if d.ShaderLibraries > 0 {
		libs = " and " + plural(d.ShaderLibraries, "shader library")
	}
	return fmt.Sprintf("packed %d packages%s (%d chunks, %d bytes, %d stored with %s) into %s for UE %s (TOC version %d); %s holds %d loose files; %.2fs%s",
		d.Packages, libs, d.Chunks, d.Bytes, d.Stored, strings.ToLower(d.Compression), d.Container, d.Engine, d.TocVersion, d.Pak, d.Loose, d.Seconds, rate)
}

// printPackPlan prints what pack would do.
func printPackPlan(w io.Writer, plan *pack.Plan, utoc string, opts *pack.Options, v iostore.TocVersion, asJSON bool) error {
	type entry struct {
		Path    string `json:"path"`
		Kind    string `json:"kind"`
		Package string `json:"package,omitempty"`
		Chunk   string `json:"chunk,omitempty"`
		Size    int64  `json:"size"`
	}
	doc := struct {
		Container  string  `json:"container"`
		Engine     string  `json:"engine"`
		TocVersion int     `json:"toc_version"`
		Files      []entry `json:"files"`
	}{Container: utoc, Engine: opts.Engine.String(), TocVersion: int(v), Files: []entry{}}
	for _, f := range plan.Files {
		e := entry{Path: f.Path, Kind: f.Kind.String(), Package: f.Package, Size: f.Size}
		if f.Kind != pack.Loose && f.Kind != pack.CookedExports {
			e.Chunk = f.ID.String()
		}
		doc.Files = append(doc.Files, e)
	}
	if asJSON {
		return writeJSON(w, doc)
	}
	fmt.Fprintf(w, "would pack %d packages, %d chunks in all (%d bytes) into %s for UE %s (TOC version %d); %d loose files into the .pak\n",
		plan.Count(pack.Package)+plan.Count(pack.Cooked), len(plan.Files)-plan.Count(pack.Loose)-plan.Count(pack.Header)-plan.Count(pack.CookedExports), plan.Bytes(), utoc, opts.Engine, v, plan.Count(pack.Loose))
	for _, e := range doc.Files {
		chunk := e.Chunk
		if chunk == "" {
			chunk = "-"
		}
		fmt.Fprintf(w, "  %-24s %-26s %10d  %s\n", e.Kind, chunk, e.Size, e.Path)
	}
	return nil
}

// loadBase reads --base: a container (its TOC and container header) or a
// container header saved as a file.
func loadBase(base *ufile.File, key *keyFlag) (*zen.ContainerHeader, *iostore.TOC, error) {
	file := base.Path
	if base.Kind == ufile.Container {
		c, err := openContainer(file, key)
		if err != nil {
			return nil, nil, err
		}
		defer c.Close()
		if err := c.VerifyHeaderInput(); err != nil {
			return nil, nil, err
		}
		h, err := c.ContainerHeader()
		if err != nil {
			return nil, nil, fmt.Errorf("--base %s: %w", file, err)
		}
		return h, c.TOC(), nil
	}
	data, err := safefile.ReadRegular(file, zen.MaxContainerHeaderSize, "a container header")
	if err != nil {
		return nil, nil, err
	}
	h, err := zen.DecodeContainerHeader(file, data)
	if err != nil {
		return nil, nil, fmt.Errorf("--base: %w", err)
	}
	if err := zen.CheckBaseHeader(file, h); err != nil {
		return nil, nil, err
	}
	return h, nil, nil
}

// isFlagSet reports whether the flag was given on the command line.
func isFlagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseSize parses a byte count with an optional K, M or G suffix (powers
// of 1024).
func parseSize(s string) (uint64, error) {
	mult := uint64(1)
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	switch {
	case strings.HasSuffix(t, "K"):
		mult, t = 1<<10, t[:len(t)-1]
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, t[:len(t)-1]
	case strings.HasSuffix(t, "G"):
		mult, t = 1<<30, t[:len(t)-1]
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || n > 1<<40/mult {
		return 0, fmt.Errorf("%q is not a size (e.g. 65536, 64K, 2G)", s)
	}
	return n * mult, nil
}

func parseSize32(s string) (uint32, error) {
	n, err := parseSize(s)
	if err == nil && (n == 0 || n > 1<<24-1 || n%16 != 0) {
		err = errors.New("want a multiple of 16 between 16 and 16M-1")
	}
	return uint32(n), err
}

// parseGUID parses 32 hex digits (dashes and braces allowed) in the
// engine's text order.
func parseGUID(s string) (iostore.GUID, error) {
	t := strings.NewReplacer("-", "", "{", "", "}", "").Replace(strings.TrimPrefix(strings.ToLower(s), "0x"))
	var g iostore.GUID
	if len(t) != 32 {
		return g, fmt.Errorf("%q: want 32 hex digits", s)
	}
	for i := range g {
		x, err := strconv.ParseUint(t[8*i:8*i+8], 16, 32)
		if err != nil {
			return g, fmt.Errorf("%q: want 32 hex digits", s)
		}
		g[i] = uint32(x)
	}
	return g, nil
}
