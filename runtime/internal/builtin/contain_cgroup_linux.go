package builtin

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// cgroupGroupPrefix starts the name of every call group; the rest names the agent that made it
// (PID namespace, pid, start time) and the call.
const cgroupGroupPrefix = "toolgen-shell-"

// cgroupDrainTimeout bounds the wait for killed processes to leave their group.
const cgroupDrainTimeout = 10 * time.Second

// cgroupContainment runs each call in a new child group of the agent's own cgroup v2 group. The
// command is cloned straight into it (CLONE_INTO_CGROUP), so it cannot fork before it is
// inside; cgroup.kill then kills every member, including processes forked while it runs.
type cgroupContainment struct {
	parent string // the agent's own group
	owner  string // "PIDNS-PID-START-" of this agent, after cgroupGroupPrefix
}

// cgroupSeq numbers the call groups of this process.
var cgroupSeq atomic.Uint64

// newCgroupContainment finds the agent's group in the cgroup v2 hierarchy and proves it can
// be used: a child group can be made, has cgroup.kill (Linux 5.14) and a process can be cloned
// into it.
func newCgroupContainment() (*cgroupContainment, error) {
	parent, err := ownCgroup2Dir()
	if err != nil {
		return nil, err
	}
	owner, err := agentID(os.Getpid())
	if err != nil {
		return nil, err
	}
	c := &cgroupContainment{parent: parent, owner: owner}
	c.sweep()
	g, err := c.newGroup()
	if err != nil {
		return nil, err
	}
	defer g.remove()
	if _, err := os.Stat(filepath.Join(g.dir, "cgroup.kill")); err != nil {
		return nil, fmt.Errorf("cgroup2 has no cgroup.kill (Linux 5.14 or later): %w", err)
	}
	fd, err := syscall.Open(g.dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	// No program can exist inside cgroupfs: exec fails with ENOENT once the clone into the
	// group succeeded, and any other error is the clone's.
	_, err = syscall.ForkExec(filepath.Join(g.dir, "toolgen-probe"), nil, &syscall.ProcAttr{Sys: &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}})
	if !errors.Is(err, syscall.ENOENT) {
		return nil, fmt.Errorf("cloning into a cgroup: %v", err)
	}
	return c, nil
}

func (c *cgroupContainment) name() string { return "cgroup2" }

func (c *cgroupContainment) start(cmd *exec.Cmd, lim ShellLimits) (contained, error) {
	g, err := c.newGroup()
	if err != nil {
		return nil, err
	}
	if err := g.setLimits(lim); err != nil {
		g.remove()
		return nil, err
	}
	fd, err := syscall.Open(g.dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		g.remove()
		return nil, fmt.Errorf("opening the command's cgroup: %w", err)
	}
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	lim.cgroupPids = g.pids
	err = startCmd(cmd, lim)
	syscall.Close(fd)
	if err != nil {
		g.remove()
		return nil, err
	}
	return g, nil
}

func (c *cgroupContainment) newGroup() (*cgroupCall, error) {
	dir := filepath.Join(c.parent, cgroupGroupPrefix+c.owner+strconv.FormatUint(cgroupSeq.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the command's cgroup: %w", err)
	}
	return &cgroupCall{dir: dir}, nil
}

// sweep kills and removes the groups of agents of this PID namespace that are gone: an agent
// that was itself SIGKILLed during a call leaves its group behind, with the command's
// background processes still running in it (the command gets the parent-death signal; they
// do not). A group is kept while a process with its agent's pid and start time lives.
func (c *cgroupContainment) sweep() {
	entries, err := os.ReadDir(c.parent)
	if err != nil {
		return
	}
	pidns, _, _ := strings.Cut(c.owner, "-")
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), cgroupGroupPrefix+pidns+"-")
		if !ok || !e.IsDir() {
			continue
		}
		f := strings.Split(rest, "-")
		if len(f) != 3 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		start, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		if st, ok := readStat(pid); ok && st.start == start {
			continue // its agent is alive
		}
		g := &cgroupCall{dir: filepath.Join(c.parent, e.Name())}
		g.finish()
	}
}

// cgroupCall is one call's group.
type cgroupCall struct {
	dir  string
	pids bool   // pids.max holds the process limit
	hit  string // the limit the group reached, read before it is removed
}

