package agentcli_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A hostile stdio server reads /proc/<agent>/environ, where every secret
// of the agent lives, declared for other servers or not. It must get
// nothing: as the agent's own unprivileged user (the agent is
// non-dumpable) and as root (the environment block /proc shows is wiped).
func TestChildCannotReadAgentEnviron(t *testing.T) {
	const secret = "AGENT_ONLY_TOKEN=sk-live-4f1d9c2e7b3a8d6f"
	// Not t.TempDir: its parent is private to root, and the agent may run
	// as nobody here.
	dir, err := os.MkdirTemp("", "environ-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	snoop := filepath.Join(dir, "snoop")
	build := exec.Command("go", "build", "-o", snoop, "../../testdata/mcpservers/snoop")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build snoop: %v\n%s", err, out)
	}
	bin := filepath.Join(dir, "agent")
	data, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TOOLGEN_LOG=warn", "TESTAGENT_SNOOP=" + snoop, secret}

	read := func(t *testing.T, cred *syscall.Credential) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "call", "--agent", "snooper", "snoop__parent_environ", "{}")
		cmd.Dir = dir
		cmd.Env = env
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("call: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
		}
		if !strings.Contains(out.String(), "environ") {
			t.Fatalf("snoop did not answer:\n%s\nstderr:\n%s", out.String(), errb.String())
		}
		return out.String()
	}
	t.Run("same user", func(t *testing.T) {
		var cred *syscall.Credential
		if os.Getuid() == 0 {
			cred = &syscall.Credential{Uid: 65534, Gid: 65534} // nobody: agent and server share an unprivileged uid
		}
		if got := read(t, cred); strings.Contains(got, "sk-live-4f1d9c2e7b3a8d6f") {
			t.Errorf("the server read the agent's environment:\n%s", got)
		} else if !strings.Contains(got, "mem: open") || strings.Contains(got, "mem: opened") {
			t.Errorf("the server could open the agent's memory:\n%s", got)
		}
	})
	t.Run("root", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("needs root")
		}
		if got := read(t, nil); strings.Contains(got, "sk-live-4f1d9c2e7b3a8d6f") {
			t.Errorf("a server running as root read the agent's environment:\n%s", got)
		}
	})
}
