// Package clock is the call pipeline's stopwatch: the monotonic time since
// the process started, read from the CPU's time-stamp counter where that
// counter is invariant (amd64), else from the runtime's monotonic clock.
//
// Every call reads it twice, for its latency. On a virtual machine whose
// kernel clock is kvm-clock, time.Since costs a vDSO call on the system
// stack; reading the counter is a single instruction and a multiply. The
// counter's rate is calibrated against the monotonic clock once, a little
// after start, so the two agree on what a nanosecond is; only differences
// of readings mean anything.
package clock

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// epoch anchors the monotonic fallback: time.Since of a time with a
// monotonic reading reads only the monotonic clock.
var epoch = time.Now()

// calibrateAfter is how long after start the counter's rate is measured:
// long enough that two readings' jitter (tens of ns) is a few parts per
// million of the span.
const calibrateAfter = 10 * time.Millisecond

// rate converts counter ticks since t0 into time since epoch.
type rate struct {
	t0   uint64        // the counter at calibration
	m0   time.Duration // the monotonic time at calibration
	mult uint64        // nanoseconds per tick, 32.32 fixed point
}

var (
	cal    atomic.Pointer[rate] // nil until calibrated
	usable = invariantTSC()     // the counter is there and ticks at one rate
	start  = startReading()     // the counter at epoch (0 without one)
	failed atomic.Bool          // the calibration found no sensible rate
)

func startReading() uint64 {
	if !usable {
		return 0
	}
	return rdtsc()
}

// Now is the time since the process started. Use it for durations only:
// Now() - earlier.
func Now() time.Duration {
	if r := cal.Load(); r != nil {
		d := int64(rdtsc() - r.t0)
		if d < 0 { // read on a CPU whose counter lags the calibrating one's
			return r.m0
		}
		return r.m0 + scale(uint64(d), r.mult)
	}
	return calibrate()
}

// calibrate is Now before the counter's rate is known: the monotonic
// clock, and once calibrateAfter has passed, the rate measured over it.
func calibrate() time.Duration {
	m := time.Since(epoch)
	if !usable || m < calibrateAfter || failed.Load() {
		return m
	}
	if r := newRate(start, rdtsc(), m); r != nil {
		cal.CompareAndSwap(nil, r)
	} else {
		failed.Store(true) // a counter that does not advance sensibly is not used
	}
	return m
}

// newRate is the rate of a counter that went from t0 at epoch to t at m;
// nil for a rate outside 100 MHz – 20 GHz.
func newRate(t0, t uint64, m time.Duration) *rate {
	if t <= t0 || m <= 0 {
		return nil
	}
	ghz := float64(t-t0) / float64(m)
	if ghz < 0.1 || ghz > 20 {
		return nil
	}
	return &rate{t0: t, m0: m, mult: uint64(float64(m) / float64(t-t0) * (1 << 32))}
}

// scale is d ticks in nanoseconds at mult (32.32 fixed point), without
// overflow for any uptime.
func scale(d, mult uint64) time.Duration {
	hi, lo := bits.Mul64(d, mult)
	return time.Duration(hi<<32 | lo>>32)
}
