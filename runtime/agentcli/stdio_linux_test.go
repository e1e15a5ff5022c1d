package agentcli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/rawpipe"
)

// A blocking pipe (what a host hands an agent on stdin) is read through
// the netpoller, through a description of its own: deadlines work, a
// read waits without a thread, Close ends a read in progress, and the
// pipe's own description stays blocking.
func TestPollablePipe(t *testing.T) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	defer r.Close()
	defer w.Close()
	if pollable(r) {
		t.Fatal("a blocking pipe reads as pollable")
	}
	p, ok := pollablePipe(r, os.O_RDONLY)
	if !ok || p == r {
		t.Fatalf("pollablePipe = %v, %v; want a new file", p, ok)
	}
	if _, err := w.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := p.Read(buf); err != nil || string(buf[:n]) != "line\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	p.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := p.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past its deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	p.SetReadDeadline(time.Time{})
	flags, err := fcntlFlags(fds[0])
	if err != nil {
		t.Fatal(err)
	}
	if flags&syscall.O_NONBLOCK != 0 {
		t.Error("the pipe's own description became non-blocking")
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Read(buf)
		done <- err
	}()
	time.Sleep(10 * time.Millisecond) // let the read start waiting; it ends either way
	p.Close()
	if err := <-done; err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("read after Close: %v, want a closed-file error", err)
	}
}

// What is not a pipe stays as it is.
func TestPollablePipeNotAPipe(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p, ok := pollablePipe(f, os.O_RDONLY); ok {
		t.Fatalf("a regular file: pollablePipe = %v, true", p)
	}
	r, w, err := os.Pipe() // already pollable: kept
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if p, ok := pollablePipe(r, os.O_RDONLY); !ok || p != r {
		t.Fatalf("a pollable pipe: pollablePipe = %v, %v; want it back", p, ok)
	}
}

// A socket (what a Node host hands an agent for each stdio stream) is
// used through a non-blocking duplicate: deadlines work, Close of the
// duplicate leaves the original open, and lines pass both ways raw.
func TestPollableSocket(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours, host := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "host")
	defer ours.Close()
	defer host.Close()
	if pollable(ours) {
		t.Fatal("a blocking socket reads as pollable")
	}
	p, ok := pollablePipe(ours, os.O_RDONLY)
	if !ok || p == ours || !pollable(p) {
		t.Fatalf("pollablePipe(a socket) = %v, %v; want a new pollable file", p, ok)
	}
	raw := rawpipe.Wrap(p)
	if _, err := host.Write([]byte("request\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := raw.Read(buf); err != nil || string(buf[:n]) != "request\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	if _, err := raw.Write([]byte("answer\n")); err != nil {
		t.Fatal(err)
	}
	if n, err := host.Read(buf); err != nil || string(buf[:n]) != "answer\n" {
		t.Fatalf("the host read %q, %v", buf[:n], err)
	}
	p.SetReadDeadline(time.Now().Add(-time.Second))
	if _, err := raw.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past its deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	raw.Close()
	if _, err := host.Write([]byte("still there\n")); err != nil {
		t.Fatal(err)
	}
	if n, err := ours.Read(buf); err != nil || string(buf[:n]) != "still there\n" {
		t.Fatalf("the original after the duplicate closed: %q, %v", buf[:n], err)
	}
}

func fcntlFlags(fd int) (int, error) {
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(flags), nil
}

// serve --stdio on a pipe runs on one P with a pollable stdin, unless
// GOMAXPROCS is set; checked in a child (this test binary again) whose
// stdin is a pipe, since it changes the process.
func TestServingStdioOneP(t *testing.T) {
	if os.Getenv("AGENTCLI_STDIO_CHILD") != "" {
		in, out := servingStdio(os.Stdin, os.Stdout)
		rin, _ := in.(*rawpipe.Pipe)
		if rin == nil || rin.File() == os.Stdin || !pollable(rin.File()) {
			t.Fatalf("servingStdio(os.Stdin on a pipe or socket) = %v; want a pollable new file, read raw", in)
		}
		rout, _ := out.(*rawpipe.Pipe)
		if rout == nil || rout.File() == os.Stdout {
			t.Fatalf("servingStdio(os.Stdout on a pipe or socket) = %v; want a pollable new file, written raw", out)
		}
		if _, err := io.WriteString(out, "written raw\n"); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		fmt.Println("stdout still open") // closing the reopened pipe leaves fd 1 alone
		want := 1
		if v := os.Getenv("GOMAXPROCS"); v != "" {
			want = 3
		}
		if got := goruntime.GOMAXPROCS(0); got != want {
			t.Fatalf("GOMAXPROCS = %d, want %d", got, want)
		}
		wantGC := stdioGCPercent
		if v := os.Getenv("GOGC"); v != "" {
			wantGC = 200
		}
		gc := debug.SetGCPercent(0)
		debug.SetGCPercent(gc)
		if gc != wantGC {
			t.Fatalf("GC percent = %d, want %d", gc, wantGC)
		}
		var buf bytes.Buffer
		if in, out := servingStdio(io.NopCloser(os.Stdin), &buf); in == nil || out == nil {
			t.Fatal("an embedder's reader or writer was dropped")
		}
		return
	}
	for _, env := range [][]string{{"AGENTCLI_STDIO_CHILD=1"}, {"AGENTCLI_STDIO_CHILD=1", "GOMAXPROCS=3", "GOGC=200"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestServingStdioOneP$", "-test.count=1")
		cmd.Env = append(os.Environ(), env...)
		stdin, err := cmd.StdinPipe() // a pipe, as a host gives
		if err != nil {
			t.Fatal(err)
		}
		defer stdin.Close()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", env, err, out)
		}
		if !bytes.Contains(out, []byte("written raw\nstdout still open\n")) {
			t.Fatalf("%v: the child's stdout lost a line:\n%s", env, out)
		}
	}
	// The same with a socket on stdin and on stdout, as Node spawns.
	pair := func() (ours, child *os.File) {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		return os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "child")
	}
	inOurs, inChild := pair()
	outOurs, outChild := pair()
	defer inOurs.Close()
	defer outOurs.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServingStdioOneP$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AGENTCLI_STDIO_CHILD=1")
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inChild, outChild, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inChild.Close()
	outChild.Close()
	out, _ := io.ReadAll(outOurs)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("sockets: %v\n%s%s", err, out, stderr.Bytes())
	}
	if !bytes.Contains(out, []byte("written raw\nstdout still open\n")) {
		t.Fatalf("sockets: the child's stdout lost a line:\n%s", out)
	}
}
