package enrich

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/toolgen-dev/toolgen/internal/model"
)

// progress is the line `enrich: 120/707 tools, 3 failed, 48.2k tokens`,
// redrawn in place on a terminal. Written to a file or a pipe it would be
// hundreds of lines of noise, so there it stays silent.
type progress struct {
	w     io.Writer // nil when silent
	total int
	last  time.Time
	shown bool
}

// isTerminal is a variable so tests can draw the line into a buffer.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func newProgress(w io.Writer, total int) *progress {
	if w == nil || !isTerminal(w) {
		return &progress{}
	}
	return &progress{w: w, total: total}
}

// redrawEvery keeps a fast run from spending its time on the terminal.
const redrawEvery = 100 * time.Millisecond

// show draws the line; callers serialise it.
func (p *progress) show(done, failed int, u model.Usage) {
	if p.w == nil || (done < p.total && time.Since(p.last) < redrawEvery) {
		return
	}
	p.last = time.Now()
	p.shown = true
	fmt.Fprintf(p.w, "\r\033[Kenrich: %d/%d tools, %d failed, %s tokens", done, p.total, failed, formatTokens(u.InputTokens+u.OutputTokens))
}

// clear removes the line, for the summary to take its place.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
