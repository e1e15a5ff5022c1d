package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A fork bomb stops at the process limit, and the result says so. The limit binds root only
// through a cgroup's pids.max; RLIMIT_NPROC does not apply to root.
func TestShellProcessLimit(t *testing.T) {
	s := NewShell([]string{"sh"}, 0, 0, "")
	s.SetLimits(ShellLimits{Processes: 20})
	if !cgroupPidsDelegated() {
		t.Skip("no delegated cgroup pids controller: RLIMIT_NPROC stands in, which binds no root and names no limit")
	}
	// 40 sleepers at once, more than the 20 allowed; sh reports the failed fork and exits 2
	_, err := call(t, s, `{"command":"sh","args":["-c","for i in $(seq 40); do sleep 5 & done; wait"]}`)
	if err == nil || !strings.Contains(err.Error(), `command "sh" hit its process limit (20 at once)`) {
		t.Fatalf("fork bomb: %v; want it stopped at the process limit", err)
	}
}

// cgroupPidsDelegated reports whether shell_exec's call groups get a pids.max here.
func cgroupPidsDelegated() bool {
	c, ok := defaultContainment().(*cgroupContainment)
	if !ok {
		return false
	}
	b, err := os.ReadFile(filepath.Join(c.parent, "cgroup.subtree_control"))
	return err == nil && strings.Contains(" "+strings.TrimSpace(string(b))+" ", " pids ")
}
