package childenv

import (
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
