package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/toolgen-dev/toolgen/internal/childenv"
)

// Defaults for a shell_exec policy that leaves them unset.
const (
	DefaultShellTimeout   = 30 * time.Second
	DefaultMaxShellOutput = 100_000
)

// drainGrace bounds how long output is still read after the command's processes were killed:
// a process that escaped its containment (see README) could otherwise hold the pipe open
// forever.
const drainGrace = time.Second

// Shell is the shell_exec builtin. It runs one allowed program with an argument vector; no
// shell ever parses the arguments, so metacharacters reach the program literally.
type Shell struct {
	allowed   []string
	timeout   time.Duration
	maxOutput int
	dir       string
	contain   containment // nil: the process's default
	limits    ShellLimits
}

// NewShell returns a shell_exec tool. Only programs named exactly as in allowedCommands may run.
// A bare name is looked up in PATH; a name with a slash is a path, relative ones against dir,
// and is never looked up in PATH. timeout and maxOutput fall back to DefaultShellTimeout and
// DefaultMaxShellOutput when zero or less; dir is the working directory (the process's own when
// empty), and the cwd argument must stay inside it.
// Commands get childenv's short list of variables, never the agent's whole
// environment (which holds the servers' tokens).
func NewShell(allowedCommands []string, timeout time.Duration, maxOutput int, dir string) *Shell {
	if timeout <= 0 {
		timeout = DefaultShellTimeout
	}
	if maxOutput <= 0 {
		maxOutput = DefaultMaxShellOutput
	}
	if dir == "" {
		dir = "."
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // fixed now: relative command paths and cwd must not follow a later chdir
	}
	return &Shell{allowed: slices.Clone(allowedCommands), timeout: timeout, maxOutput: maxOutput, dir: dir, limits: ShellLimits{}.withDefaults()}
}

// Close is a no-op: a Shell holds nothing between calls.
func (s *Shell) Close() error { return nil }

// Schema is the JSON Schema of shell_exec's arguments.
func (s *Shell) Schema() json.RawMessage {
	command := map[string]any{
		"type":        "string",
		"description": "Program to run (argv[0]); one of the allowed commands. No shell is involved.",
	}
	if len(s.allowed) > 0 {
		command["enum"] = s.allowed
	}
	cmd, _ := json.Marshal(command)
	return json.RawMessage(`{"type":"object","properties":{` +
		`"command":` + string(cmd) + `,` +
		`"args":{"type":"array","items":{"type":"string"},"description":"Arguments, passed to the program exactly as given (no globbing, quoting or variable expansion)."},` +
		`"cwd":{"type":"string","description":"Directory to run in, relative to the working directory. Default: the working directory."},` +
		`"stdin":{"type":"string","description":"Text sent to the program's standard input. Default: none."}` +
		`},"required":["command"],"additionalProperties":false}`)
}

type shellArgs struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Cwd     string   `json:"cwd"`
	Stdin   *string  `json:"stdin"`
}

