package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/audio"
	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ufile"
)

// exportSoundCommand returns the "export-sound" command.
func exportSoundCommand() *command {
	return &command{
		name:     "export-sound",
		synopsis: "FILE [OBJECT...] -o DIR [--json | --yaml]",
		summary:  "save the WAV files of Sound exports and the modules of Music exports",
		description: `Save the file a Sound or Music export embeds into DIR: a sound's whole
RIFF WAVE file as NAME.wav, a music's tracker module as NAME.it, .s3m, .xm,
.mod ... (the extension comes from the module's signature, or from the
export's FileType when it has none). The bytes are written exactly as the
package stores them, each file atomically; DIR is created if needed.

OBJECT names an export as patches do: its path, a unique dotted suffix,
or Class'Path'. Without OBJECT every Sound and Music export is saved, and
the ones whose data array is empty (server copies of packages are often
stripped so) are counted. Two exports with the same name in different
groups are saved as Group.NAME.ext.

For each file the output gives its size, FileType and, for WAV files, the
format field of the fmt chunk (PCM, IMA ADPCM ...), channels, sample rate
and length. A WAV file the engine would not play, or a FileType that
disagrees with the file's signature, gives a warning; a Sound whose
FileType is WAV but whose data is no RIFF WAVE file, or a named object that
is no Sound or Music, is an error. A replace-sound patch takes a saved WAV
back.`,
		examples: []string{
			"unrmod export-sound examples/packages/UnrmodDemo.u -o sounds/",
			"unrmod export-sound Sounds/Activates.uax Beeps.mactiv10 -o out/",
			"unrmod export-sound Music/Foregone.umx -o music/ --json",
		},
		setup: func(fs *flag.FlagSet) runner {
			out := fs.String("o", "", "write the files into directory `DIR` (required)")
			asJSON := fs.Bool("json", false, "print one JSON document")
			asYAML := fs.Bool("yaml", false, "print one YAML document")
			return func(s streams, args []string) error {
				switch {
				case len(args) == 0:
					return usagef("export-sound", "missing FILE")
				case *out == "":
					return usagef("export-sound", "missing -o DIR")
				case *asJSON && *asYAML:
					return usagef("export-sound", "--json and --yaml exclude each other")
				}
				file, objects := args[0], args[1:]
				for _, o := range objects {
					if strings.TrimSpace(o) == "" {
						return usagef("export-sound", "an OBJECT is empty")
					}
				}
				if st, err := os.Stat(*out); err == nil && !st.IsDir() {
					return usagef("export-sound", "-o %s is a file; give a directory", *out)
				}
				f := recognise(file)
				switch f.Kind {
				case ufile.Container, ufile.ZenPackage, ufile.ContainerHeader:
					return fmt.Errorf("%s: export-sound reads legacy packages (.uax, .umx, .u, .unr ...); this is not one", file)
				}
				p, err := readLegacy("export-sound", f)
				if err != nil {
					return err
				}
				doc, err := exportSounds(file, p, objects, *out)
				if err != nil {
					return err
				}
				for _, f := range doc.Files {
					if f.Warning != "" {
						fmt.Fprintf(s.err, "unrmod: warning: %s: %s\n", f.Object, f.Warning)
					}
				}
				return writeDoc(s.out, *asJSON, *asYAML, doc, doc.writeText)
			}
		},
	}
}

// soundsDoc is the output of "unrmod export-sound".
type soundsDoc struct {
	File  string      `json:"file" yaml:"file"`
	Dir   string      `json:"dir" yaml:"dir"`
	Files []soundFile `json:"files" yaml:"files"`
	// Empty lists the Sound and Music exports whose data array is empty
	// (only when no OBJECT is given).
	Empty []string `json:"empty,omitempty" yaml:"empty,omitempty"`
}

