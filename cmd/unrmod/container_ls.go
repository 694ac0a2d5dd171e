package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/ufile"
)

// lsCommand returns the "ls" command.
func lsCommand() *command {
	return &command{
		name:     "ls",
		synopsis: "CONTAINER.utoc|FILE.pak [--json] [--long] [--aes-key KEY]",
		summary:  "list the chunks of an IoStore container, or the files of a .pak",
		description: `List every chunk of an IoStore container in TOC order: its chunk id
(24 hex digits, the 12 bytes as stored), type, uncompressed size, size as
stored in the .ucas, compression method(s) and path. The path is the
directory-index path under the mount point, with the mount point's leading
"../" dropped (the path 'unrmod extract' writes the chunk to); chunks the
directory index does not list (the container header, shader code) show "-".

--long adds the TOC index, the chunk's offset in the container's virtual
uncompressed address space, its first compression block and block count,
and the hash and flags of its chunk meta.

Only the .utoc is read; the .ucas files need not exist. The paths of an
encrypted container need its key (--aes-key).

A .pak lists its files: path (under the pak's mount point), size, stored
size, compression method and whether the file is encrypted.`,
		examples: []string{
			"unrmod ls Content/Paks/pakchunk0-Windows.utoc",
			"unrmod ls --long Paks/z_MyMod_P.utoc",
			"unrmod ls --json Paks/Game.utoc --aes-key 0x0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
		},
		setup: func(fs *flag.FlagSet) runner {
			asJSON := fs.Bool("json", false, "print one JSON document instead of a table")
			long := fs.Bool("long", false, "add index, offset, blocks, meta hash and flags")
			key := addKeyFlag(fs)
			return func(s streams, args []string) error {
				file, err := oneArg("ls", args, "CONTAINER.utoc")
				if err != nil {
					return err
				}
				f, locks, err := openRead(s, file)
				if err != nil {
					return err
				}
				defer locks.Release()
				if f.Kind == ufile.Pak {
					return lsPak(s, file, key, *asJSON)
				}
				c, err := openIndexedContainer(file, key)
				if err != nil {
					return err
				}
				defer c.Close()
				doc := report.NewContainerList(file, c)
				if *asJSON {
					return writeJSON(s.out, doc)
				}
				return containerListTable(doc, *long).write(s.out)
			}
		},
	}
}

// containerListTable lays a container's chunk list out for text output.
func containerListTable(d *report.ContainerList, long bool) *table {
	t := &table{header: []string{"CHUNK ID", "TYPE", "SIZE", "STORED", "METHOD", "PATH"}, right: []bool{false, false, true, true, false, false}}
	if long {
		t.header = []string{"#", "CHUNK ID", "TYPE", "SIZE", "STORED", "METHOD", "OFFSET", "BLOCK", "BLOCKS", "HASH", "FLAGS", "PATH"}
		t.right = []bool{true, false, false, true, true, false, true, true, true, false, false, false}
	}
	t.rows = make([][]string, 0, len(d.Chunks))
	for _, ch := range d.Chunks {
		path := ch.Path
		if path == "" {
			path = "-"
		}
		size, stored, method := strconv.FormatUint(ch.Size, 10), strconv.FormatUint(ch.CompressedSize, 10), methodsText(ch.Methods)
		if !long {
			t.add(ch.ChunkID, ch.Type, size, stored, method, path)
			continue
		}
		flags := "-"
		if len(ch.Flags) > 0 {
			flags = joinFlags(ch.Flags)
		}
		t.add(strconv.Itoa(ch.Index), ch.ChunkID, ch.Type, size, stored, method, fmt.Sprintf("0x%X", ch.Offset),
			strconv.Itoa(ch.FirstBlock), strconv.Itoa(ch.Blocks), ch.Hash, flags, path)
	}
	return t
}

func joinFlags(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += "|"
		}
		s += n
	}
	return s
}
