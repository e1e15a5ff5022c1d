//go:build unix

package builtin

import (
	"os/exec"
	"syscall"
)

// pgroupContainment reaches only the command's process group (its session, as it starts with
// Setsid): a descendant that starts a session or group of its own escapes it. It is what
// systems other than Linux get.
type pgroupContainment struct{}

func (pgroupContainment) name() string { return "pgroup" }

func (pgroupContainment) start(cmd *exec.Cmd, lim ShellLimits) (contained, error) {
	if err := startCmd(cmd, lim); err != nil {
		return nil, err
	}
	return pgroupCall(cmd.Process.Pid), nil
}

type pgroupCall int

// kill signals the group; its id stays reserved while any member lives, even after the
// command itself was reaped, so it cannot name another group.
func (g pgroupCall) kill() { syscall.Kill(-int(g), syscall.SIGKILL) }

func (g pgroupCall) finish() error {
	g.kill()
	return nil
}
