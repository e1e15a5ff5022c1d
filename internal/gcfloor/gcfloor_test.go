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
		live, floor uint64
		want        int
	}{
		{4 * mib, 32 * mib, 800},     // a small heap: the next cycle 32 MiB on
		{32 * mib, 32 * mib, 100},    // the floor reached: Go's default
		{500 * mib, 32 * mib, 100},   // a large heap: never below the default
		{1024, 32 * mib, maxPercent}, // nearly empty: bounded
		{0, 32 * mib, maxPercent},    // before the first cycle
		{16 * mib, 40 * mib, 250},
	} {
		if got := Percent(c.live, c.floor); got != c.want {
			t.Errorf("Percent(%d, %d) = %d, want %d", c.live, c.floor, got, c.want)
		}
	}
}

// gogc reads the GOGC in force without changing it.
func gogc() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// Start sets GOGC for the live heap at once; after each collection the
// tuner sets it again for the heap that cycle marked (here the test keeps
// 64 MiB more alive, so GOGC comes down from the cap); Stop puts the old
// value back and later collections leave it alone.
func TestTunerFollowsTheLiveHeap(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the tuner stays off by design")
	}
	before := gogc()
	const floor = 1 << 30 // far above this test's live heap
	runtime.GC()
	tu := Start(floor)
	if tu == nil {
		t.Fatal("Start returned nil with neither GOGC nor GOMEMLIMIT set")
	}
	defer tu.Stop()
	first := gogc()
	if first <= basePercent*10 {
		t.Fatalf("GOGC %d after Start; want it raised well above %d for a heap far under the floor", first, basePercent)
	}
	kept := make([][]byte, 64)
	for i := range kept {
		kept[i] = make([]byte, 1<<20)
	}
	// The cleanup runs after a cycle, on its own goroutine: collect until
	// it has (bounded, not timed: at most 100 cycles).
	for i := 0; i < 100 && gogc() == first; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := gogc(); got >= first || got < basePercent {
		t.Fatalf("GOGC %d after collections with 64 MiB more live (was %d); want it lower, at least %d", got, first, basePercent)
	}
	runtime.KeepAlive(kept)
	tu.Stop()
	if got := gogc(); got != before {
		t.Fatalf("GOGC %d after Stop, want %d as before", got, before)
	}
	kept = nil
	for range 3 {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := gogc(); got != before {
		t.Errorf("GOGC %d after Stop and collections, want %d", got, before)
	}
	tu.Stop() // twice is fine
	(*Tuner)(nil).Stop()
}

// A GOGC in the environment is the user's: the tuner does not start.
func TestTunerLeavesUsersGOGC(t *testing.T) {
	t.Setenv("GOGC", "150")
	if tu := Start(1 << 30); tu != nil {
		tu.Stop()
		t.Fatal("Start ran with GOGC set in the environment")
	}
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "1GiB")
	if tu := Start(1 << 30); tu != nil {
		tu.Stop()
		t.Fatal("Start ran with GOMEMLIMIT set in the environment")
	}
}
