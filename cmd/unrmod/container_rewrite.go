package main

import (
	"fmt"
	"time"

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
	return fmt.Sprintf("wrote %s (layout %s): %d chunks, %d copied block for block%s, %d written, %d dead bytes; %s",
		d.Output, d.Layout, d.Chunks, d.Copied, unchecked, d.Written, d.DeadBytes, same)
}

// rewriteContainer writes the container in again to out, unchanged. The
// caller has checked that no file of the output is a file of the input
// (iostore.ContainerUses) and locked them all.
func rewriteContainer(s streams, in, out string, layout iostore.RewriteLayout, key *keyFlag) (*containerRewriteDoc, error) {
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
	opts := &iostore.RewriteOptions{Layout: layout, Progress: bar.add, Session: s.sess, Codecs: codecs}
	start := time.Now()
	res, err := iostore.Rewrite(c, utoc, nil, opts)
	bar.finish()
	if err != nil {
		return nil, err
	}
	return &containerRewriteDoc{Input: in, Output: utoc, Layout: layout.String(), Chunks: res.Chunks, Copied: res.Copied,
		Written: res.Written, DeadBytes: res.DeadBytes, Unchecked: res.Unchecked, Identical: res.Identical,
		Seconds: time.Since(start).Seconds()}, nil
}
