package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitThenBuild is the first hour from the command line: a new module
// with toolgen as its tool (the README's way), `toolgen init`, then `go
// generate ./... && go build ./...`; the binary built from cmd/NAME lists
// the project's tools and calls one.
func TestInitThenBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds toolgen and an agent binary")
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(t.TempDir(), "notes")
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	sh := func(dir, name string, args ...string) string {
		t.Helper()
		c := exec.Command(name, args...)
		c.Dir, c.Env = dir, env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	writeTestFile(t, filepath.Join(mod, "go.mod"), "module example.com/notes\n\ngo 1.26\n")
	sh(mod, "go", "mod", "edit", "-replace", "github.com/toolgen-dev/toolgen="+root, "-tool", "github.com/toolgen-dev/toolgen/cmd/toolgen")
	sh(mod, "go", "mod", "tidy")
	out := sh(mod, "go", "tool", "toolgen", "init")
	if !strings.Contains(out, "go build ./cmd/notes") {
		t.Errorf("init printed:\n%s", out)
	}
	sh(mod, "go", "mod", "tidy")
	sh(mod, "go", "generate", "./...")
	sh(mod, "go", "build", "./...")
	sh(mod, "go", "build", "./cmd/notes")
	tools := sh(mod, "./notes", "tools")
	for _, tool := range []string{"read_file", "word_count"} {
		if !strings.Contains(tools, tool) {
			t.Errorf("notes tools lists no %s:\n%s", tool, tools)
		}
	}
	if got := sh(mod, "./notes", "call", "word_count", `{"text": "a b c d"}`); !strings.Contains(got, `\"words\":4`) {
		t.Errorf("word_count: %s", got)
	}
	if v := sh(mod, "go", "tool", "toolgen", "version"); !strings.Contains(v, "=> "+root) {
		t.Errorf("version does not name the local checkout it was built from:\n%s", v)
	}
}
