// Package gcfloor keeps a process's garbage collector from running more
// often than every Floor bytes of allocation when its live heap is small.
//
// Go's collector starts a cycle when the heap reaches live × (1 +
// GOGC/100), at least 4 MiB. An agent serving streamable HTTP keeps a few
// MiB live but allocates ~130 KiB of short-lived garbage per request
// (go-sdk decodes each POST four times with a decoder that allocates a
// 32 KiB buffer each time), so at the default it collected every few
// dozen calls and spent a third of its CPU in the collector. After each
// cycle the tuner sets GOGC so the next target is at least live + Floor;
// once the live heap is large (live ≥ Floor at GOGC=100) it changes
// nothing, so memory at scale is as before. A GOGC or GOMEMLIMIT in the
// environment is the user's choice and is left alone.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// maxPercent bounds GOGC for a nearly empty heap.
const maxPercent = 10_000

// basePercent is Go's default GOGC, the least the tuner sets.
const basePercent = 100

// Percent is the GOGC that puts the next collection at least floor bytes
// above a live heap of live bytes: never below Go's default, never above
// maxPercent.
func Percent(live, floor uint64) int {
	if live == 0 {
		return maxPercent
	}
	p := floor * 100 / live
	return int(min(max(p, basePercent), maxPercent))
}

// Tuner adjusts GOGC after every collection while it runs.
type Tuner struct {
	floor uint64
	prev  int // GOGC before Start, restored by Stop
	set   int // GOGC the tuner set last

	mu      sync.Mutex
	stopped bool
	sample  []metrics.Sample
}

// Start runs a tuner with the given floor, or returns nil when the
// environment sets GOGC or GOMEMLIMIT (the user's settings win).
func Start(floor uint64) *Tuner {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	t := &Tuner{floor: floor, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.prev = debug.SetGCPercent(basePercent)
	debug.SetGCPercent(t.prev)
	t.adjust()
	t.arm()
	return t
}

// Stop restores the GOGC in force before Start; safe on nil and twice.
func (t *Tuner) Stop() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(t.prev)
	}
}

// arm leaves an object for the next collection to free: its cleanup runs
// after that cycle, adjusts GOGC and arms again.
func (t *Tuner) arm() {
	s := new(sentinel)
	runtime.AddCleanup(s, func(t *Tuner) {
		if t.adjust() {
			t.arm()
		}
	}, t)
}

// sentinel is allocated only to be collected; it has a field so that its
// allocation is not the shared zero-size one.
type sentinel struct{ _ byte }

// adjust sets GOGC from the live heap the last cycle marked; false once
// stopped.
func (t *Tuner) adjust() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		if p := Percent(t.sample[0].Value.Uint64(), t.floor); p != t.set {
			debug.SetGCPercent(p)
			t.set = p
		}
	}
	return true
}