// soundFile is one saved file.
type soundFile struct {
	Object   string `json:"object" yaml:"object"`
	Class    string `json:"class" yaml:"class"`
	FileType string `json:"file_type" yaml:"file_type"`
	Path     string `json:"path" yaml:"path"`
	Size     int    `json:"size" yaml:"size"`
	// Offset is where the file's bytes start in the package.
	Offset int64 `json:"offset" yaml:"offset"`
	// Format describes a WAV file: the fmt chunk's format field,
	// channels, rate and length.
	Format  string `json:"format,omitempty" yaml:"format,omitempty"`
	Warning string `json:"warning,omitempty" yaml:"warning,omitempty"`
}

func (d *soundsDoc) writeText(w io.Writer) error {
	ew := &errWriter{w: w}
	for _, f := range d.Files {
		what := "FileType " + f.FileType
		if f.Format != "" {
			what += ", " + f.Format
		}
		ew.printf("%s: %d bytes from %s (%s, %s)\n", f.Path, f.Size, f.Object, f.Class, what)
	}
	if len(d.Empty) > 0 {
		ew.printf("%d Sound/Music export(s) hold no data (their arrays are empty, as in stripped server packages): %s\n",
			len(d.Empty), strings.Join(d.Empty, ", "))
	}
	return ew.err
}

// exportSounds extracts the named exports (every Sound and Music when
// objects is empty) and writes them into dir. Nothing is written unless
// every named export extracts.
func exportSounds(file string, p *reader.Package, objects []string, dir string) (*soundsDoc, error) {
	doc := &soundsDoc{File: file, Dir: dir, Files: []soundFile{}}
	var list []int
	if len(objects) == 0 {
		for i := range p.Exports {
			if k := p.NativeKind(i); k == reader.NativeSound || k == reader.NativeMusic {
				list = append(list, i)
			}
		}
		if len(list) == 0 {
			return nil, fmt.Errorf("%s has no Sound or Music exports", file)
		}
	} else {
		for _, o := range objects {
			class, path := splitClassSpec(o)
			i, err := findExport(file, p, path, class)
			if err != nil {
				return nil, err
			}
			list = append(list, i)
		}
	}
	var assets []*audio.Asset
	for _, i := range list {
		a, err := audio.Extract(p, i)
		if errors.Is(err, audio.ErrNoData) && len(objects) == 0 {
			doc.Empty = append(doc.Empty, p.ExportPath(i))
			continue
		}
		if err != nil {
			return nil, err
		}
		assets = append(assets, a)
	}
	if len(assets) == 0 {
		return nil, fmt.Errorf("%s: none of its %d Sound/Music exports holds data (their arrays are empty, as in stripped server packages)", file, len(list))
	}
	names := fileNames(p, assets)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for k, a := range assets {
		dest := filepath.Join(dir, names[k])
		if safefile.SameFile(file, dest) {
			return nil, usagef("export-sound", "%s is the input file; export-sound never modifies its input", dest)
		}
		if err := safefile.WriteFile(dest, a.Data, 0o644); err != nil {
			return nil, err
		}
		f := soundFile{Object: a.Path, Class: a.Class, FileType: a.FileType, Path: dest, Size: len(a.Data), Offset: a.Offset}
		if a.WAV != nil {
			f.Format = a.WAV.String()
		}
		if a.Problem != nil {
			f.Warning = a.Problem.Error()
		}
		doc.Files = append(doc.Files, f)
	}
	return doc, nil
}

// fileNames returns the file name of each asset: NAME.ext, or the path
// below the package (Group.NAME.ext) for names more than one asset has.
func fileNames(p *reader.Package, assets []*audio.Asset) []string {
	count := map[string]int{}
	for _, a := range assets {
		count[strings.ToLower(a.FileName())]++
	}
	out := make([]string, len(assets))
	for k, a := range assets {
		out[k] = a.FileName()
		if count[strings.ToLower(out[k])] > 1 {
			out[k] = strings.TrimPrefix(a.Path, p.Name+".") + "." + a.Ext
		}
	}
	return out
}

// splitClassSpec splits an OBJECT argument in the Class'Path' form into
// class and path; other arguments are a path without class.
func splitClassSpec(o string) (class, path string) {
	if i := strings.IndexByte(o, '\''); i > 0 && strings.HasSuffix(o, "'") && len(o) > i+1 {
		return o[:i], o[i+1 : len(o)-1]
	}
	return "", o
}
