package childenv

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestForKeepsOnlyTheListAndDeclared(t *testing.T) {
	t.Setenv("SOME_SERVER_TOKEN", "secret")
	t.Setenv("PATH", "/usr/bin:/bin")
	cmd := exec.Command("env")
	cmd.Env = For([]string{"DECLARED=yes", "PATH=/opt/bin"})
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "SOME_SERVER_TOKEN=") }) {
		t.Errorf("a token of the agent's environment reached the child: %v", lines)
	}
	if !slices.Contains(lines, "DECLARED=yes") {
		t.Errorf("declared variable missing: %v", lines)
	}
	if !slices.Contains(lines, "PATH=/opt/bin") { // the later entry wins in exec
		t.Errorf("declared PATH does not win: %v", lines)
	}
}

// After Protect the agent still reads its own environment, and a child
// (root here, when the tests run as root) reads none of it from /proc.
func TestProtectHidesEnvironFromChildren(t *testing.T) {
	t.Setenv("PROTECT_TEST_TOKEN", "tok-9d8c7b6a5f4e")
	if err := Protect(); err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv("PROTECT_TEST_TOKEN"); got != "tok-9d8c7b6a5f4e" {
		t.Fatalf("os.Getenv after Protect = %q", got)
	}
	out, _ := exec.Command("cat", fmt.Sprintf("/proc/%d/environ", os.Getpid())).CombinedOutput()
	if strings.Contains(string(out), "tok-9d8c7b6a5f4e") || strings.Contains(string(out), "PATH=") {
		t.Errorf("a child read the agent's environment: %q", out)
	}
}
