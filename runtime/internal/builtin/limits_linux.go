package builtin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// startLimited starts cmd stopped, traced by this thread, right after its exec; sets its
// limits, which every process it starts inherits; and lets it run. So no process of the
// command runs a single instruction unlimited. The trace ends before the program's first
// instruction, but an exec under trace drops setuid bits and file capabilities, so a setuid
// program in allowed_commands runs with the caller's rights.
func startLimited(cmd *exec.Cmd, lim ShellLimits) error {
	// ptrace requests must come from the tracing thread. The thread is unlocked again, not
	// ended, before the goroutine returns: its end would send the parent-death signal.
	if !ptraceStarts() {
		// a sandbox that forbids ptrace: limits set once it runs, the window documented
		if err := cmd.Start(); err != nil {
			return err
		}
		if err := setRlimits(cmd.Process.Pid, lim); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return fmt.Errorf("setting resource limits: %w", err)
		}
		return nil
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd.SysProcAttr.Ptrace = true
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, unix.WALL, nil); err != nil || !ws.Stopped() {
		cmd.Process.Kill()
		cmd.Wait()
		return fmt.Errorf("the command did not stop after its exec (%v, status %v)", err, ws)
	}
	err := setRlimits(pid, lim)
	if err != nil {
		unix.Kill(pid, unix.SIGKILL)
	}
	if derr := unix.PtraceDetach(pid); derr != nil && err == nil {
		err = derr
		unix.Kill(pid, unix.SIGKILL)
	}
	if err != nil {
		cmd.Wait()
		return fmt.Errorf("setting resource limits: %w", err)
	}
	return nil
}

// setRlimits sets the per-process limits on the stopped command. RLIMIT_NPROC counts every process of the user, so it is set only where
// no cgroup pids.max holds and only above what the user runs already; root ignores it.
func setRlimits(pid int, l ShellLimits) error {
	cpu := uint64(max(l.CPUTime.Round(time.Second)/time.Second, 1))
	// SIGXCPU at the soft limit, which the result names; SIGKILL a second later.
	if err := unix.Prlimit(pid, unix.RLIMIT_CPU, &unix.Rlimit{Cur: cpu, Max: cpu + 1}, nil); err != nil {
		return err
	}
	mem := uint64(l.Memory)
	if err := unix.Prlimit(pid, unix.RLIMIT_DATA, &unix.Rlimit{Cur: mem, Max: mem}, nil); err != nil {
		return err
	}
	if l.cgroupPids || os.Getuid() == 0 {
		return nil
	}
	n := uint64(userProcesses() + l.Processes)
	return unix.Prlimit(pid, unix.RLIMIT_NPROC, &unix.Rlimit{Cur: n, Max: n}, nil)
}

// userProcesses counts the threads of this user's processes in /proc.
func userProcesses() int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	uid, n := uint32(os.Getuid()), 0
	for _, e := range entries {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		// a task directory links once per thread, and RLIMIT_NPROC counts threads
		var st, task unix.Stat_t
		if unix.Stat("/proc/"+e.Name(), &st) == nil && st.Uid == uid && unix.Stat("/proc/"+e.Name()+"/task", &task) == nil {
			n += max(int(task.Nlink)-2, 1)
		}
	}
	return n
}

// peakMemory is the largest resident size the command or any descendant it waited for reached.
func peakMemory(st *os.ProcessState) int64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10 // KiB
	}
	return 0
}

// ptraceStarts reports whether a child may be traced from its exec here (seccomp or a Yama
// ptrace_scope of 3 forbid it). The probe execs a path that cannot exist: ENOENT means the
// trace request itself succeeded.
var ptraceStarts = sync.OnceValue(func() bool {
	_, err := syscall.ForkExec("/nonexistent/toolgen-ptrace-probe", nil, &syscall.ProcAttr{Sys: &syscall.SysProcAttr{Ptrace: true}})
	return errors.Is(err, syscall.ENOENT)
})
