package patch

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/unrmod/unrmod/internal/binio"
	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/audio"
	"github.com/unrmod/unrmod/safefile"
)

// ReplaceSound replaces the WAVE file a Sound export embeds with another
// one. The file is checked first (audio.CheckWAV: a RIFF WAVE file with
// consistent sizes, in a format the engine plays); the sound's FileType
// becomes WAV if it was not, and its lazy array's offset is set for where
// the data lands.
type ReplaceSound struct {
	Pos     Pos
	Object  string
	File    string // the WAV file, relative to the patch file
	filePos Pos
}

func parseReplaceSound(ps *parser, at Pos, n *yaml.Node) (Op, error) {
	m, err := ps.fields(n, "replace-sound", []string{"object", "file"}, []string{"object", "file"})
	if err != nil {
		return nil, err
	}
	op := &ReplaceSound{Pos: at}
	if op.Object, err = ps.nonEmpty(m["object"], "object"); err != nil {
		return nil, err
	}
	if op.File, err = ps.nonEmpty(m["file"], "file"); err != nil {
		return nil, err
	}
	op.File, op.filePos = slashes(op.File), ps.pos(m["file"])
	return op, nil
}

// Kind implements Op.
func (op *ReplaceSound) Kind() string { return "replace-sound" }

// Position implements Op.
func (op *ReplaceSound) Position() Pos { return op.Pos }

func (op *ReplaceSound) applyLegacy(c *legacyContext) ([]Change, error) {
	wav, err := safefile.ReadRegular(c.path(op.File), reader.MaxFileSize, "a sound for a legacy package")
	if err != nil {
		return nil, errorf(op.filePos, "file: %v", err)
	}
	return replaceSound(c, op, wav)
}

// replaceSound puts the WAVE file wav (read from op.File) into the sound
// op.Object names.
func replaceSound(c *legacyContext, op *ReplaceSound, wav []byte) ([]Change, error) {
	p := c.p
	r, err := c.resolve(op.Pos, op.Object, true, false)
	if err != nil {
		return nil, err
	}
	i, _ := r.Export()
	target := "export " + p.ExportPath(i)
	a, err := audio.Locate(p, i)
	switch {
	case errors.Is(err, audio.ErrNotAudio):
		return nil, errorf(op.Pos, "%s is a %s, not a Sound: replace-sound replaces the WAV file a Sound holds", describe(p, r), p.ClassName(i))
	case err != nil:
		return nil, errorf(op.Pos, "%s: its data does not parse, so its sound cannot be found: %v", describe(p, r), err)
	case a.Kind == reader.NativeMusic:
		return nil, errorf(op.Pos, "%s is Music, which holds a tracker module, not a WAV file; replace-sound replaces the WAV file of a Sound", describe(p, r))
	}
	name := filepath.Base(op.File)
	w, err := audio.CheckWAV(wav)
	if err != nil {
		return nil, &Error{Pos: op.filePos, Msg: fmt.Sprintf("%s cannot replace %s: %v", name, p.ExportPath(i), err), Err: err}
	}
	old := describeSound(a)
	newDesc := fmt.Sprintf("WAV %s, %d bytes from %s", w, len(wav), name)
	wavName := !strings.EqualFold(a.FileType, "WAV")
	if !wavName && bytes.Equal(a.Data, wav) {
		return []Change{{Op: op.Kind(), Target: target, Field: "sound", New: newDesc, Already: true}}, nil
	}
	e := &p.Exports[i]
	ft := reader.NameRef(-1)
	if wavName {
		ft = c.addName("WAV")
	} else {
		v, _, _ := binio.ReadIndex(e.Data[a.FileTypeAt:])
		ft = reader.NameRef(v)
	}
	// FileType, whatever lies between it and the array (UE2's Likelihood),
	// the array and what follows it.
	ftEnd := a.FileTypeAt + a.FileTypeLen
	headAt := ftEnd
	if a.Lazy.SeekPosAt >= 0 {
		headAt = a.Lazy.SeekPosAt
	}
	data := append([]byte(nil), e.Data[:a.FileTypeAt]...)
	data = binio.AppendIndex(data, int32(ft))
	data = append(data, e.Data[ftEnd:headAt]...)
	seekAt := -1
	if a.Lazy.SeekPosAt >= 0 {
		seekAt = len(data)
		data = append(data, 0, 0, 0, 0)
	}
	data = binio.AppendIndex(data, int32(len(wav)))
	data = append(data, wav...)
	if seekAt >= 0 {
		end := int64(e.SerialOffset) + int64(len(data))
		if end > 0x7FFFFFFF {
			return nil, errorf(op.Pos, "%s: the sound would end past 2 GiB", p.ExportPath(i))
		}
		copy(data[seekAt:], binio.AppendI32(nil, int32(end)))
	}
	data = append(data, e.Data[a.Lazy.End:]...)

	oldData, oldOwned := e.Data, c.owned[i]
	e.Data, e.SerialSize = data, int32(len(data))
	c.owned[i] = true
	if err := checkData(p, i); err != nil {
		e.Data, e.SerialSize, c.owned[i] = oldData, int32(len(oldData)), oldOwned
		return nil, errorf(op.Pos, "%s: the new sound data does not parse back: %v", p.ExportPath(i), err)
	}
	ch := Change{Op: op.Kind(), Target: target, Field: "sound", Old: old, New: newDesc}
	if wavName {
		ch.Warning = fmt.Sprintf("the sound's FileType was %s; it is now WAV", a.FileType)
	}
	return []Change{ch}, nil
}

// describeSound says what a sound holds now, for plans.
func describeSound(a *audio.Asset) string {
	switch {
	case len(a.Data) == 0:
		return "no sound data (an empty array, as in stripped packages)"
	case audio.Detect(a.Data) != "wav":
		return fmt.Sprintf("%d bytes of FileType %s", len(a.Data), a.FileType)
	}
	if w, err := audio.ParseWAV(a.Data); err == nil {
		return fmt.Sprintf("WAV %s, %d bytes", w, len(a.Data))
	}
	return fmt.Sprintf("WAV (inconsistent), %d bytes", len(a.Data))
}
