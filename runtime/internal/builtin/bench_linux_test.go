package builtin

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"
)

// BenchmarkShellContainment is one shell_exec call of `true` under each containment this machine
// allows; pgroup, the process group alone, is the baseline.
func BenchmarkShellContainment(b *testing.B) {
	all := append([]forcedContainment{{"pgroup", pgroupContainment{}}}, forcedContainments(b)...)
	args := json.RawMessage(`{"command":"true"}`)
	for _, fc := range all {
		s := NewShell([]string{"true"}, 0, 0, "")
		s.contain = fc.c
		b.Run("mech="+fc.label, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Call(context.Background(), args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScanProcs is what the subreaper containment pays per look at /proc.
func BenchmarkScanProcs(b *testing.B) {
	for b.Loop() {
		if _, err := scanProcs(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCgroupGroup is the cgroup2 containment's own work per call, without the command:
// make the call's group, open it for the clone, kill its (no) members and remove it.
func BenchmarkCgroupGroup(b *testing.B) {
	c, err := newCgroupContainment()
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		g, err := c.newGroup()
		if err != nil {
			b.Fatal(err)
		}
		fd, err := syscall.Open(g.dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			b.Fatal(err)
		}
		syscall.Close(fd)
		if err := g.finish(); err != nil {
			b.Fatal(err)
		}
	}
}
