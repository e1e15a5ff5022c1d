package jsonrpcline

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// A line Take gives work for is run by the goroutine that read it, after
// it hands reading on: work that blocks holds up neither reading nor the
// other lines' work, no goroutine is started per line once followers are
// parked, and at most maxFollowers stay parked, until Close ends them.
func TestTakeRunsWorkOnTheReader(t *testing.T) {
	before := runtime.NumGoroutine()
	inR, inW := io.Pipe()
	release := make(chan struct{})
	started := make(chan string, 100)
	var blockers sync.WaitGroup
	take := func(line []byte) (bool, func()) {
		s := string(line)
		switch {
		case strings.HasPrefix(s, "block"):
			blockers.Add(1)
			return true, func() {
				defer blockers.Done()
				started <- s
				<-release
			}
		case strings.HasPrefix(s, "quick"):
			return true, func() { started <- s }
		}
		return true, nil
	}
	c := NewConn(&scanLines{sc: bufio.NewScanner(inR), r: inR}, nopCloser{io.Discard}, Options{Take: take})

	// blocked work does not stop the next lines being read and run
	for i := range 6 {
		fmt.Fprintf(inW, "block %d\n", i)
	}
	for range 6 {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatal("a line was not read while earlier work was blocked")
		}
	}
	close(release)
	blockers.Wait()

	// sequential work, followers parked: no goroutine per line
	created := func() uint64 {
		s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	g0 := created()
	for i := range 200 {
		fmt.Fprintf(inW, "quick %d\n", i)
		<-started
	}
	if n := created() - g0; n > 20 {
		t.Errorf("%d goroutines started for 200 lines of work in turn", n)
	}
	// the reader, and at most maxFollowers parked
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+1+maxFollowers && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine() - before; n > 1+maxFollowers {
		t.Errorf("%d goroutines left reading and parked, want at most %d", n, 1+maxFollowers)
	}
	c.Close()
	inW.Close()
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine() - before; n > 0 {
		t.Errorf("%d goroutines left after Close", n)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
