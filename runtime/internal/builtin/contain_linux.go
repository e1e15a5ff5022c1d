package builtin

import (
	"errors"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// defaultContainment is the strongest containment this machine allows, found by trying each:
// cgroup2 keeps the command's view of signals and /proc as it is, pidns needs no cgroup
// delegation, subreaper needs nothing.
var defaultContainment = sync.OnceValue(func() containment {
	if c, err := newCgroupContainment(); err == nil {
		return c
	}
	for _, user := range []bool{false, true} {
		if c, err := newPidnsContainment(user); err == nil {
			return c
		}
	}
	if c, err := newSubreaperContainment(); err == nil {
		return c
	}
	return pgroupContainment{}
})

// procAttr is how every command starts: in a session and process group of its own, without a
// controlling terminal, and killed by the kernel when the agent dies (see startCmd).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// startDir is the directory the child changes into: the magic link /proc/self/fd/N of the
// directory that workDir opened, and checked, inside the root. The child resolves it between
// fork and exec to the very directory its copy of fd N holds, whatever path leads there by
// then: no name the model chose is looked up again, so swapping a symlink after the check
// cannot move the command elsewhere.
func startDir(d *os.File, _ string) (string, error) {
	if !procFDs() {
		return "", errors.New("cwd needs /proc to start the command in the directory that was checked, and /proc is not mounted")
	}
	return "/proc/self/fd/" + strconv.Itoa(int(d.Fd())), nil
}

var procFDs = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
})
