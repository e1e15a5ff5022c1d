package jsonrpcline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes records each Write it gets; while hold is set, a Write waits for
// it to be closed and then fails with fail, if set.
type writes struct {
	mu      sync.Mutex
	got     [][]byte
	hold    chan struct{}
	entered chan struct{} // told when a held Write begins
	fail    error
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	hold := w.hold
	w.got = append(w.got, bytes.Clone(p))
	w.mu.Unlock()
	if hold != nil {
		w.entered <- struct{}{}
		<-hold
		w.mu.Lock()
		fail := w.fail
		w.mu.Unlock()
		if fail != nil {
			return 0, fail
		}
	}
	return len(p), nil
}

func (w *writes) Close() error { return nil }

func (w *writes) all() [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.got
}

// idleLines is input that never comes until closed.
type idleLines struct{ closed chan struct{} }

func (l idleLines) Next() ([]byte, error) { <-l.closed; return nil, io.EOF }
func (l idleLines) Close() error          { close(l.closed); return nil }

func writesConn(t *testing.T, w *writes) *Conn {
	c := NewConn(idleLines{make(chan struct{})}, w, Options{})
	t.Cleanup(func() { c.Close() })
	return c
}

// pendingLines is how many lines wait for the next group's write.
func pendingLines(c *Conn) int {
	c.gatherMu.Lock()
	defer c.gatherMu.Unlock()
	return bytes.Count(c.pending, []byte{'\n'})
}

// waitPending waits until n lines wait for the next write; it gives up
// after a long while (they wait on the write in progress instead).
func waitPending(t *testing.T, c *Conn, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); pendingLines(c) != n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d lines wait for the next write, want %d", pendingLines(c), n)
		}
		runtime.Gosched()
	}
}

// Lines written while a write is in progress go out together in the next
// write, each whole, in the order their writers came in; every writer
// returns only once its line is written, with that write's outcome.
func TestWritesDuringAWriteGoOutTogether(t *testing.T) {
	for _, fail := range []error{nil, errors.New("pipe broke")} {
		hold := make(chan struct{})
		w := &writes{hold: hold, entered: make(chan struct{}, 1)}
		c := writesConn(t, w)
		first := make(chan error, 1)
		go func() { first <- c.WriteLine([]byte("first\n")) }()
		<-w.entered // the first write is in progress and held
		w.mu.Lock()
		w.fail = fail
		w.mu.Unlock()

		const n = 5
		errs := make(chan error, n)
		for i := range n {
			go func() { errs <- c.WriteLine([]byte(fmt.Sprintf("line %d\n", i))) }()
			waitPending(t, c, i+1) // in this order
		}
		select {
		case err := <-errs:
			t.Fatalf("a writer returned (%v) before its line was written", err)
		default:
		}
		w.mu.Lock()
		w.hold = nil // the group's write goes through at once
		w.mu.Unlock()
		close(hold)
		if err := <-first; !errors.Is(err, fail) {
			t.Errorf("first writer got %v, want %v", err, fail)
		}
		for range n {
			if err := <-errs; err != nil {
				t.Errorf("a writer of the second write got %v", err)
			}
		}
		got := w.all()
		want := []string{"first\n", "line 0\nline 1\nline 2\nline 3\nline 4\n"}
		if len(got) != len(want) {
			t.Fatalf("%d writes %q, want %d: %q", len(got), got, len(want), want)
		}
		for i := range want {
			if string(got[i]) != want[i] {
				t.Errorf("write %d is %q, want %q", i, got[i], want[i])
			}
		}
	}
}

// A group's members get the error of the write that carried their lines.
func TestGroupGetsItsWritesError(t *testing.T) {
	hold := make(chan struct{})
	w := &writes{hold: hold, entered: make(chan struct{}, 2)}
	c := writesConn(t, w)
	go c.WriteLine([]byte("first\n"))
	<-w.entered
	errs := make(chan error, 3)
	for i := range 3 {
		go func() { errs <- c.WriteLine([]byte("x\n")) }()
		waitPending(t, c, i+1)
	}
	w.mu.Lock()
	w.fail = errors.New("pipe broke")
	w.mu.Unlock()
	close(hold) // both held writes end: the group's fails
	for range 3 {
		if err := <-errs; err == nil || err.Error() != "pipe broke" {
			t.Errorf("member got %v, want the group's write error", err)
		}
	}
}

// Calls made together from goroutines that are ready at once share
// writes: the leader lets the others run before it writes. Every request
// line reaches the peer whole, and each writer's lines keep their order.
func TestConcurrentCallsShareWrites(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	inR, inW := io.Pipe()
	w := &writes{}
	c := NewConn(&scanLines{sc: bufio.NewScanner(inR), r: inR}, w, Options{})
	defer func() { c.Close(); inW.Close() }()

	const callers, each = 8, 20
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for g := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := int64(g*1000 + i)
				line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m"}`+"\n", id)
				if _, err := c.Call(ctx, id, []byte(line)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	// the peer: answer each request line once it is written
	answered := 0
	seen := 0
	for answered < callers*each {
		got := w.all()
		for _, b := range got[seen:] {
			for line := range strings.Lines(string(b)) {
				var id int64
				if _, err := fmt.Sscanf(line, `{"jsonrpc":"2.0","id":%d,"method":"m"}`, &id); err != nil {
					t.Fatalf("line %q is not a whole request: %v", line, err)
				}
				io.WriteString(inW, `{"jsonrpc":"2.0","id":`+strconv.FormatInt(id, 10)+`,"result":{}}`+"\n")
				answered++
			}
		}
		seen = len(got)
		runtime.Gosched()
	}
	wg.Wait()

	last := map[int64]int64{}
	for _, b := range w.all() {
		for line := range strings.Lines(string(b)) {
			var id int64
			fmt.Sscanf(line, `{"jsonrpc":"2.0","id":%d`, &id)
			if prev, ok := last[id/1000]; ok && id <= prev {
				t.Errorf("caller %d's request %d came after %d", id/1000, id%1000, prev%1000)
			}
			last[id/1000] = id
		}
	}
	if n := len(w.all()); n >= callers*each {
		t.Errorf("%d writes for %d requests from %d callers at once: none shared", n, callers*each, callers)
	} else {
		t.Logf("%d writes for %d requests", n, callers*each)
	}
}
