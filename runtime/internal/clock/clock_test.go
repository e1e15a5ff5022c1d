package clock

import (
	"testing"
	"time"
)

// Readings never go back on one goroutine, and after calibration a span
// measured by Now agrees with the monotonic clock's to within 1%.
func TestNowTracksMonotonicClock(t *testing.T) {
	time.Sleep(calibrateAfter)
	prev := Now()
	for range 1000 {
		n := Now()
		if n < prev {
			t.Fatalf("Now went back: %v after %v", n, prev)
		}
		prev = n
	}
	if usable && cal.Load() == nil {
		t.Fatal("an invariant counter was not calibrated")
	}
	m0, n0 := time.Since(epoch), Now()
	time.Sleep(50 * time.Millisecond)
	m, n := time.Since(epoch)-m0, Now()-n0
	if diff := (n - m).Abs(); diff > m/100 {
		t.Errorf("over %v of the monotonic clock Now measured %v", m, n)
	}
}

// A counter that did not advance, or at an impossible rate, is refused.
func TestNewRateRefusesNonsense(t *testing.T) {
	for _, c := range []struct {
		t0, t uint64
		m     time.Duration
	}{
		{100, 100, time.Second},        // stopped
		{100, 50, time.Second},         // went back
		{0, 10, time.Second},           // 10 Hz
		{0, 1 << 62, time.Millisecond}, // far too fast
		{0, 3_000_000_000, 0},          // no time passed
	} {
		if r := newRate(c.t0, c.t, c.m); r != nil {
			t.Errorf("newRate(%d, %d, %v) = %+v, want nil", c.t0, c.t, c.m, r)
		}
	}
	// 3 GHz: a second's ticks are a second.
	r := newRate(0, 3_000_000_000, time.Second)
	if r == nil {
		t.Fatal("3 GHz refused")
	}
	if got := ticks(r, 3_000_000_000); (got - time.Second).Abs() > time.Microsecond {
		t.Errorf("3e9 ticks at 3 GHz = %v, want 1s", got)
	}
	// A day of ticks does not overflow.
	if got := ticks(r, 3_000_000_000*86400); (got - 24*time.Hour).Abs() > time.Millisecond {
		t.Errorf("a day of ticks = %v", got)
	}
}

// ticks is what Now adds to the calibration point for d ticks.
func ticks(r *rate, d uint64) time.Duration {
	return scale(d, r.mult)
}

func BenchmarkNow(b *testing.B) {
	time.Sleep(calibrateAfter)
	Now()
	var s time.Duration
	for b.Loop() {
		s += Now()
	}
	_ = s
}

func BenchmarkSince(b *testing.B) {
	var s time.Duration
	for b.Loop() {
		s += time.Since(epoch)
	}
	_ = s
}
