package builtin

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// procStat is what /proc/PID/stat tells about a process that matters for finding a call's
// descendants. start (clock ticks after boot) tells it from a later process that reuses its pid.
type procStat struct {
	pid, ppid, sid int
	state          byte // R, S, D, Z (zombie), X (dead) …
	start          uint64
}

// exited reports whether the process runs no code any more; a zombie only waits to be reaped.
func (p procStat) exited() bool { return p.state == 'Z' || p.state == 'X' }

func readStat(pid int) (procStat, bool) {
	var buf [1024]byte
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return procStat{}, false
	}
	n, err := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return procStat{}, false
	}
	return parseStat(pid, buf[:n])
}

// parseStat reads "pid (comm) state ppid pgrp session … starttime …". comm may hold spaces and
// parentheses, so the fields are counted from the last ")".
func parseStat(pid int, b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	// Fields 3 (state) to 22 (starttime) of proc(5), without allocating all ~50.
	var f [20][]byte
	n, rest := 0, b[i+1:]
	for n < len(f) {
		rest = bytes.TrimLeft(rest, " ")
		end := bytes.IndexByte(rest, ' ')
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			break
		}
		f[n], rest = rest[:end], rest[end:]
		n++
	}
	if n < len(f) || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	sid, err2 := strconv.Atoi(string(f[3]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	return procStat{pid: pid, ppid: ppid, sid: sid, state: f[0][0], start: start}, true
}

// scanProcs reads every process of the PID namespace /proc shows.
func scanProcs() ([]procStat, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	out := make([]procStat, 0, len(names))
	for _, name := range names {
		if name[0] < '1' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok { // a process that exited meanwhile is skipped
			out = append(out, st)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("/proc lists no processes")
	}
	return out, nil
}

// signalExact sends sig to the process p describes, never to a later one that took its pid:
// the pidfd pins one process, and its start time, read after opening it, must still match.
func signalExact(p procStat, sig syscall.Signal) {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if errors.Is(err, syscall.ENOSYS) { // Linux before 5.3: a tiny window for pid reuse remains
		if st, ok := readStat(p.pid); ok && st.start == p.start {
			syscall.Kill(p.pid, sig)
		}
		return
	}
	if err != nil {
		return // gone
	}
	defer unix.Close(fd)
	if st, ok := readStat(p.pid); ok && st.start == p.start {
		unix.PidfdSendSignal(fd, sig, nil, 0)
	}
}
