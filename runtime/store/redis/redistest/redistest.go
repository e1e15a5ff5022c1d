// Package redistest runs a real redis-server (Debian's package) on a free
// loopback port for tests, and stops it when the test ends.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// EnvRequire, when set to 1 (make test sets it), turns a missing
// redis-server or haproxy into a failure instead of a skip.
const EnvRequire = "TOOLGEN_REQUIRE_REPLICAS"

// Need skips the test, loudly, when a program is not installed, or fails
// it when EnvRequire is set.
func Need(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			msg := fmt.Sprintf("%s is not installed, so this test of several replicas CANNOT RUN: install it with `make replicas` (apt-get install redis-server haproxy)", p)
			if os.Getenv(EnvRequire) == "1" {
				t.Fatal(msg + " — " + EnvRequire + "=1 requires it")
			}
			t.Skip("SKIPPED: " + msg)
		}
	}
}

// Server is one redis-server process with append-only persistence, so
// that a restart keeps what was stored (as a production Redis should).
type Server struct {
	t    testing.TB
	Port int
	dir  string
	args []string
	cmd  *exec.Cmd
}

// Start runs a redis-server on a free loopback port; it is stopped when
// the test ends.
// args are more redis-server options ("--requirepass", "…").
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	Need(t, "redis-server")
	s := &Server{t: t, Port: FreePort(t), dir: t.TempDir(), args: args}
	s.start()
	t.Cleanup(s.Stop)
	return s
}

// URL is the store URL of the server's database 0.
func (s *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.Port) }

// Addr is host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port) }

func (s *Server) start() {
	s.t.Helper()
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1",
		"--dir", s.dir, "--save", "", "--appendonly", "yes", "--appendfsync", "always",
		"--daemonize", "no", "--protected-mode", "yes", "--logfile", filepath.Join(s.dir, "redis.log"))
	cmd.Args = append(cmd.Args, s.args...)
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	s.cmd = cmd
	if err := WaitPort(s.Addr(), 10*time.Second); err != nil {
		s.Stop()
		log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
		s.t.Fatalf("redis-server on %s: %v\n%s", s.Addr(), err, log)
	}
	// Wait until it answers PING: it listens before it has loaded the AOF.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ping(s.Addr()) {
			return
		}
	}
	s.t.Fatalf("redis-server on %s does not answer PING", s.Addr())
}

// Stop ends the server (SIGTERM, which flushes the append-only file).
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// Restart stops the server and starts it again on the same port and data.
func (s *Server) Restart() {
	s.Stop()
	s.start()
}

func ping(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	// NOAUTH: a server with a password is up too.
	return err == nil && (line == "+PONG\r\n" || strings.HasPrefix(line, "-NOAUTH"))
}

// FreePort is a loopback TCP port nothing listens on right now.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// WaitPort waits until addr accepts TCP connections.
func WaitPort(addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %s: %w", addr, within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
