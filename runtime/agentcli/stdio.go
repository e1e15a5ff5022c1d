package agentcli

import (
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/toolgen-dev/toolgen/internal/rawpipe"
)

// servingStdio readies the process for `serve --stdio` on its own stdin
// and stdout: a pipe or socket there is read or written through Go's
// netpoller (pollablePipe) with raw system calls (rawpipe), and then,
// unless GOMAXPROCS is set, the process runs on one P. One host's calls
// over a pipe are I/O: each line wakes a goroutine, and with a second P idle
// every wake-up also wakes a thread to look for work (futex, spinning, a
// stolen goroutine on another CPU), which cost a proxied call about as
// much CPU again as relaying it did. A blocking read of stdin, though,
// holds the only P in the kernel until the scheduler's monitor takes it
// back, so one P goes only with a pollable stdin. Set GOMAXPROCS to give
// CPU-heavy in-process tools more. The collector runs at stdioGCPercent
// unless GOGC is set.
func servingStdio(in io.ReadCloser, out io.Writer) (io.ReadCloser, io.WriteCloser) {
	f, ok := in.(*os.File)
	if !ok || f != os.Stdin {
		return in, nopCloser{out} // an embedder's or a test's reader
	}
	p, ok := pollablePipe(f, os.O_RDONLY)
	if !ok {
		return in, nopCloser{out}
	}
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(1)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(stdioGCPercent)
	}
	return rawpipe.Wrap(p), stdioOut(out)
}

// stdioGCPercent is the collector's target while serving one host over
// stdio. Such a process keeps little alive and allocates a few KiB per
// call, so at Go's default (a 4 MiB heap at least) each cycle's calls
// walked through memory that had gone cold, or was not mapped in at all:
// new spans were zeroed on page faults, and each fault on the critical
// path costs far more than the collection it saves, most of all in a VM.
// At 50 the same memory comes round twice as often; against the default,
// in the same servedbench runs, page faults fell from 0.22 to 0.09 per
// call and the agent's CPU per call by 12–17 µs.
const stdioGCPercent = 50

// stdioOut is the process's stdout as a new pollable file (pollablePipe)
// written raw, or out as it is (not os.Stdout, neither pipe nor socket).
// Closing it closes only the new file.
func stdioOut(out io.Writer) io.WriteCloser {
	if f, ok := out.(*os.File); ok && f == os.Stdout {
		if p, ok := pollablePipe(f, os.O_WRONLY); ok {
			return rawpipe.Wrap(p)
		}
	}
	return nopCloser{out}
}

// pollable reports whether reads of f wait in the netpoller (only such a
// file takes deadlines); a zero deadline changes nothing.
func pollable(f *os.File) bool { return f.SetReadDeadline(time.Time{}) == nil }
