package agentcli

import (
	"io"
	"os"
	"runtime"
	"time"
)

// servingStdio readies the process for `serve --stdio` on its own stdin:
// a pipe there is read through Go's netpoller (pollablePipe), and then,
// unless GOMAXPROCS is set, the process runs on one P. One host's calls
// over a pipe are I/O: each line wakes a goroutine, and with a second P
// idle every wake-up also wakes a thread to look for work (futex, spinning,
// a stolen goroutine on another CPU), which cost a proxied call about as
// much CPU again as relaying it did. A blocking read of stdin, though,
// holds the only P in the kernel until the scheduler's monitor takes it
// back, so one P goes only with a pollable stdin. Set GOMAXPROCS to give
// CPU-heavy in-process tools more.
func servingStdio(in io.ReadCloser) io.ReadCloser {
	f, ok := in.(*os.File)
	if !ok || f != os.Stdin {
		return in // an embedder's or a test's reader
	}
	p, ok := pollablePipe(f)
	if !ok {
		return in
	}
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		runtime.GOMAXPROCS(1)
	}
	return p
}

// pollable reports whether reads of f wait in the netpoller (only such a
// file takes deadlines); a zero deadline changes nothing.
func pollable(f *os.File) bool { return f.SetReadDeadline(time.Time{}) == nil }
