//go:build !linux

package mcpconn

import "os/exec"

// startChild starts cmd. Only Linux has a parent-death signal; elsewhere a
// server outlives an agent killed by SIGKILL if it ignores stdin EOF.
func startChild(cmd *exec.Cmd) (done func(), err error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() {}, nil
}
