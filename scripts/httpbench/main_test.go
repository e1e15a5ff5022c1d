package main

import (
	"bufio"
	"io"
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

// The upstream's reads are counted from /proc: a child fed lines one at
// a time, each answered before the next, reads each.
func TestUpstreamReads(t *testing.T) {
	cmd := exec.Command("cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skip("no cat:", err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	self, _ := os.FindProcess(os.Getpid())
	l := &load{side: &side{proc: &process{cmd: &exec.Cmd{Process: self}}}}
	r := bufio.NewReader(out)
	echo := func() {
		io.WriteString(in, "line\n")
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	echo() // cat has started
	before := l.upstreamReads()
	for range 5 {
		echo()
	}
	after := l.upstreamReads()
	if d := after - before; d < 5 {
		t.Errorf("%d reads counted for five lines fed one at a time", d)
	}
}

// procField reads a named number from a /proc file's text.
func TestProcField(t *testing.T) {
	text := "rchar: 10\nsyscr: 42\nsyscw: 7\n"
	if got := procField(text, "syscr:"); got != 42 {
		t.Errorf("syscr %d, want 42", got)
	}
	if got := procField(text, "cancelled:"); got != 0 {
		t.Errorf("missing field %d, want 0", got)
	}
}
