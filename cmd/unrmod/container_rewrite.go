package main

import (
	"fmt"
	"time"

	"github.com/unrmod/unrmod/checkcache"
	"github.com/unrmod/unrmod/iostore"
)

// containerRewriteDoc is the output of "unrmod rewrite C.utoc".
type containerRewriteDoc struct {
	Input     string  `json:"input"`
	Output    string  `json:"output"`
	Layout    string  `json:"layout"`
	Chunks    int     `json:"chunks"`
	Copied    int     `json:"copied_chunks"`
	Written   int     `json:"written_chunks"`
	DeadBytes uint64  `json:"dead_bytes"`
	Unchecked int     `json:"unchecked_chunks"`
	Identical bool    `json:"identical"`
	Seconds   float64 `json:"seconds"`
	// SourceCheck says how the input was checked: "checked" (every chunk
	// as it was copied), "recorded" (so, found sound and remembered), or
	// "remembered" (it passed that check before, at SourceCheckedAt, and
	// is unchanged since: copied without decoding again).
	SourceCheck     string     `json:"source_check"`
	SourceCheckedAt *time.Time `json:"source_checked_at,omitempty"`
	// Note says why a check was not remembered, when it was not.
	Note string `json:"note,omitempty"`
}

func (d *containerRewriteDoc) summary() string {
	same := "differs from the input"
	if d.Identical {
		same = "byte-identical to the input"
	}
	unchecked := ""
	if d.Unchecked > 0 {
		unchecked = fmt.Sprintf(" (%d not checked against their hashes: no decoder reads their blocks; Oodle blocks need the game's Oodle library: give it with %s)", d.Unchecked, oodleHow)
	}
	s := fmt.Sprintf("wrote %s (layout %s): %d chunks, %d copied block for block%s, %d written, %d dead bytes; %s",
		d.Output, d.Layout, d.Chunks, d.Copied, unchecked, d.Written, d.DeadBytes, same)
	switch d.SourceCheck {
	case checkcache.StateRemembered:
		s += fmt.Sprintf("\nnote: %s was checked fully on %s and is unchanged since: its chunks were copied without decoding them again (--no-check-cache checks it again)",
			d.Input, d.SourceCheckedAt.Local().Format("2006-01-02 15:04"))
	case checkcache.StateRecorded:
		s += fmt.Sprintf("\nnote: %s was checked fully and is remembered: a rewrite of it unchanged copies its chunks without decoding them again", d.Input)
	}
	if d.Note != "" {
		s += "\nnote: " + d.Note
	}
	return s
}

// rewriteContainer writes the container in again to out, unchanged. The
// caller has checked that no file of the output is a file of the input
// (iostore.ContainerUses) and locked them all.
//
// checks (nil: none) remembers the inputs that passed the full check: an
// input remembered and unchanged is copied without decoding it again, and
// one checked whole is remembered.
func rewriteContainer(s streams, in, out string, layout iostore.RewriteLayout, key *keyFlag, checks *checkcache.Cache) (*containerRewriteDoc, error) {
	utoc := iostore.TocPath(out)
	c, err := openIndexedContainer(in, key)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var total int64
	for _, ch := range c.Chunks() {
		total += int64(ch.Size)
	}
	bar := newProgress(s.err, "rewrite", total)
	codecs, _ := key.codecs(in) // loaded by openIndexedContainer
	chk := checks.Begin(in, c)
	opts := &iostore.RewriteOptions{Layout: layout, Progress: bar.add, Session: s.sess, Codecs: codecs, SourceChecked: chk.Remembered != nil}
	start := time.Now()
	w, res, err := iostore.RewriteStaged(c, utoc, nil, opts)
	bar.finish()
	if err != nil {
		return nil, err
	}
	o, err := chk.Finish(res.SourceVerified)
	if err != nil {
		w.Abort()
		return nil, fmt.Errorf("%s changed while it was copied; nothing was written", in)
	}
	if err := w.Commit(); err != nil {
		return nil, err
	}
	doc := &containerRewriteDoc{Input: in, Output: utoc, Layout: layout.String(), Chunks: res.Chunks, Copied: res.Copied,
		Written: res.Written, DeadBytes: res.DeadBytes, Unchecked: res.Unchecked, Identical: res.Identical,
		Seconds: time.Since(start).Seconds(), SourceCheck: o.State, SourceCheckedAt: o.At}
	if o.NotRecorded != nil {
		doc.Note = "the full check of the input is not remembered: " + o.Why()
	}
	return doc, nil
}