// Call runs the command and returns its combined stdout and stderr. A non-zero exit, a signal
// or the timeout is an error whose message carries the exit status and the (capped) output, so
// the model sees why the command failed.
func (s *Shell) Call(ctx context.Context, args json.RawMessage) (string, error) {
	var a shellArgs
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	path, err := s.lookup(a.Command)
	if err != nil {
		return "", err
	}
	for i, arg := range a.Args {
		if strings.ContainsRune(arg, 0) {
			return "", fmt.Errorf("args[%d] contains a NUL byte, which no program argument can hold", i)
		}
	}
	dir, dirFile, err := s.workDir(a.Cwd)
	if err != nil {
		return "", err
	}
	if dirFile != nil {
		defer dirFile.Close()
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	runCtx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	res, err := s.run(runCtx, path, append([]string{a.Command}, a.Args...), dir, a.Stdin)
	if err != nil {
		return "", err
	}
	out := res.output.text()
	state := res.state
	switch {
	case res.cleanup != nil:
		return "", fmt.Errorf("command %q: %v\n%s", a.Command, res.cleanup, out)
	case res.killed && ctx.Err() != nil:
		return "", fmt.Errorf("command %q was cancelled (%v); it and every process it started were killed\n%s", a.Command, context.Cause(ctx), out)
	case res.killed:
		return "", fmt.Errorf("command %q timed out after %s; it and every process it started were killed\n%s", a.Command, s.timeout, out)
	case res.limitHit == "memory":
		return "", fmt.Errorf("command %q hit its memory limit (%s); it and every process it started were killed\n%s", a.Command, mib(s.limits.Memory), out)
	case res.limitHit == "processes" && state.ExitCode() != 0:
		return "", fmt.Errorf("command %q hit its process limit (%d at once) and exited with status %d\n%s", a.Command, s.limits.Processes, state.ExitCode(), out)
	case state.ExitCode() == 0:
		if out == "" {
			return "(no output)", nil
		}
		return out, nil
	case res.limitHit == "" && peakMemory(state) >= s.limits.Memory/4*3:
		// per-process rlimit: an allocation failed; the peak shows the command was at the limit
		return "", fmt.Errorf("command %q hit its memory limit (%s per process; it used %s) and failed (%s)\n%s", a.Command, mib(s.limits.Memory), mib(peakMemory(state)), state, out)
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() && (ws.Signal() == syscall.SIGXCPU || ws.Signal() == syscall.SIGKILL && state.SystemTime()+state.UserTime() >= s.limits.CPUTime) {
		return "", fmt.Errorf("command %q hit its CPU time limit (%s) and was killed by signal %s\n%s", a.Command, s.limits.CPUTime, ws.Signal(), out)
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "", fmt.Errorf("command %q was killed by signal %s\n%s", a.Command, ws.Signal(), out)
	}
	return "", fmt.Errorf("command %q exited with status %d\n%s", a.Command, state.ExitCode(), out)
}

// lookup checks the name against the allow list before anything touches the file system, then
// finds the program.
func (s *Shell) lookup(name string) (string, error) {
	switch {
	case name == "":
		return "", fmt.Errorf(`"command" is required; allowed commands: %s`, strings.Join(s.allowed, ", "))
	case strings.ContainsRune(name, 0):
		return "", errors.New("command contains a NUL byte")
	case !slices.Contains(s.allowed, name):
		if strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) {
			return "", fmt.Errorf("command %q is a path, and only the allowed commands may run: %s", name, strings.Join(s.allowed, ", "))
		}
		return "", fmt.Errorf("command %q is not allowed; allowed commands: %s", name, strings.Join(s.allowed, ", "))
	}
	target := name
	if strings.ContainsRune(name, '/') && !filepath.IsAbs(name) {
		// A listed relative path is relative to the working directory. The result must keep a
		// slash: filepath.Join(".", "./git") is "git", which LookPath would search in PATH.
		target = filepath.Join(s.dir, name)
		if !filepath.IsAbs(target) {
			return "", fmt.Errorf("command %q is relative, and the working directory %q cannot be made absolute", name, s.dir)
		}
	}
	path, err := exec.LookPath(target)
	if err != nil {
		if errors.Is(err, exec.ErrDot) {
			return "", fmt.Errorf("command %q resolves to %q in the current directory through PATH, which is refused", name, path)
		}
		return "", fmt.Errorf("command %q is allowed but cannot be run: %w", name, describeOSError(errors.Unwrap(err)))
	}
	return path, nil
}

// workDir opens the cwd argument inside the tool's directory; the os.Root check refuses "..",
// absolute paths and symlinks that lead out. The command starts in the directory opened here
// (see startDir), which the caller closes once it started.
func (s *Shell) workDir(cwd string) (string, *os.File, error) {
	if cwd == "" || cwd == "." {
		return s.dir, nil, nil
	}
	if strings.ContainsRune(cwd, 0) || !filepath.IsLocal(cwd) {
		return "", nil, fmt.Errorf("cwd %q must be a relative directory inside the working directory", cwd)
	}
	base, err := os.OpenRoot(s.dir)
	if err != nil {
		return "", nil, fmt.Errorf("working directory: %w", describeOSError(err))
	}
	defer base.Close()
	// O_DIRECTORY: anything else fails at once (a FIFO would block a plain open).
	d, err := base.OpenFile(cwd, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		if isEscape(err) {
			return "", nil, fmt.Errorf("cwd %q leads outside the working directory through a symbolic link", cwd)
		}
		return "", nil, fmt.Errorf("cwd %q: %w", cwd, describeOSError(err))
	}
	dir, err := startDir(d, filepath.Join(s.dir, cwd))
	if err != nil {
		d.Close()
		return "", nil, err
	}
	return dir, d, nil
}

type runResult struct {
	state    *os.ProcessState
	output   *cappedBuffer
	killed   bool   // by the timeout or the caller's cancellation
	limitHit string // "memory" or "processes" when the cgroup counted it
	cleanup  error  // some process of the call could not be killed
}

// containment is the tool's, or the process's default.
func (s *Shell) containment() containment {
	if s.contain != nil {
		return s.contain
	}
	return defaultContainment()
}

// run starts argv in a containment of its own and waits for it. Whatever happens, the command
// and every process it started are killed before run returns, the command is reaped, and the
// output pipe is drained.
func (s *Shell) run(ctx context.Context, path string, argv []string, dir string, stdin *string) (*runResult, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer outR.Close()
	cmd := &exec.Cmd{
		Path:        path,
		Args:        argv,
		Dir:         dir,
		Env:         childenv.For(nil),
		Stdout:      outW, // one pipe for both: the model sees them interleaved as a terminal would
		Stderr:      outW,
		SysProcAttr: procAttr(),
	}
	var inR, inW *os.File
	if stdin != nil {
		if inR, inW, err = os.Pipe(); err != nil {
			outW.Close()
			return nil, err
		}
		cmd.Stdin = inR
		defer inW.Close()
	}
	procs, err := s.containment().start(cmd, s.limits)
	// The child has its copies now. Closing ours makes EOF arrive when every process holding the
	// output pipe exits, and a write to stdin fail when nobody can read it any more.
	outW.Close()
	if inR != nil {
		inR.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("starting %q: %w", argv[0], describeOSError(err))
	}

	res := &runResult{output: &cappedBuffer{max: s.maxOutput}}
	var wg sync.WaitGroup
	wg.Go(func() { io.Copy(res.output, outR) })
	if inW != nil {
		wg.Go(func() {
			io.WriteString(inW, *stdin) // EPIPE when the program exits without reading it all
			inW.Close()
		})
	}

	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	select {
	case <-waitErr:
	case <-ctx.Done():
		res.killed = true
		procs.kill()
		<-waitErr
	}
	// Processes the command left behind (in the background, in sessions of their own) die
	// with it: no child outlives its call.
	res.cleanup = procs.finish()
	if h, ok := procs.(interface{ limitHit() string }); ok {
		res.limitHit = h.limitHit()
	}
	outR.SetReadDeadline(time.Now().Add(drainGrace))
	if inW != nil {
		inW.SetWriteDeadline(time.Now().Add(drainGrace))
	}
	wg.Wait()
	res.state = cmd.ProcessState
	return res, nil
}

// cappedBuffer keeps the first max bytes written to it and counts the rest.
type cappedBuffer struct {
	buf   []byte
	max   int
	total int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.total += int64(len(p))
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// text returns the kept output as valid UTF-8, with a note when some was dropped.
func (b *cappedBuffer) text() string {
	kept := b.buf
	if b.total > int64(len(kept)) {
		kept = trimPartialRune(kept)
	}
	out := strings.ToValidUTF8(string(kept), string(utf8.RuneError))
	if b.total > int64(len(b.buf)) {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += fmt.Sprintf("[shell_exec: output truncated: showing the first %d of %d bytes]", len(kept), b.total)
	}
	return out
}
