package main

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// Percentiles are nearest-rank over every call: p99 of 200 calls is the
// second slowest, whatever the order they came in.
func TestPct(t *testing.T) {
	d := make([]time.Duration, 200)
	for i := range d {
		d[i] = time.Duration(200-i) * time.Millisecond
	}
	if got := pct(d, 99); got != 198*time.Millisecond {
		t.Errorf("p99 %s, want 198ms", got)
	}
	if got := pct(d, 50); got != 100*time.Millisecond {
		t.Errorf("p50 %s, want 100ms", got)
	}
	if got := pct(d[:1], 99); got != 200*time.Millisecond {
		t.Errorf("p99 of one call %s, want 200ms", got)
	}
}

// A side's CPU is read from /proc: this process has used some, and a
// child it started is found among its children.
func TestCPUAndChildren(t *testing.T) {
	if cpuTime(os.Getpid()) <= 0 {
		t.Error("no CPU time read for this process")
	}
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if kids := children(os.Getpid()); !slices.Contains(kids, cmd.Process.Pid) {
		t.Errorf("children %v do not hold the started process %d", kids, cmd.Process.Pid)
	}
}
