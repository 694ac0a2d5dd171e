package ufile

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/unrmod/unrmod/pak"
	"github.com/unrmod/unrmod/uasset/assetprops"
)

// ErrNoAsset means a pak holds no cooked asset of the name asked for;
// the error's text lists close matches.
var ErrNoAsset = errors.New("no such cooked asset")

// FindPakAsset returns the cooked asset (a .uasset or .umap) that name
// stands for in pak r: a package name ("/Game/Data/DT_Items"), a path as
// 'unrmod ls' shows it, relative to the mount point or to the game's root,
// with or without its extension, or a file name only one asset has. An
// unknown name fails with an error wrapping ErrNoAsset that lists close
// matches; a file name several assets have fails listing them.
func FindPakAsset(r *pak.Reader, name string) (*pak.File, error) {
	name = strings.TrimSuffix(strings.ReplaceAll(strings.TrimSpace(name), `\`, "/"), "/")
	want := strings.ToLower(strings.TrimPrefix(name, "/"))
	mount := strings.ToLower(strings.TrimPrefix(r.MountPoint, "../../../"))
	var base []*pak.File
	var close []string
	for _, f := range r.Files {
		ext := strings.ToLower(path.Ext(f.Path))
		if f.Deleted || ext != ".uasset" && ext != ".umap" {
			continue
		}
		rel := strings.ToLower(f.Path)
		noExt := strings.TrimSuffix(rel, ext)
		if pkg := assetprops.PackageNameFromPath(r.MountPoint + f.Path); pkg != "" && strings.EqualFold(pkg, name) {
			return f, nil
		}
		for _, p := range []string{rel, noExt, mount + rel, mount + noExt} {
			if p == want {
				return f, nil
			}
		}
		if b := path.Base(noExt); !strings.Contains(want, "/") && (b == want || path.Base(rel) == want) {
			base = append(base, f)
		}
		if len(close) < 8 && strings.Contains(rel, strings.ToLower(path.Base(want))) {
			close = append(close, f.Path)
		}
	}
	switch len(base) {
	case 1:
		return base[0], nil
	case 0:
	default:
		names := make([]string, len(base))
		for i, f := range base {
			names[i] = f.Path
		}
		return nil, fmt.Errorf("%s: package %q is ambiguous: %s; give its path", r.Name, name, strings.Join(names, ", "))
	}
	msg := ""
	if len(close) > 0 {
		msg = "; close matches: " + strings.Join(close, ", ")
	}
	return nil, fmt.Errorf("%s: %w %q (give a package name such as /Game/Data/DT_Items, a path 'unrmod ls' shows, or a file name that is unique)%s", r.Name, ErrNoAsset, name, msg)
}

// PakAsset reads the cooked asset name stands for in pak r (see
// FindPakAsset) with its .uexp, each checked against its hash, and
// returns it as a File of kind CookedAsset. Its Path is the asset's path
// from the game's root ("Maine/Content/Data/DT_Items.uasset"), from which
// its package name follows; Pak is r's name, which Uses returns.
func PakAsset(r *pak.Reader, name string) (*File, error) {
	f, err := FindPakAsset(r, name)
	if err != nil {
		return nil, err
	}
	return ReadPakAsset(r, f)
}

// ReadPakAsset reads f, a cooked asset of pak r (as FindPakAsset finds
// one), with its .uexp, as PakAsset does.
func ReadPakAsset(r *pak.Reader, f *pak.File) (*File, error) {
	read := func(g *pak.File) ([]byte, error) {
		if g.UncompressedSize > MaxAssetSize {
			return nil, tooLarge(r.Name+": "+g.Path, g.UncompressedSize, MaxAssetSize, "a cooked asset")
		}
		return g.ReadAll()
	}
	header, err := read(f)
	if err != nil {
		return nil, err
	}
	a, err := Recognise(strings.TrimPrefix(r.MountPoint, "../../../")+f.Path, header)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Name, err)
	}
	if a.Kind != CookedAsset {
		return nil, fmt.Errorf("%s: %s is %s, not a cooked asset", r.Name, f.Path, a.Describe())
	}
	a.Pak = r.Name
	if u := r.Lookup(strings.TrimSuffix(f.Path, path.Ext(f.Path)) + ".uexp"); u != nil && !u.Deleted {
		if a.uexpData, err = read(u); err != nil {
			return nil, err
		}
		a.Uexp = strings.TrimPrefix(r.MountPoint, "../../../") + u.Path
	}
	return a, nil
}

// UexpData returns the .uexp of a cooked asset read from a pak (PakAsset),
// as read and checked against its hash; nil for an asset with none, or
// for a file on disk, whose .uexp is the file Uexp names.
func (f *File) UexpData() []byte { return f.uexpData }
