// Package gcfloor keeps a process's garbage collector from running more
// often than every floor bytes of allocation while its live heap is small.
//
// Go's collector starts a cycle when the heap reaches live × (1 +
// GOGC/100), at least 4 MiB. An agent serving streamable HTTP keeps a few
// MiB live but leaves ~130 KiB of short-lived garbage per request (go-sdk
// decodes each POST four times with a decoder that allocates a 32 KiB
// buffer each time), so at the default it collected every few dozen
// calls. After each cycle Start's tuner sets GOGC so the next target is at
// least floor above the heap in use; it never sets less than Go's default,
// so a large heap behaves as before. A GOGC or GOMEMLIMIT in the
// environment is the user's choice and is left alone.
//
// Kept small on purpose: every agent links it (runtime/metrics' live-heap
// figure would add ~45 KB; ReadMemStats once per cycle is enough).
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// maxPercent bounds GOGC for a nearly empty heap.
const maxPercent = 10_000

// basePercent is Go's default GOGC, the least the tuner sets.
const basePercent = 100

// Percent is the GOGC that puts the next collection at least floor bytes
// above a heap of inUse bytes: never below Go's default, never above
// maxPercent.
func Percent(inUse, floor uint64) int {
	if inUse == 0 {
		return maxPercent
	}
	return int(min(max(floor*100/inUse, basePercent), maxPercent))
}

// Start tunes GOGC after every collection from now on, for the life of
// the process; it does nothing when the environment sets GOGC or
// GOMEMLIMIT (the user's settings win). It reports whether it started.
func Start(floor uint64) bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	start(floor, debug.SetGCPercent(basePercent)) // reads the GOGC in force; tune sets it at once
	return true
}

// chain counts the tuners started; only the last one keeps tuning.
var chain atomic.Int64

// start begins a tuner with percent the GOGC in force, ending any other.
func start(floor uint64, percent int) {
	tune(&sentinel{floor: floor, percent: percent, chain: chain.Add(1)})
}

// sentinel is allocated only to be collected: its finalizer runs after
// the cycle that freed it, sets GOGC and arms a new one. (A finalizer
// rather than runtime.AddCleanup: every agent links SetFinalizer already.)
// percent is the GOGC in force when that cycle ended: the one set with it.
type sentinel struct {
	floor   uint64
	percent int
	chain   int64
}

func tune(s *sentinel) {
	if s.chain != chain.Load() {
		return // a later Start took over
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	// The heap the cycle left live, from the target it set with the GOGC
	// in force (target = live × (1 + GOGC/100), stacks and globals
	// counted as live). Not HeapAlloc: by the time a finalizer runs on a
	// busy process that also holds the cycle's unswept garbage and what
	// was allocated since; an agent under load read ~20 MiB for 11 MiB
	// live and collected every ~20 MiB instead of every 32.
	live := m.NextGC * 100 / uint64(100+max(s.percent, 0))
	p := Percent(live, s.floor)
	debug.SetGCPercent(p)
	runtime.SetFinalizer(&sentinel{floor: s.floor, percent: p, chain: s.chain}, tune)
}
