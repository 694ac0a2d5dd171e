package iostore

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/safefile"
)

// ContainerUses returns the files of the container whose TOC is utoc, as
// one run uses them: the .utoc, the first .ucas partition and each
// NAME_sN.ucas after it that exists (the ones Open reads, or that a Writer
// of that name replaces or removes as stale), and, with companion, the
// .pak of the same name. write says whether the run writes them; role
// names the container in errors ("input container", "output container").
//
// A run lists the uses of every container it reads and writes, with its
// other files, and passes them to safefile.CheckUses before it reads
// anything, then to Session.Lock: so that no output part is an input part
// under another name (a symbolic or hard link, a case-insensitive name),
// and so that a reader waits for a writer. The names of one container
// whose extensions differ only in case (X.utoc, X.UTOC) are one container:
// its parts, derived from the name without its extension, are one set of
// files.
func ContainerUses(utoc string, write, companion bool, role string) []safefile.Use {
	stem := strings.TrimSuffix(utoc, filepath.Ext(utoc))
	key := "container " + safefile.Identity(stem)
	uses := []safefile.Use{
		{Path: utoc, Write: write, What: "the " + role + "'s .utoc", Name: key + ".utoc"},
		{Path: PartitionPath(utoc, 0), Write: write, What: "the " + role + "'s .ucas", Name: key + ".ucas"},
	}
	for i := 1; ; i++ {
		p := PartitionPath(utoc, i)
		if _, err := os.Lstat(p); err != nil {
			break
		}
		uses = append(uses, safefile.Use{Path: p, Write: write, What: "partition " + strconv.Itoa(i) + " of the " + role})
	}
	if companion {
		uses = append(uses, safefile.Use{Path: stem + ".pak", Write: write, What: "the " + role + "'s companion .pak", Name: key + ".pak"})
	}
	return uses
}