// setLimits writes pids.max and memory.max before the command is cloned in. The files exist
// only when the parent group delegates the pids and memory controllers; without them the
// rlimits set after the start stand in.
func (g *cgroupCall) setLimits(lim ShellLimits) error {
	write := func(file string, v int64) (bool, error) {
		f, err := os.OpenFile(filepath.Join(g.dir, file), os.O_WRONLY, 0) // never O_CREATE: cgroupfs refuses it
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err == nil {
			_, err = f.WriteString(strconv.FormatInt(v, 10))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return false, fmt.Errorf("setting the command's %s: %w", file, err)
		}
		return true, nil
	}
	var err error
	if g.pids, err = write("pids.max", int64(lim.Processes)); err != nil {
		return err
	}
	_, err = write("memory.max", lim.Memory)
	return err
}

// limitHit names the cgroup limit the command ran into, from the groups' event counters:
// "processes" when a fork was refused, "memory" when the OOM killer struck.
func (g *cgroupCall) limitHit() string { return g.hit }

// readEvents reads KEY's counter from an events file of the group.
func (g *cgroupCall) readEvents(file, key string) int64 {
	b, err := os.ReadFile(filepath.Join(g.dir, file))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok && k == key {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

func (g *cgroupCall) kill() {
	if f, err := os.OpenFile(filepath.Join(g.dir, "cgroup.kill"), os.O_WRONLY, 0); err == nil {
		f.WriteString("1")
		f.Close()
	}
}

func (g *cgroupCall) finish() error {
	g.kill()
	switch {
	case g.readEvents("memory.events", "oom_kill") > 0:
		g.hit = "memory"
	case g.readEvents("pids.events", "max") > 0:
		g.hit = "processes"
	}
	return g.remove()
}

// remove deletes the group once it is empty: rmdir fails with EBUSY while a member is alive,
// and killed processes take a moment to exit. A zombie is no member.
func (g *cgroupCall) remove() error {
	deadline := time.Now().Add(cgroupDrainTimeout)
	for wait := 20 * time.Microsecond; ; wait = min(2*wait, 10*time.Millisecond) {
		err := syscall.Rmdir(g.dir)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("processes of the command are still alive after SIGKILL (%s): %w", g.dir, err)
		}
		time.Sleep(wait)
	}
}

// ownCgroup2Dir is where this process's cgroup v2 group is mounted: its path from the "0::"
// line of /proc/self/cgroup, under a cgroup2 mount of /proc/self/mountinfo whose root contains
// it (hybrid systems mount cgroup2 at /sys/fs/cgroup/unified, others at /sys/fs/cgroup).
func ownCgroup2Dir() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	path, found := "", false
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "0::"); ok {
			path, found = rest, true
		}
	}
	if !found || !strings.HasPrefix(path, "/") {
		return "", errors.New("this process is in no cgroup v2 group")
	}
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer mi.Close()
	sc := bufio.NewScanner(mi)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPEROPTIONS
		f := strings.Fields(sc.Text())
		sep := slices.Index(f, "-")
		if sep < 5 || sep+1 >= len(f) || f[sep+1] != "cgroup2" {
			continue
		}
		root, mnt := unescapeMountinfo(f[3]), unescapeMountinfo(f[4])
		rel, ok := strings.CutPrefix(path, root)
		if root == "/" {
			rel, ok = path, true
		}
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
			continue
		}
		return filepath.Join(mnt, rel), nil
	}
	return "", errors.New("cgroup2 is not mounted where this process's group can be seen")
}

// unescapeMountinfo undoes the octal escapes (\040 for a space …) of mountinfo paths.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// agentID names a process for its cgroups: the inode of its PID namespace, its pid and start
// time, each followed by "-".
func agentID(pid int) (string, error) {
	ns, err := os.Readlink("/proc/self/ns/pid") // "pid:[4026531836]"
	if err != nil {
		return "", err
	}
	ns = strings.TrimSuffix(strings.TrimPrefix(ns, "pid:["), "]")
	st, ok := readStat(pid)
	if !ok {
		return "", errors.New("cannot read this process's start time from /proc")
	}
	return ns + "-" + strconv.Itoa(pid) + "-" + strconv.FormatUint(st.start, 10) + "-", nil
}
