package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ufile"
)

// globList is a repeatable --filter flag.
type globList []string

func (g *globList) String() string { return strings.Join(*g, " ") }

func (g *globList) Set(s string) error {
	if err := checkGlob(s); err != nil {
		return err
	}
	*g = append(*g, s)
	return nil
}

// extractCommand returns the "extract" command.
func extractCommand() *command {
	return &command{
		name:     "extract",
		synopsis: "(CONTAINER.utoc | FILE.pak) -o DIR [--filter GLOB]... [--aes-key KEY] [--jobs N] [--sync] [--json]",
		summary:  "extract the chunks of an IoStore container, or the files of a pak, to files",
		description: `Write the chunks of an IoStore container as files under DIR: indexed
chunks under their path (the mount point without its leading "../", then
the directory-index path, as 'unrmod ls' shows it), the others under
chunks/<Type>/<chunk id>.bin. Chunks are decoded in parallel on all cores
(--jobs), one block at a time per worker, and every file is checked
against the hash in its chunk meta before it is kept.

Nothing is written outside DIR: paths with "..", absolute paths, drive
letters and symbolic links leading out of DIR are refused. Files are written
under temporary names and renamed only when every selected chunk has been
written, so a failure leaves no partial file and no folder it created;
existing files are replaced. Every name is checked first: names that would
be one file on Windows or macOS (case, Unicode normalisation), a folder in
the way and names over 255 bytes fail before anything is written. DIR is
locked against other unrmod runs. --sync also flushes each file, then the
folders, to disk (slower).

--filter selects chunks by path; it may be given several times (a chunk
matching any is extracted). '*' matches within one path component, '**'
across components, '?' one character, [abc] a class; a pattern without '/'
matches the file name alone. Matching ignores case. The command fails when
nothing matches.

Decoding needs the method: None, Zlib, Gzip and LZ4 work; Oodle blocks
decode through the game's own Oodle library, which unrmod neither ships
nor downloads: --oodle PATH, else $UNRMOD_OODLE, else the one found beside
the game (<Game>/Binaries/Win64/oo2core_9_win64.dll, or under
Engine/Binaries/ThirdParty/Oodle). Without it they fail, saying so, before
anything is written. An encrypted
container needs --aes-key. A progress bar is shown on standard error when it
is a terminal; the summary goes to standard output.

A .pak (versions 1 to 15, UE 4.0 to 6.0) extracts the same way: each file
under the mount point without its leading "../" followed by its path, as
'unrmod ls' shows it; each checked against the SHA-1 and sizes of its
entry; the same checks before writing, temporary names, renames and
cleanup. Zlib, Gzip and LZ4 files decode, Oodle files through the game's
Oodle library, as above. An encrypted pak (AES-ECB,
or AES-CTR for UE 6.0) needs --aes-key. --jobs does not apply: a pak's
files are read one after the other.`,
		examples: []string{
			"unrmod extract Paks/pakchunk0-Windows.utoc -o out/",
			"unrmod extract Paks/pakchunk0-Windows.utoc -o out/ --filter '*.uasset' --filter 'Game/Maps/**'",
			"unrmod extract Paks/Game.utoc -o out/ --aes-key 0x0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
			"unrmod extract Paks/pakchunk0-WindowsNoEditor.pak -o out/ --filter '*.uasset' --filter '*.uexp'",
		},
		setup: func(fs *flag.FlagSet) runner {
			out := fs.String("o", "", "write the files under `DIR` (required)")
			var filters globList
			fs.Var(&filters, "filter", "extract only chunks whose path matches `GLOB` (repeatable)")
			key := addKeyFlag(fs)
			jobs := fs.Int("jobs", 0, "decode `N` chunks at once; 0 means one per core")
			sync := fs.Bool("sync", false, "flush every file to disk before renaming it into place")
			asJSON := fs.Bool("json", false, "print the summary as one JSON document")
			return func(s streams, args []string) error {
				file, err := oneArg("extract", args, "CONTAINER.utoc")
				if err != nil {
					return err
				}
				switch {
				case *out == "":
					return usagef("extract", "missing -o DIR")
				case *jobs < 0:
					return usagef("extract", "--jobs must be positive, got %d", *jobs)
				}
				f, locks, err := openRead(s, file)
				if err != nil {
					return err
				}
				defer locks.Release()
				if f.Kind == ufile.Pak {
					return extractPak(s, file, *out, key, filters, *sync, *asJSON)
				}
				c, err := openIndexedContainer(file, key)
				if err != nil {
					return err
				}
				defer c.Close()
				opts := &iostore.ExtractOptions{Workers: *jobs, Sync: *sync, Session: s.sess}
				if len(filters) > 0 {
					opts.Filter = func(ch *iostore.Chunk, p string) bool { return matchAny(filters, p) }
				}
				bar := newProgress(s.err, "extract", 0)
				if bar != nil {
					opts.Progress = bar.set
				}
				start := time.Now()
				res, err := c.Extract(*out, opts)
				bar.finish()
				if err != nil {
					return err
				}
				if res.Files == 0 {
					return fmt.Errorf("%s: no chunk matches %s (see 'unrmod ls %s')", file, strings.Join(filters, " or "), file)
				}
				doc := extractDoc{File: file, Dir: *out, Files: res.Files, Bytes: res.Bytes, Paths: res.Paths}
				if *asJSON {
					return writeJSON(s.out, doc)
				}
				fmt.Fprintf(s.out, "extracted %d files (%d bytes) from %s to %s in %s\n", res.Files, res.Bytes, file, *out, time.Since(start).Round(time.Millisecond))
				return nil
			}
		},
	}
}

// extractDoc is the output of "unrmod extract --json".
type extractDoc struct {
	File  string   `json:"file"`
	Dir   string   `json:"dir"`
	Files int      `json:"files"`
	Bytes int64    `json:"bytes"`
	Paths []string `json:"paths"`
}
