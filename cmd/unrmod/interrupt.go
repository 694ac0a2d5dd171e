package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/unrmod/unrmod/safefile"
)

// exitInterrupted is the exit status of a run stopped by Ctrl-C or
// SIGTERM, as shells report a SIGINT.
const exitInterrupted = 130

// onInterrupt makes Ctrl-C and SIGTERM stop the run: the renames under way
// finish (safefile.Session.Interrupt), every temporary file of sess is
// removed, and exit is called with status 130. stop undoes it.
func onInterrupt(sess *safefile.Session, stderr io.Writer, exit func(int)) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			removed := sess.Interrupt()
			files := "files"
			if len(removed) == 1 {
				files = "file"
			}
			fmt.Fprintf(stderr, "\nunrmod: %v: stopped; removed %d temporary %s of this run\n", sig, len(removed), files)
			exit(exitInterrupted)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
