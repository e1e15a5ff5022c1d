package mcpconn

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// agentHelperEnv turns the test binary into an agent-like process (see
// runAgentHelper) when it names a stdio server to start.
const agentHelperEnv = "MCPCONN_TEST_AGENT_SERVER"

// runAgentHelper starts the server with -trap-term (it ignores stdin EOF
// and SIGTERM), prints "pid N" and waits to be killed.
func runAgentHelper(server string) int {
	m := NewManager(slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := m.Acquire(ctx, Config{Name: "orphan", Command: server, Args: []string{"-trap-term"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	r, err := c.Call(ctx, "pid", []byte(`{}`))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("pid %s\n", r.Text())
	select {}
}

// alive reports whether pid runs (a zombie is dead: only its reaping is
// left, to whichever process adopted it).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// An agent killed by SIGKILL runs no teardown; its stdio server, which
// ignores stdin EOF, must not live on under init.
func TestServerDiesWithKilledAgent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux only")
	}
	agent := exec.Command(os.Args[0], "-test.run=^$")
	agent.Env = append(os.Environ(), agentHelperEnv+"="+filepath.Join(fixtureDir, "echo"))
	agent.Stderr = os.Stderr
	out, err := agent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		agent.Process.Kill()
		agent.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("agent helper: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "pid "))
	if err != nil {
		t.Fatalf("agent helper printed %q", line)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) // should it survive
	if !alive(pid) {
		t.Fatalf("server %d is not running", pid)
	}

	if err := agent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	agent.Wait()
	eventually(t, fmt.Sprintf("server %d to die with its agent", pid), func() bool { return !alive(pid) })
}

// The parent-death signal follows the thread that forked, and Go ends a
// thread when a goroutine exits while locked to it. A child started from
// such a goroutine must outlive the goroutine's thread.
func TestChildOutlivesStartingThread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux only")
	}
	cmd := exec.Command("sleep", "60")
	type started struct {
		reaped func()
		err    error
		tid    int
	}
	ch := make(chan started, 1)
	var starter func()
	starter = func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if syscall.Gettid() == os.Getpid() {
			// Go never ends the main thread; try from another one.
			runtime.UnlockOSThread()
			go starter()
			return
		}
		reaped, err := startChild(cmd)
		ch <- started{reaped, err, syscall.Gettid()}
	}
	go starter()
	s := <-ch
	if s.err != nil {
		t.Fatal(s.err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		s.reaped()
	}()
	eventually(t, fmt.Sprintf("thread %d to end", s.tid), func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", s.tid))
		return err != nil
	})
	// A parent-death signal is delivered at once; give it a moment anyway.
	time.Sleep(100 * time.Millisecond)
	if !alive(cmd.Process.Pid) {
		t.Fatalf("child %d died with the thread that started it: %v", cmd.Process.Pid, cmd.Wait())
	}
}
