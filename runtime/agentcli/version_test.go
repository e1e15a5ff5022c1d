package agentcli_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// TestVersion runs the built test agent's version command: its own
// module and build, and the toolgen runtime and generated code it holds.
func TestVersion(t *testing.T) {
	out, err := exec.Command(agentBin, "version").Output()
	if err != nil {
		t.Fatalf("agent version: %v\n%s", err, out)
	}
	for _, want := range []string{
		"github.com/toolgen-dev/toolgen devel",
		"toolgen runtime devel",
		fmt.Sprintf("generated code version %d", decl.GenVersion),
		"built with go",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("agent version lacks %q:\n%s", want, out)
		}
	}
	if _, err := exec.Command(agentBin, "version", "extra").Output(); err == nil {
		t.Error("version with an argument succeeded")
	}
}
