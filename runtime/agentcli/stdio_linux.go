package agentcli

import (
	"os"
	"strconv"
	"syscall"
)

// pollablePipe is f, when its reads already wait in the netpoller, or a
// new file of the same pipe or socket that Go uses non-blocking:
//   - a pipe (what most hosts hand over) is opened again through /proc,
//     reading (mode os.O_RDONLY) or writing (os.O_WRONLY): a new open file
//     description, so f's own keeps its flags (setting O_NONBLOCK on it
//     would change them for every process that shares it, the host's
//     shell say);
//   - a socket (Node's child_process hands each stdio stream one end of a
//     socketpair) cannot be opened again; it is duplicated and made
//     non-blocking, which its description shares with f. That end is the
//     agent's alone once the host has spawned it.
//
// Anything else: false.
func pollablePipe(f *os.File, mode int) (*os.File, bool) {
	if pollable(f) {
		return f, true
	}
	rc, err := f.SyscallConn() // not Fd, which would make f blocking
	if err != nil {
		return nil, false
	}
	var p *os.File
	rc.Control(func(fd uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) != nil {
			return
		}
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFIFO:
			p, _ = os.OpenFile("/proc/self/fd/"+strconv.Itoa(int(fd)), mode, 0)
		case syscall.S_IFSOCK:
			nfd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
			if errno != 0 {
				return
			}
			if syscall.SetNonblock(int(nfd), true) != nil {
				syscall.Close(int(nfd))
				return
			}
			p = os.NewFile(nfd, f.Name()) // non-blocking: Go polls it
		}
	})
	if p == nil {
		return nil, false
	}
	if !pollable(p) {
		p.Close()
		return nil, false
	}
	return p, true
}
