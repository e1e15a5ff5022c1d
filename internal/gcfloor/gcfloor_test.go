package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		inUse, floor uint64
		want         int
	}{
		{4 * mib, 32 * mib, 800},     // a small heap: the next cycle 32 MiB on
		{32 * mib, 32 * mib, 100},    // the floor reached: Go's default
		{500 * mib, 32 * mib, 100},   // a large heap: never below the default
		{1024, 32 * mib, maxPercent}, // nearly empty: bounded
		{0, 32 * mib, maxPercent},    // before the first cycle
		{16 * mib, 40 * mib, 250},
	} {
		if got := Percent(c.inUse, c.floor); got != c.want {
			t.Errorf("Percent(%d, %d) = %d, want %d", c.inUse, c.floor, got, c.want)
		}
	}
}

// gogc reads the GOGC in force without changing it.
func gogc() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// A GOGC or GOMEMLIMIT in the environment is the user's: the tuner does
// not start.
func TestStartLeavesUsersSettings(t *testing.T) {
	t.Setenv("GOGC", "150")
	if Start(1 << 30) {
		t.Fatal("Start ran with GOGC set in the environment")
	}
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "1GiB")
	if Start(1 << 30) {
		t.Fatal("Start ran with GOMEMLIMIT set in the environment")
	}
}

// Start sets GOGC for the heap in use at once; after each collection the
// tuner sets it again for the heap that cycle left (here the test keeps
// 64 MiB more alive, so GOGC comes down from the cap). It runs for the
// rest of the process, so this test restores Go's default last.
func TestTunerFollowsTheHeap(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the tuner stays off by design")
	}
	defer debug.SetGCPercent(basePercent)
	const floor = 1 << 30 // far above this test's heap
	runtime.GC()
	if !Start(floor) {
		t.Fatal("Start did not run with neither GOGC nor GOMEMLIMIT set")
	}
	first := gogc()
	if first <= basePercent*10 {
		t.Fatalf("GOGC %d after Start; want it raised well above %d for a heap far under the floor", first, basePercent)
	}
	kept := make([][]byte, 64)
	for i := range kept {
		kept[i] = make([]byte, 1<<20)
	}
	// The finalizer runs after a cycle, on its own goroutine: collect
	// until it has (bounded, not timed: at most 100 cycles).
	for i := 0; i < 100 && gogc() == first; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	got := gogc()
	runtime.KeepAlive(kept)
	if got >= first || got < basePercent {
		t.Fatalf("GOGC %d after collections with 64 MiB more in use (was %d); want it lower, at least %d", got, first, basePercent)
	}
}

var garbage [][]byte

// The tuner sets GOGC from the heap the last cycle left live, not from
// the heap in use when it runs: on a busy agent that also holds the
// cycle's unswept garbage and all that was allocated since (an agent
// under load read ~20 MiB for 11 MiB live and collected every ~20 MiB,
// not every 32). Here 48 MiB of garbage is allocated after a cycle that
// left under 4 MiB live; the tuner must still leave a runway of about
// the floor, not GOGC 100.
func TestTuneReadsTheLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(maxPercent)) // no cycle while the garbage piles up
	runtime.GC()
	for range 48 {
		garbage = append(garbage, make([]byte, 1<<20))
	}
	garbage = nil // unreachable, but in use until the next cycle
	const floor = 64 << 20
	start(floor, maxPercent)
	if got := gogc(); got < 1000 {
		t.Errorf("GOGC %d with under 4 MiB live and a %d MiB floor; want at least 1000 (the garbage since the cycle counted as live?)", got, floor>>20)
	}
}
