package mcpconn

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/internal/childenv"
	"github.com/toolgen-dev/toolgen/internal/rawpipe"
)

// Grace periods of a stdio teardown: after stdin closes the server may exit
// on its own; after SIGTERM its process group gets one more chance.
var (
	stdinGrace   = 1 * time.Second
	sigtermGrace = 2 * time.Second
)

// process is a stdio server: the command runs in its own process group so
// that teardown reaches every child it spawned (npx → node, sh → server),
// a reaper goroutine always Waits so no zombie is left behind, and on Linux
// the kernel kills it if the agent dies without a teardown (startChild).
type process struct {
	cmd     *exec.Cmd
	stdin   *os.File // our end of the child's stdin
	stdout  *os.File // our end of the child's stdout
	stderr  *os.File // our end of the child's stderr, owned by readStderr
	exited  chan struct{}
	waitErr error // set before exited closes

	stderrDone chan struct{}
	stderrMu   sync.Mutex
	stderrTail []string // last lines, for failure reasons

	stopOnce sync.Once
}

const stderrTailLines = 5

// startProcess starts cfg.Command. Each stderr line goes to onStderr.
func startProcess(cfg *Config, onStderr func(line string)) (*process, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Dir
	cmd.Env = childenv.For(cfg.Env) // not the agent's whole environment: other servers' tokens live there
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	// os.Pipe rather than cmd.StdoutPipe: the go-sdk reads stdout from its own
	// goroutine, and StdoutPipe's reader must not outlive Wait.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	reaped, err := startChild(cmd)
	if err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, err
	}
	// The child holds its ends now; keeping ours would hide its exit (EOF).
	closeAll(inR, outW, errW)

	p := &process{
		cmd:        cmd,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	go func() {
		p.waitErr = cmd.Wait()
		reaped()
		close(p.exited)
	}()
	go p.readStderr(errR, onStderr)
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

func (p *process) readStderr(r *os.File, onStderr func(string)) {
	defer close(p.stderrDone)
	defer r.Close()
	br := bufio.NewReaderSize(r, 16<<10)
	for {
		line, err := br.ReadString('\n')
		if line = strings.TrimRight(line, "\r\n"); line != "" {
			if len(line) > 4096 {
				line = line[:4096] + "…"
			}
			p.stderrMu.Lock()
			p.stderrTail = append(p.stderrTail, line)
			if len(p.stderrTail) > stderrTailLines {
				p.stderrTail = p.stderrTail[1:]
			}
			p.stderrMu.Unlock()
			onStderr(line)
		}
		if err != nil {
			return
		}
	}
}

// settleMax bounds how long a failed start waits for its process to exit
// and its stderr to drain, for the reason.
const settleMax = 500 * time.Millisecond

// settle waits up to d for the process to exit and its stderr to end.
func (p *process) settle(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for _, ch := range []chan struct{}{p.exited, p.stderrDone} {
		select {
		case <-ch:
		case <-t.C:
			return
		}
	}
}

// tail is the last stderr lines, joined, for a failure reason.
func (p *process) tail() string {
	p.stderrMu.Lock()
	defer p.stderrMu.Unlock()
	return strings.Join(p.stderrTail, " | ")
}

// transport speaks newline-delimited JSON-RPC over the child's stdio;
// non-JSON stdout lines go to onGarbage instead of killing the session.
// Both pipes are read and written with raw system calls (rawpipe): a
// proxied call's two lines then leave the runtime's monitor thread asleep.
func (p *process) transport(maxMessage int, onGarbage func(string)) mcp.Transport {
	return &lineTransport{lines: newJSONLines(rawpipe.Wrap(p.stdout), maxMessage, onGarbage), w: rawpipe.Wrap(p.stdin)}
}

// exitReason describes how the process ended, or "" while it runs.
func (p *process) exitReason() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return "process exited: " + ee.ProcessState.String()
	}
	if p.waitErr != nil {
		return "process: " + p.waitErr.Error()
	}
	return "process exited: exit status 0"
}

// stop ends the server the way the MCP spec asks (close stdin, then
// SIGTERM, then SIGKILL) but for the whole process group, and returns only
// once the leader has been reaped and stderr drained.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		p.stdin.Close()
		pgid := p.cmd.Process.Pid
		if !waitFor(p.exited, stdinGrace) {
			syscall.Kill(-pgid, syscall.SIGTERM)
			if !waitFor(p.exited, sigtermGrace) {
				syscall.Kill(-pgid, syscall.SIGKILL)
				<-p.exited
			}
		}
		// The leader is gone; children it left in the group are not ours to
		// keep either.
		if syscall.Kill(-pgid, syscall.SIGTERM) == nil {
			time.Sleep(50 * time.Millisecond)
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
		// stderr ends when the last writer in the group is gone; a grandchild
		// that left the group could hold it open, so do not wait forever.
		if !waitFor(p.stderrDone, time.Second) {
			p.stderr.SetReadDeadline(time.Now()) // the reader fails and returns
			<-p.stderrDone
		}
		p.stdout.Close()
	})
}

func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// String names the process for events.
func (p *process) String() string {
	return fmt.Sprintf("pid %d", p.cmd.Process.Pid)
}
