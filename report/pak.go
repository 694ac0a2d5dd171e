package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/pak"
)

// PakInfo is the summary of a pak: what `unrmod info` shows of a .pak.
type PakInfo struct {
	File           string `json:"file"`
	Kind           string `json:"kind"` // always "pak"
	Version        int    `json:"version"`
	VersionName    string `json:"version_name"`
	MountPoint     string `json:"mount_point"`
	KeyGUID        string `json:"encryption_key_guid"`
	IndexEncrypted bool   `json:"index_encrypted"`
	Files          int    `json:"files"`
	Bytes          int64  `json:"bytes"` // the files' uncompressed sizes
	// Container is the IoStore container the pak mounts (same base name),
	// when it is there.
	Container string `json:"container,omitempty"`
}

// NewPakInfo summarizes pak p, opened from file; it looks for the .utoc of
// the same base name beside it.
func NewPakInfo(file string, p *pak.Reader) *PakInfo {
	g := p.Footer.EncryptionKeyGUID
	d := &PakInfo{File: file, Kind: "pak", Version: int(p.Footer.Version), VersionName: p.Footer.Version.String(),
		MountPoint: p.MountPoint, KeyGUID: fmt.Sprintf("%08X%08X%08X%08X", g[0], g[1], g[2], g[3]),
		IndexEncrypted: p.Footer.IndexEncrypted, Files: len(p.Files)}
	for _, f := range p.Files {
		d.Bytes += f.UncompressedSize
	}
	if utoc := strings.TrimSuffix(file, filepath.Ext(file)) + ".utoc"; isFile(utoc) {
		d.Container = utoc
	}
	return d
}

// PakList is the files of a pak: what `unrmod ls` shows of a .pak.
type PakList struct {
	File       string        `json:"file"`
	Version    int           `json:"version"`
	MountPoint string        `json:"mount_point"`
	Files      []PakFileInfo `json:"files"` // without the deleted ones
}

// PakFileInfo is one file of a pak.
type PakFileInfo struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	Stored    int64  `json:"stored"`
	Method    string `json:"method"`
	Encrypted bool   `json:"encrypted"`
}

// NewPakList lists the files of pak p, opened from file.
func NewPakList(file string, p *pak.Reader) *PakList {
	d := &PakList{File: file, Version: int(p.Footer.Version), MountPoint: p.MountPoint, Files: []PakFileInfo{}}
	for _, f := range p.Files {
		if f.Deleted {
			continue
		}
		d.Files = append(d.Files, PakFileInfo{Path: f.Path, Size: f.UncompressedSize, Stored: f.Size,
			Method: p.Footer.MethodName(f.Method), Encrypted: f.Encrypted})
	}
	return d
}

// isFile reports whether a regular file (or a link to one) is at path.
func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
