package builtin

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// subreaperKillTimeout bounds how long a call waits for its killed processes to exit.
const subreaperKillTimeout = 10 * time.Second

// subreaperContainment makes the agent a child subreaper (PR_SET_CHILD_SUBREAPER): an orphan
// below it is re-parented to the agent instead of init, so every process a command starts stays
// a descendant of the agent, whatever session or group it moves to, and is found in /proc.
//
// A call's processes are the command's descendants plus the orphans the agent adopted from it:
// its children that are no command of a running call, started after this call's command, and
// are either in the command's session or in a session of their own (setsid). Processes the
// agent starts by other means keep its session. Two things follow: an orphan that starts its
// own session during one call may be killed by another call that ends first, and a child the
// agent itself started in a new session during a call (not through shell_exec) would be taken
// for an orphan. The agent also adopts orphans of its other children (MCP servers); it reaps
// only shell_exec's.
//
// The setting is the process's, so there is one value. The agent becomes a subreaper when the
// first command starts, not before: telling which containment is in force changes nothing.
type subreaperContainment struct {
	self, selfSID int
	become        func() error // PR_SET_CHILD_SUBREAPER, once
	// mu is held while a command starts and while a call looks for its processes, so that a
	// command being started is never taken for another call's orphan.
	mu    sync.Mutex
	calls map[int]bool // pids of running commands, which are also their session ids
}

var theSubreaper = sync.OnceValues(func() (*subreaperContainment, error) {
	if _, err := scanProcs(); err != nil {
		return nil, err
	}
	sid, err := unix.Getsid(0)
	if err != nil {
		return nil, err
	}
	become := sync.OnceValue(func() error {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("becoming a child subreaper: %w", err)
		}
		return nil
	})
	return &subreaperContainment{self: os.Getpid(), selfSID: sid, become: become, calls: map[int]bool{}}, nil
})

func newSubreaperContainment() (*subreaperContainment, error) { return theSubreaper() }

func (c *subreaperContainment) name() string { return "subreaper" }

func (c *subreaperContainment) start(cmd *exec.Cmd, lim ShellLimits) (contained, error) {
	if err := c.become(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := startCmd(cmd, lim); err != nil {
		return nil, err
	}
	pid := cmd.Process.Pid
	st, ok := readStat(pid) // there until Wait reaps the command
	if !ok {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("cannot read the start time of process %d from /proc", pid)
	}
	c.calls[pid] = true
	return &subreaperCall{c: c, pid: pid, start: st.start}, nil
}

type subreaperCall struct {
	c     *subreaperContainment
	pid   int    // the command's, and its session's
	start uint64 // the command's start time
	// reapable lists processes of the call that the agent will have to reap: killed ones and
	// adopted zombies.
	reapable []procStat
	signaled map[procStat]bool
}

func (k *subreaperCall) kill() {
	k.c.mu.Lock()
	defer k.c.mu.Unlock()
	k.killAll()
}

func (k *subreaperCall) finish() error {
	k.c.mu.Lock()
	err := k.killAll()
	delete(k.c.calls, k.pid)
	k.c.mu.Unlock()
	k.reap()
	return err
}

// killAll kills the call's processes until none is alive. /proc is read again after each
// round: a process may fork while its parent is being killed, and its child is then adopted.
func (k *subreaperCall) killAll() error {
	if k.signaled == nil {
		k.signaled = map[procStat]bool{}
	}
	deadline := time.Now().Add(subreaperKillTimeout)
	for wait := 20 * time.Microsecond; ; {
		procs, err := scanProcs()
		if err != nil {
			return err
		}
		alive := k.members(procs)
		if len(alive) == 0 {
			return nil
		}
		fresh := 0
		for _, p := range alive {
			key := procStat{pid: p.pid, start: p.start}
			if k.signaled[key] {
				continue // killed already, still exiting
			}
			k.signaled[key] = true
			fresh++
			signalExact(p, syscall.SIGKILL)
			if p.pid != k.pid { // the command is reaped by its Wait
				k.reapable = append(k.reapable, p)
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d processes of the command are still alive %s after SIGKILL", len(alive), subreaperKillTimeout)
		}
		if fresh == 0 {
			time.Sleep(wait)
			wait = min(2*wait, 10*time.Millisecond)
		}
	}
}

// members returns the call's live processes, and notes its adopted zombies for reaping.
func (k *subreaperCall) members(procs []procStat) []procStat {
	children := make(map[int][]int, len(procs))
	var queue []int
	for i, p := range procs {
		children[p.ppid] = append(children[p.ppid], i)
		if k.isRoot(p) {
			queue = append(queue, i)
		}
	}
	var alive []procStat
	for len(queue) > 0 {
		p := procs[queue[0]]
		queue = append(queue[1:], children[p.pid]...)
		switch {
		case !p.exited():
			alive = append(alive, p)
		case p.ppid == k.c.self && p.pid != k.pid:
			k.reapable = append(k.reapable, p)
		}
	}
	return alive
}

// isRoot reports whether p is the command or an orphan of the call that the agent adopted.
func (k *subreaperCall) isRoot(p procStat) bool {
	c := k.c
	if p.pid == k.pid {
		return p.start == k.start
	}
	if p.ppid != c.self || c.calls[p.pid] || p.start < k.start {
		return false
	}
	return p.sid == k.pid || (p.sid != c.selfSID && !c.calls[p.sid])
}

// reap collects the call's processes that the agent adopted: as their subreaper it is their
// parent now, and nothing else waits for them.
func (k *subreaperCall) reap() {
	pending := k.reapable
	deadline := time.Now().Add(subreaperKillTimeout)
	for len(pending) > 0 && time.Now().Before(deadline) {
		next := pending[:0]
		for _, p := range pending {
			st, ok := readStat(p.pid)
			switch {
			case !ok || st.start != p.start:
				// gone: reaped by its own parent before that one was killed, or by another call
			case st.exited() && st.ppid == k.c.self:
				reapExact(p)
			default:
				next = append(next, p) // still exiting, or its parent is
			}
		}
		pending = next
		if len(pending) > 0 {
			time.Sleep(100 * time.Microsecond)
		}
	}
}

// reapExact reaps the zombie p describes through a pidfd, so that a pid reused meanwhile can
// never make it take the exit status of another of the agent's children.
func reapExact(p procStat) {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if err != nil {
		return // gone, or Linux before 5.3: left to the agent's exit
	}
	defer unix.Close(fd)
	if st, ok := readStat(p.pid); ok && st.start == p.start {
		var info unix.Siginfo
		unix.Waitid(unix.P_PIDFD, fd, &info, unix.WEXITED|unix.WNOHANG, nil)
	}
}
