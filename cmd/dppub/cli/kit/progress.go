package kit

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// NewBar shows progress on w when w is a terminal, and nothing otherwise:
// redrawn bars are noise in a log file, and writing one per update to a
// regular file cost Big5 synthesize 22 s against 5 s through a pipe. Nothing
// here syncs w (the progressbar package never calls Sync); on a terminal
// the bar redraws at most every 65 ms, so a stage of millions of updates
// costs a few hundred writes.
func NewBar(w io.Writer, desc string) func(done, total int) {
	if !isTerminal(w) {
		return func(int, int) {}
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(desc),
				progressbar.OptionShowCount(), progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(65*time.Millisecond), progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
		}
		_ = bar.Set(done)
	}
}

// isTerminal reports whether w is a terminal (a *os.File on a TTY).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// StageBars shows one progress bar per engine stage on w.
func StageBars(w io.Writer) func(stage string, done, total int) {
	current := ""
	var bar func(done, total int)
	return func(stage string, done, total int) {
		if stage != current {
			current, bar = stage, NewBar(w, stage)
		}
		bar(done, total)
	}
}
