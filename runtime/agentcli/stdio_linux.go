package agentcli

import (
	"os"
	"strconv"
	"syscall"
)

// pollablePipe is f, when its reads already wait in the netpoller, or the
// pipe f reads (mode os.O_RDONLY) or writes (os.O_WRONLY) opened again
// through /proc: a new open file description of the same pipe, which Go
// uses non-blocking. f's own description
// keeps its flags (setting O_NONBLOCK on it would change them for every
// process that shares it, the host's shell say). Not a pipe: false.
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
		if syscall.Fstat(int(fd), &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
			return
		}
		p, _ = os.OpenFile("/proc/self/fd/"+strconv.Itoa(int(fd)), mode, 0)
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
