package store_test

import (
	"os/exec"
	"strings"
	"testing"
)

// Pay for what you declare: the packages every agent links never pull in
// a Redis client; only a binary that imports runtime/store/redis does.
func TestRuntimeLinksNoRedis(t *testing.T) {
	pkgs := []string{"github.com/toolgen-dev/toolgen/runtime", "github.com/toolgen-dev/toolgen/runtime/agentcli",
		"github.com/toolgen-dev/toolgen/runtime/serve", "github.com/toolgen-dev/toolgen/runtime/store"}
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "go-redis") || strings.HasSuffix(p, "runtime/store/redis") {
			t.Errorf("the runtime depends on %s", p)
		}
	}
}
