package main

import (
	"io"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress is a byte-count progress bar on standard error, drawn by mpb
// when standard error is a terminal. A nil *progress draws nothing, so
// callers need not check.
type progress struct {
	p   *mpb.Progress
	bar *mpb.Bar
}

// newProgress starts a bar named what for total bytes on w, or returns nil
// when w is not a terminal.
func newProgress(w io.Writer, what string, total int64) *progress {
	if !stderrIsTerminal(w) {
		return nil
	}
	return drawProgress(w, what, total)
}

// drawProgress starts a bar on w, terminal or not.
func drawProgress(w io.Writer, what string, total int64) *progress {
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithAutoRefresh())
	bar := p.AddBar(total,
		mpb.PrependDecorators(decor.Name(what+" "), decor.CountersKibiByte("% .1f / % .1f")),
		mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.AverageSpeed(decor.SizeB1024(0), "% .1f")),
	)
	return &progress{p: p, bar: bar}
}

// newCountProgress starts a bar named what counting total steps (not
// bytes) on w, or returns nil when w is not a terminal.
func newCountProgress(w io.Writer, what string, total int64) *progress {
	if !stderrIsTerminal(w) {
		return nil
	}
	return drawCountProgress(w, what, total)
}

// drawCountProgress starts a counting bar on w, terminal or not.
func drawCountProgress(w io.Writer, what string, total int64) *progress {
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithAutoRefresh())
	bar := p.AddBar(total,
		mpb.PrependDecorators(decor.Name(what+" "), decor.CountersNoUnit("%d / %d")),
		mpb.AppendDecorators(decor.Percentage()),
	)
	return &progress{p: p, bar: bar}
}

// add moves the bar n bytes on (a Writer's Progress callback).
func (p *progress) add(n int64) {
	if p != nil {
		p.bar.IncrInt64(n)
	}
}

// set moves the bar to done of total bytes (an Extract Progress callback).
func (p *progress) set(done, total int64) {
	if p != nil {
		p.bar.SetTotal(total, false)
		p.bar.SetCurrent(done)
	}
}

// finish completes the bar and waits until it is drawn.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.bar.SetTotal(-1, true)
	p.p.Wait()
}
