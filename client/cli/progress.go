package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// progress reports long work on stderr. On a terminal it is one line
// redrawn in place and cleared when the work ends, so it never mixes into
// the results printed around it; anywhere else (a file, a pipe, CI's log) it
// is a plain line now and then, so a long run shows it is alive without a
// line per item.
type progress struct {
	w     io.Writer
	live  bool          // w is a terminal
	every time.Duration // between plain lines
	last  time.Time     // when the last plain line was written
	shown bool          // a live line is on the screen
	off   bool          // --json, or nothing to report
}

// plainEvery is how often a plain progress line may be written.
const plainEvery = 5 * time.Second

func (e *env) progress(off bool) *progress {
	p := &progress{w: e.stderr, every: plainEvery, off: off, last: time.Now()}
	if f, ok := e.stderr.(*os.File); ok {
		p.live = term.IsTerminal(int(f.Fd()))
	}
	return p
}

// update shows where the work stands.
func (p *progress) update(format string, args ...any) {
	switch {
	case p.off:
	case p.live:
		fmt.Fprintf(p.w, "\r\x1b[K"+format, args...)
		p.shown = true
	case time.Since(p.last) >= p.every:
		fmt.Fprintf(p.w, format+"\n", args...)
		p.last = time.Now()
	}
}

// clear takes a live line off the screen, before a result is printed or
// when the work is done.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}
