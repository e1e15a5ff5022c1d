package scaffold

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInitFiles(t *testing.T) {
	mod := t.TempDir()
	writeFile(t, filepath.Join(mod, "go.mod"), "module example.com/m\n\ngo 1.26\n\ntool "+ToolPackage+"\n")
	p, err := Init(filepath.Join(mod, "agents", "My-Agent"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cmd/myagent/main.go", "gen.go", "spec/toolgen.hcl", "tools/tools.go", "workspace/notes.md"}
	if diff := cmp.Diff(want, p.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if p.Package != "myagent" || p.Import != "example.com/m/agents/My-Agent" || p.Generate != "go tool toolgen" {
		t.Errorf("project %+v", p)
	}
	gen, _ := os.ReadFile(filepath.Join(p.Dir, "gen.go"))
	if !strings.Contains(string(gen), "package myagent\n\n//go:generate go tool toolgen generate -o . ./spec\n") {
		t.Errorf("gen.go:\n%s", gen)
	}
	main, _ := os.ReadFile(filepath.Join(p.Dir, "cmd", "myagent", "main.go"))
	for _, s := range []string{`myagent "example.com/m/agents/My-Agent"`, "os.Exit(agentcli.Main(myagent.Registry, os.Args[1:]))"} {
		if !strings.Contains(string(main), s) {
			t.Errorf("main.go lacks %s:\n%s", s, main)
		}
	}
	spec, _ := os.ReadFile(filepath.Join(p.Dir, "spec", "toolgen.hcl"))
	if !strings.Contains(string(spec), `go          = "example.com/m/agents/My-Agent/tools.WordCount"`) || !strings.Contains(string(spec), `package = "myagent"`) {
		t.Errorf("spec:\n%s", spec)
	}
}

func TestInitRefusesToOverwrite(t *testing.T) {
	mod := t.TempDir()
	writeFile(t, filepath.Join(mod, "go.mod"), "module example.com/hello\n")
	writeFile(t, filepath.Join(mod, "gen.go"), "package hello\n")
	writeFile(t, filepath.Join(mod, "spec", "other.hcl"), "")
	_, err := Init(mod)
	var ex *ExistsError
	if !errors.As(err, &ex) || !slices.Equal(ex.Files, []string{"gen.go", "spec/other.hcl"}) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "already has gen.go, spec/other.hcl; toolgen init writes only new files, so nothing was written") {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(mod, "workspace")); !errors.Is(err, os.ErrNotExist) {
		t.Error("Init wrote files although it refused")
	}
}

func TestInitRefusesOtherPackage(t *testing.T) {
	mod := t.TempDir()
	writeFile(t, filepath.Join(mod, "go.mod"), "module example.com/hello\n")
	dir := filepath.Join(mod, "svc")
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n")
	if _, err := Init(dir); err == nil || !strings.Contains(err.Error(), "is package main, but the generated code there would be package svc") {
		t.Fatalf("err = %v", err)
	}
}

func TestInitNeedsModule(t *testing.T) {
	dir := t.TempDir()
	if _, err := Init(filepath.Join(dir, "x")); err == nil || !strings.Contains(err.Error(), "is not inside a Go module") || !strings.Contains(err.Error(), "go mod init example.com/x") {
		t.Fatalf("err = %v", err)
	}
}

func TestPackageName(t *testing.T) {
	for in, want := range map[string]string{"hello": "hello", "My-Agent": "myagent", "2fa": "agent2fa", "go": "agentgo", "main": "agentmain", "ünï": "n", "...": "agent"} {
		if got := packageName(in); got != want {
			t.Errorf("packageName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestInitBuildsAnAgent runs what a user runs after toolgen init, in two
// fresh modules outside the repository that use this checkout through a
// replace directive: one with the toolgen tool directive (go:generate runs
// `go tool toolgen`, the README's way) and one with toolgen on PATH, built
// from this checkout, and the project in a subdirectory. Each must
// generate, build, list its tools and call them.
func TestInitBuildsAnAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds toolgen and two agent binaries")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := func(dir string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
		}
		return string(out)
	}
	run(root, "go", "build", "-o", filepath.Join(bin, "toolgen"), "./cmd/toolgen")

	for _, c := range []struct {
		name, sub, cmd string
		tool, replace  bool
	}{
		{"go tool", ".", "hello", true, true},
		{"PATH", "agents/notes-agent", "notesagent", false, true},
		// toolgen is not a published module: the printed steps add the replace
		{"no replace", ".", "bare", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			mod := filepath.Join(tmp, c.cmd)
			writeFile(t, filepath.Join(mod, "go.mod"), "module example.com/"+c.cmd+"\n\ngo 1.26\n")
			if c.replace {
				run(mod, "go", "mod", "edit", "-replace", "github.com/toolgen-dev/toolgen="+root)
			}
			if c.tool {
				run(mod, "go", "mod", "edit", "-tool", ToolPackage)
				run(mod, "go", "mod", "tidy")
			}
			p, err := Init(filepath.Join(mod, c.sub))
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]string{true: "go tool toolgen", false: "toolgen"}[c.tool]; p.Generate != want || p.Command != c.cmd {
				t.Fatalf("generate %q, command %q", p.Generate, p.Command)
			}
			var next strings.Builder
			p.WriteNextSteps(&next, c.sub)
			// Run the printed steps, as printed, from the project.
			dir := p.Dir
			ran := 0
			for _, line := range strings.Split(next.String(), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "cd ") || !strings.Contains(line, " ") || strings.HasPrefix(line, "Wrote") {
					continue
				}
				out := run(dir, "sh", "-c", line)
				ran++
				switch {
				case strings.HasSuffix(line, " tools"):
					for _, tool := range []string{"read_file", "word_count"} {
						if !strings.Contains(out, tool) {
							t.Errorf("%s lists no %s:\n%s", line, tool, out)
						}
					}
				case strings.Contains(line, " call read_file "):
					if !strings.Contains(out, "The assistant agent can read this file") {
						t.Errorf("%s:\n%s", line, out)
					}
				}
			}
			if want := 5 + map[bool]int{true: 0, false: 1}[c.replace]; ran != want || !c.replace && !strings.Contains(next.String(), "go mod edit -replace github.com/toolgen-dev/toolgen="+root) {
				t.Errorf("ran %d steps of:\n%s", ran, next.String())
			}
			out := run(dir, "./"+c.cmd, "call", "word_count", `{"text": "one two three"}`)
			if !strings.Contains(out, `\"words\":3`) {
				t.Errorf("word_count: %s", out)
			}
			if _, err := Init(p.Dir); err == nil {
				t.Error("a second init in the same directory did not refuse")
			}
		})
	}
}
