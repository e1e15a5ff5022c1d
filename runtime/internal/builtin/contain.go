package builtin

import "os/exec"

// A containment keeps every process a shell_exec command starts within reach, so that none
// outlives its call. A process group does not: any process can leave it (setsid, setpgid).
// Linux has three, tried in this order when the first command runs:
//
//   - cgroup2: each call runs in a child group of the agent's cgroup v2 group, and writing
//     cgroup.kill ends everything in it at once.
//   - pidns: each call runs in a PID namespace of its own whose init is the command; when the
//     command dies, the kernel kills everything else in the namespace.
//   - subreaper: the agent adopts the orphans of its descendants, so every process of the call
//     can be found in /proc, and is killed there.
//
// Other systems have "pgroup": the command's process group only.
type containment interface {
	name() string
	// start starts cmd, its SysProcAttr already set, in a container of its own.
	start(cmd *exec.Cmd, lim ShellLimits) (contained, error)
}

// contained is one started command with every process it starts.
type contained interface {
	// kill sends SIGKILL to the command and to every descendant, without waiting.
	kill()
	// finish runs after the command was reaped: it kills whatever is left, waits until no
	// process of the call is alive and releases what start took.
	finish() error
}

// Containment names how shell_exec keeps a command's descendants from outliving its call in
// this process: "cgroup2", "pidns" or "subreaper" on Linux, "pgroup" elsewhere. It is decided
// once, by trying each in that order.
func Containment() string { return defaultContainment().name() }

// startCmd starts cmd from a goroutine of its own. Linux sends the parent-death signal when the
// thread that forked the child ends, not the process; a new goroutine is never locked to its
// thread, and the Go runtime ends only threads that a goroutine locked, so the signal comes when
// the agent dies, not when the caller's goroutine happened to have locked its thread and exits.
// The command's resource limits are set there too (startLimited), before it runs.
func startCmd(cmd *exec.Cmd, lim ShellLimits) error {
	errc := make(chan error, 1)
	go func() { errc <- startLimited(cmd, lim) }()
	return <-errc
}
