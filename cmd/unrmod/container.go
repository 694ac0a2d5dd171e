package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
	"github.com/unrmod/unrmod/ufile"
)

// recognise tells what the file a command is given is (ufile.Open). What
// cannot be recognised or read is of kind ufile.Unknown, and its error
// comes from (*ufile.File).Legacy, where a legacy package was meant.
func recognise(file string) *ufile.File {
	f, _ := ufile.Open(file, nil)
	return f
}

// checkAndLock refuses uses that are one file where they must not be (an
// output that is an input, two outputs that are one file) and locks them
// for the run: what every command that writes does first. Release the
// locks when done.
func checkAndLock(s streams, uses ...safefile.Use) (*safefile.Locks, error) {
	if err := safefile.CheckUses(uses...); err != nil {
		return nil, err
	}
	return s.sess.Lock(uses...)
}

// openRead recognises file and takes the shared locks of the files a
// command that reads it reads (a container's .utoc and each of its .ucas
// partitions, or the file), so that it waits for a run that is replacing
// them rather than read a container half replaced. Release them when done.
func openRead(s streams, file string) (*ufile.File, *safefile.Locks, error) {
	f := recognise(file)
	locks, err := s.sess.Lock(f.Uses()...)
	if err != nil {
		return nil, nil, err
	}
	return f, locks, nil
}

// readLegacy decodes the legacy package f, refusing a cooked asset, which
// cmd does not take yet, and otherwise saying what f is instead.
func readLegacy(cmd string, f *ufile.File) (*reader.Package, error) {
	if f.Kind == ufile.CookedAsset {
		return nil, fmt.Errorf("%w; the zen packages of UE 4.26+ and UE5 games are read from their IoStore containers (see unrmod extract)", f.NotTaken("unrmod "+cmd))
	}
	return f.Legacy()
}

// keyFlag is the --aes-key flag: a key as 64 hex digits, 0x hex, base64 or
// the 32 characters of a plain-text key. A bad key is a usage error. It
// holds --oodle too: the two things that reading the blocks of a
// container or pak may need.
type keyFlag struct {
	key   *ue.Key
	oodle *oodleFlag
}

func (k *keyFlag) String() string { return "" }

func (k *keyFlag) Set(s string) error {
	key, err := ue.ParseKey(s)
	if err != nil {
		return err
	}
	k.key = &key
	return nil
}

// addKeyFlag registers --aes-key and --oodle on fs.
func addKeyFlag(fs *flag.FlagSet) *keyFlag {
	k := &keyFlag{}
	fs.Var(k, "aes-key", "AES-256 `KEY` of an encrypted container: 64 hex digits (0x optional), base64, or a 32-character plain-text key")
	k.oodle = addOodleFlag(fs)
	return k
}

// codecs returns the compression methods of the run (see oodleFlag).
func (k *keyFlag) codecs(near string) (*ue.Codecs, error) {
	if k == nil {
		return nil, nil
	}
	return k.oodle.codecs(near)
}

// openContainer opens a container with the key and the Oodle library from
// the command line.
func openContainer(file string, key *keyFlag) (*iostore.Container, error) {
	var opts iostore.Options
	if key != nil {
		opts.Key = key.key
	}
	codecs, err := key.codecs(file)
	if err != nil {
		return nil, err
	}
	opts.Codecs = codecs
	return iostore.Open(file, &opts)
}

// openIndexedContainer opens a container for a command that shows or writes
// paths: it fails when the directory index cannot be read (an encrypted
// container without its key, or with a wrong one).
func openIndexedContainer(file string, key *keyFlag) (*iostore.Container, error) {
	c, err := openContainer(file, key)
	if err != nil {
		return nil, err
	}
	if _, err := c.DirectoryIndex(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// writeDoc prints a command's document as JSON, YAML or its text form.
func writeDoc(w io.Writer, asJSON, asYAML bool, doc any, text func(io.Writer) error) error {
	switch {
	case asJSON:
		return writeJSON(w, doc)
	case asYAML:
		return writeYAML(w, doc)
	}
	return text(w)
}

// methodsText joins a chunk's block methods: "Zlib", "Zlib+None", "-" for
// an empty chunk.
func methodsText(ms []string) string {
	if len(ms) == 0 {
		return "-"
	}
	return strings.Join(ms, "+")
}

// typeCounts summarizes the chunk types: "97 ExportBundleData, 14 BulkData".
func typeCounts(c *iostore.Container) (text string, counts map[string]int) {
	counts = map[string]int{}
	var order []iostore.ChunkType
	seen := map[iostore.ChunkType]bool{}
	for _, ch := range c.Chunks() {
		counts[ch.Type.String()]++
		if !seen[ch.Type] {
			seen[ch.Type] = true
			order = append(order, ch.Type)
		}
	}
	sort.Slice(order, func(a, b int) bool { return order[a] < order[b] })
	var parts []string
	for _, t := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[t.String()], t))
	}
	return strings.Join(parts, ", "), counts
}

// stderrIsTerminal reports whether w is a terminal, for progress output.
func stderrIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// errorMsg returns an error's message without the file name and structure
// a *ue.FormatError starts with, for output lines that name them
// already.
func errorMsg(err error) string {
	var fe *ue.FormatError
	if errors.As(err, &fe) && fe.Msg != "" {
		return reword(err, fe.Msg)
	}
	return errText(err)
}

// reportOptions returns the options of the reports the command line
// prints: errors they quote name their flags.
func reportOptions() *report.Options { return &report.Options{Setting: flagFor} }

// flagFor names the flag that gives a setting a library error advises.
func flagFor(s ue.Setting) string {
	switch s {
	case ue.SettingKey:
		return "--aes-key"
	case ue.SettingExport:
		return "--export"
	case ue.SettingInPlace:
		return "--in-place"
	case ue.SettingForce:
		return "--force"
	case ue.SettingPreserveLayout:
		return "--layout preserve"
	case ue.SettingOodle:
		return oodleHow
	}
	return ""
}

// errText returns err's message as the command line prints it: each
// setting the error advises is named by its flag.
func errText(err error) string { return ue.Reword(err, err.Error(), flagFor) }

// reword returns text, a part of err's message, with each setting err
// advises named by its flag.
func reword(err error, text string) string { return ue.Reword(err, text, flagFor) }
