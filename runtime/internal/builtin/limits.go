package builtin

import (
	"fmt"
	"time"
)

// ShellLimits bound what one shell_exec call may use, so a command cannot fork-bomb the machine,
// take its memory or spin a core for good. Zero fields take the defaults below.
type ShellLimits struct {
	Processes int           // processes and threads at once (cgroup pids.max, else RLIMIT_NPROC)
	Memory    int64         // bytes (cgroup memory.max, else RLIMIT_DATA of each process)
	CPUTime   time.Duration // CPU time of each process (RLIMIT_CPU)

	cgroupPids bool // the call's cgroup holds Processes in pids.max
}

// Defaults of ShellLimits: generous for builds and tests, small enough that a runaway command
// leaves the machine usable.
const (
	DefaultShellProcesses = 512
	DefaultShellMemory    = 2 << 30
	DefaultShellCPUTime   = 5 * time.Minute
)

func (l ShellLimits) withDefaults() ShellLimits {
	if l.Processes <= 0 {
		l.Processes = DefaultShellProcesses
	}
	if l.Memory <= 0 {
		l.Memory = DefaultShellMemory
	}
	if l.CPUTime <= 0 {
		l.CPUTime = DefaultShellCPUTime
	}
	return l
}

// SetLimits replaces the default limits of every later call.
func (s *Shell) SetLimits(l ShellLimits) { s.limits = l.withDefaults() }

// mib renders a byte count for a message.
func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
