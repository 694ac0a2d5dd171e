package pak

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/unrmod/unrmod/safefile"
	"github.com/unrmod/unrmod/ue"
)

// VersionForEngine returns the pak version to write for a game of engine
// release major.minor, its row in ue.Releases: the version that release's
// UnrealPak writes, or, where unrmod cannot write that one, the newest
// older version the release reads (engines read every older version).
//
//	4.20: 5   4.21, 4.22: 7 (4.22 writes a version 8 footer with four
//	method names, which unrmod does not write)   4.23, 4.24: 8   4.25: 9
//	4.26, 4.27, 5.0 to 5.6: 11   5.7, 5.8: 12   6.0: 15
//
// Releases before 4.20 are refused: which of versions 1 to 4 each reads is
// not checked; a caller may still write them with WriterOptions.Version.
func VersionForEngine(major, minor int) (Version, error) {
	if row, ok := (ue.Release{Major: major, Minor: minor}).Info(); ok && row.PakVersion != 0 {
		return Version(row.PakVersion), nil
	}
	return 0, fmt.Errorf("pak: engine %d.%d: unrmod knows the pak versions of %s; give a version (1 to %d) instead", major, minor, EngineNames(), LatestVersion)
}

// EngineVersions says which pak version each release VersionForEngine
// knows gets, for help texts: "4.20 writes 5, 4.21 and 4.22 write 7, …,
// 6.0 writes 15".
func EngineVersions() string {
	var parts []string
	rows := ue.Releases()
	for i := 0; i < len(rows); {
		if rows[i].PakVersion == 0 {
			i++
			continue
		}
		j := i
		for j+1 < len(rows) && rows[j+1].PakVersion == rows[i].PakVersion {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, fmt.Sprintf("%v writes %d", rows[i].Release, rows[i].PakVersion))
		case j == i+1:
			parts = append(parts, fmt.Sprintf("%v and %v write %d", rows[i].Release, rows[j].Release, rows[i].PakVersion))
		default:
			parts = append(parts, fmt.Sprintf("%v to %v write %d", rows[i].Release, rows[j].Release, rows[i].PakVersion))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// EngineNames lists the releases VersionForEngine knows (the rows of
// ue.Releases with a pak version), for messages and help: "4.20 … 4.27,
// 5.0 … 5.8, 6.0".
func EngineNames() string {
	var rs []ue.Release
	for _, row := range ue.Releases() {
		if row.PakVersion != 0 {
			rs = append(rs, row.Release)
		}
	}
	return ue.List(rs)
}

// PackResult says what PackDir wrote.
type PackResult struct {
	MountPoint string   // the mount point the pak has
	Paths      []string // the files' paths relative to it, in the pak's order
	Bytes      int64    // the files' total size
}

// PackDir writes the regular files under dir into a pak on w, laid out as
// UnrealPak lays them out: sorted by path (byte order), each after its
// record. Unless opts.MountPoint is set, the mount point is "../../../"
// followed by the deepest folder that holds every file, as the engine
// picks it, so that a folder 'Reader.Extract' wrote packs back into a pak
// of the same mount point and paths. Files are streamed, one block at a
// time; symbolic links and other special files are refused, as are names
// the engine could not load (backslashes, two names equal but for case).
func PackDir(dir string, w io.Writer, opts *WriterOptions) (*PackResult, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var files []string
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != "." && safefile.IsWorkFile(d.Name()):
			return fmt.Errorf("pak: %s/%s is the temporary folder of an unfinished unrmod run; remove it first", dir, p)
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("pak: %s/%s is not a regular file (a link or a device); refusing to pack it", dir, p)
		case strings.Contains(d.Name(), ".unrmod-"):
			return fmt.Errorf("pak: %s/%s is a temporary file of an unfinished unrmod run; remove it first", dir, p)
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("pak: %s holds no file to pack", dir)
	}
	slices.Sort(files)
	o := WriterOptions{}
	if opts != nil {
		o = *opts
	}
	prefix := ""
	if o.MountPoint == "" {
		prefix = commonDir(files)
		o.MountPoint = DefaultMountPoint + prefix
	}
	pw, err := NewWriter(w, &o)
	if err != nil {
		return nil, err
	}
	res := &PackResult{MountPoint: o.MountPoint}
	for _, p := range files {
		if err := packOne(root, dir, pw, p, strings.TrimPrefix(p, prefix), res); err != nil {
			return nil, err
		}
	}
	if err := pw.Close(); err != nil {
		return nil, err
	}
	return res, nil
}

// packOne adds the file p of root to the pak as name.
func packOne(root *os.Root, dir string, pw *Writer, p, name string, res *PackResult) error {
	f, err := root.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("pak: %s/%s is not a regular file; refusing to pack it", dir, p)
	}
	if err := pw.Add(name, f, st.Size()); err != nil {
		if errors.Is(err, ErrFileChanged) {
			return fmt.Errorf("%s/%s: %w", dir, p, err)
		}
		return err
	}
	res.Paths = append(res.Paths, name)
	res.Bytes += st.Size()
	return nil
}

// commonDir returns the deepest folder ("A/B/") holding every path, or "".
func commonDir(paths []string) string {
	dir := path.Dir(paths[0]) + "/"
	if dir == "./" {
		return ""
	}
	for _, p := range paths[1:] {
		for !strings.HasPrefix(p, dir) {
			i := strings.LastIndexByte(strings.TrimSuffix(dir, "/"), '/')
			if i < 0 {
				return ""
			}
			dir = dir[:i+1]
		}
	}
	return dir
}

// ParseEngine returns the pak version to write for the engine release s,
// e.g. "4.27", "UE5.4" or "6.0" (see VersionForEngine).
func ParseEngine(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "UE"), "ue")
	var major, minor int
	if n, err := fmt.Sscanf(t, "%d.%d", &major, &minor); n != 2 || err != nil || fmt.Sprintf("%d.%d", major, minor) != t {
		return 0, fmt.Errorf("pak: engine %q is not a release like 4.27 or 5.4", s)
	}
	return VersionForEngine(major, minor)
}
