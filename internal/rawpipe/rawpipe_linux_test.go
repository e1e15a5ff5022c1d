package rawpipe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// pipe is an os.Pipe with both ends wrapped.
func pipe(t *testing.T) (r, w *Pipe) {
	t.Helper()
	rf, wf, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rf.Close(); wf.Close() })
	r, _ = Wrap(rf).(*Pipe)
	w, _ = Wrap(wf).(*Pipe)
	if r == nil || w == nil {
		t.Fatalf("Wrap(os.Pipe ends) = %T, %T; want *Pipe", Wrap(rf), Wrap(wf))
	}
	return r, w
}

// Lines written by many goroutines at once arrive whole, and the reader
// sees EOF once the writer closes.
func TestLinesArriveWhole(t *testing.T) {
	r, w := pipe(t)
	const writers, lines = 8, 200
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				line := fmt.Sprintf("%d %d %s\n", g, i, bytes.Repeat([]byte{'x'}, (g*lines+i)%700))
				if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
					t.Errorf("Write = %d, %v; want %d", n, err, len(line))
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); w.Close() }()
	sc := bufio.NewScanner(r)
	seen := 0
	for sc.Scan() {
		var g, i int
		var xs string
		if n, _ := fmt.Sscanf(sc.Text()+"!", "%d %d %s", &g, &i, &xs); n < 2 || len(sc.Text()) != len(fmt.Sprintf("%d %d ", g, i))+(g*lines+i)%700 {
			t.Fatalf("torn line %q", sc.Text())
		}
		seen++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if seen != writers*lines {
		t.Fatalf("read %d lines, want %d", seen, writers*lines)
	}
}

// A write larger than the pipe holds waits for room and goes out whole.
func TestWriteLargerThanThePipe(t *testing.T) {
	r, w := pipe(t)
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB; a pipe holds 64 KiB
	done := make(chan error, 1)
	go func() {
		_, err := w.Write(want)
		w.Close()
		done <- err
	}()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, want the %d written", len(got), len(want))
	}
}

// Close ends a read waiting for data, and a deadline set on the file
// applies to raw reads as to the file's own.
func TestCloseAndDeadlineEndAWaitingRead(t *testing.T) {
	r, _ := pipe(t)
	r.File().SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := r.Read(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline: %v; want os.ErrDeadlineExceeded", err)
	}
	r.File().SetReadDeadline(time.Time{})
	errc := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 8))
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond) // most likely waiting in the netpoller by now; either way Read must fail
	r.Close()
	if err := <-errc; !errors.Is(err, os.ErrClosed) {
		t.Fatalf("Read across Close: %v; want os.ErrClosed", err)
	}
}

// A reader gone makes a write fail with EPIPE; the process goes on.
func TestWriteToAClosedReader(t *testing.T) {
	r, w := pipe(t)
	r.Close()
	_, err := w.Write([]byte("nobody reads this\n"))
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("Write with no reader: %v; want EPIPE", err)
	}
}

// Files the netpoller does not wait on are used as they are.
func TestWrapLeavesOtherFiles(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "plain"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := Wrap(f); got != io.ReadWriteCloser(f) {
		t.Fatalf("Wrap(a regular file) = %T; want the file", got)
	}
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil { // blocking ends, as a host hands them
		t.Fatal(err)
	}
	br := os.NewFile(uintptr(fds[0]), "blocking")
	defer br.Close()
	syscall.Close(fds[1])
	if got := Wrap(br); got != io.ReadWriteCloser(br) {
		t.Fatalf("Wrap(a blocking pipe) = %T; want the file", got)
	}
}

// A line each way costs no allocation.
func TestReadWriteAllocateNothing(t *testing.T) {
	r, w := pipe(t)
	line, buf := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"), make([]byte, 128)
	allocs := testing.AllocsPerRun(200, func() {
		w.Write(line)
		r.Read(buf)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per line written and read; want 0", allocs)
	}
}

func BenchmarkLine(b *testing.B) {
	for _, raw := range []bool{false, true} {
		b.Run(fmt.Sprintf("raw=%v", raw), func(b *testing.B) {
			rf, wf, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			defer rf.Close()
			defer wf.Close()
			var r io.Reader = rf
			var w io.Writer = wf
			if raw {
				r, w = Wrap(rf), Wrap(wf)
			}
			line, buf := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"), make([]byte, 128)
			b.ReportAllocs()
			for b.Loop() {
				w.Write(line)
				r.Read(buf)
			}
		})
	}
}
