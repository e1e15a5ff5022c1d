package builtin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// pidnsContainment runs each command as init (PID 1) of a new PID namespace. When init dies,
// the kernel kills every other process of the namespace, and no process can leave a PID
// namespace, so nothing the command started survives it. The command's exit, a timeout kill and
// the parent-death signal all end the namespace.
//
// Being init changes two things for the command: signals it has no handler for are ignored when
// they come from inside the namespace (kill -TERM $$ does nothing; SIGKILL from the agent
// works), and /proc is still the agent's, so pids read there do not name the namespace's
// processes.
type pidnsContainment struct {
	// user also makes a user namespace, which an unprivileged process needs to make a PID
	// namespace; it maps the agent's own uid and gid to themselves.
	user     bool
	uid, gid int
}

// newPidnsContainment proves that this process can make the namespaces.
func newPidnsContainment(user bool) (*pidnsContainment, error) {
	c := &pidnsContainment{user: user, uid: os.Geteuid(), gid: os.Getegid()}
	attr := &syscall.SysProcAttr{}
	c.apply(attr)
	// The namespaces are made by clone; exec then fails with ENOENT, and any other error is
	// the clone's (EPERM, EINVAL, ENOSPC).
	_, err := syscall.ForkExec("/proc/self/toolgen-probe", nil, &syscall.ProcAttr{Sys: attr})
	if !errors.Is(err, syscall.ENOENT) {
		return nil, fmt.Errorf("making a PID namespace (user namespace too: %v): %v", user, err)
	}
	return c, nil
}

func (c *pidnsContainment) name() string { return "pidns" }

func (c *pidnsContainment) apply(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= syscall.CLONE_NEWPID
	if c.user {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: c.uid, HostID: c.uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: c.gid, HostID: c.gid, Size: 1}}
	}
}

func (c *pidnsContainment) start(cmd *exec.Cmd, lim ShellLimits) (contained, error) {
	c.apply(cmd.SysProcAttr)
	if err := startCmd(cmd, lim); err != nil {
		return nil, err
	}
	return pidnsCall{cmd.Process}, nil
}

type pidnsCall struct{ init *os.Process }

// kill kills init, which takes the whole namespace with it.
func (n pidnsCall) kill() { n.init.Kill() }

// finish has nothing left to do: init's exit completes only once every other process of its
// namespace is gone, so the namespace was empty when the command was reaped.
func (n pidnsCall) finish() error { return nil }
