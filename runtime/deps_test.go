package runtime

import (
	"os/exec"
	"strings"
	"testing"
)

// The runtime is what every agent binary links: it never pulls in the
// generator (the spec language, jennifer, x/tools).
func TestRuntimeDoesNotImportTheGenerator(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/toolgen-dev/toolgen/runtime/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	forbidden := []string{
		"github.com/toolgen-dev/toolgen/hcl",
		"github.com/toolgen-dev/toolgen/templates",
		"github.com/toolgen-dev/toolgen/cmd/",
		"github.com/toolgen-dev/toolgen/internal/cmd",
		"github.com/hashicorp/hcl",
		"github.com/dave/jennifer",
		"golang.org/x/tools",
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(pkg, f) {
				t.Errorf("the runtime depends on %s", pkg)
			}
		}
	}
}
