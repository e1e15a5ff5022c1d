package toolgen_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

// README.md marks the shell blocks of its Install and Quick start sections
// with a word after the language:
//
//	```sh run:NAME    run as written: the blocks of one NAME, in README
//	                  order, are one bash script (set -euxo pipefail), run in
//	                  a new module (example.com/app) outside the repository
//	                  with TOOLGEN_SRC set to this checkout and GOBIN on PATH
//	```sh untested    shown only (a clone over the network, a release
//	                  not yet published)
//
// Every sh block of those sections must carry one, so none can rot
// unnoticed.

// readmeSections are the sections whose sh blocks must be marked.
var readmeSections = []string{"Install", "Quick start"}

// readmeScenarios must exist: each is one way the README installs or
// uses toolgen.
var readmeScenarios = []string{"install", "install-path", "quickstart", "init"}

type readmeBlock struct {
	line    int    // of the opening fence
	section string // the ## heading above it
	lang    string
	marks   []string // the info string's words after the language
	body    string
}

// readmeBlocks returns README's fenced code blocks.
func readmeBlocks(src []byte) ([]readmeBlock, error) {
	var blocks []readmeBlock
	var cur *readmeBlock
	fence := ""
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if cur != nil {
			if strings.TrimSpace(line) == fence {
				blocks = append(blocks, *cur)
				cur = nil
				continue
			}
			cur.body += line + "\n"
			continue
		}
		if h, ok := strings.CutPrefix(line, "## "); ok {
			section = strings.TrimSpace(h)
			continue
		}
		if !strings.HasPrefix(line, "```") {
			continue
		}
		ticks := len(line) - len(strings.TrimLeft(line, "`"))
		fence = strings.Repeat("`", ticks)
		words := strings.Fields(line[ticks:])
		cur = &readmeBlock{line: n, section: section}
		if len(words) > 0 {
			cur.lang, cur.marks = words[0], words[1:]
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("README.md:%d: the code block is not closed", cur.line)
	}
	return blocks, sc.Err()
}

// readmeScripts checks the marks and groups the run:NAME blocks.
func readmeScripts(t *testing.T) map[string][]readmeBlock {
	t.Helper()
	src, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := readmeBlocks(src)
	if err != nil {
		t.Fatal(err)
	}
	scripts := map[string][]readmeBlock{}
	for _, b := range blocks {
		if b.lang != "sh" {
			continue
		}
		var name string
		untested := false
		for _, m := range b.marks {
			if n, ok := strings.CutPrefix(m, "run:"); ok && n != "" {
				name = n
			}
			untested = untested || m == "untested"
		}
		switch {
		case name != "" && untested:
			t.Errorf("README.md:%d: a block is either run:NAME or untested, not both", b.line)
		case name != "":
			scripts[name] = append(scripts[name], b)
		case !untested && slices.Contains(readmeSections, b.section):
			t.Errorf("README.md:%d: the sh block in %q has no mark: write ```sh run:NAME to have the README test run it, or ```sh untested", b.line, b.section)
		}
	}
	for _, name := range readmeScenarios {
		if len(scripts[name]) == 0 {
			t.Errorf("README.md has no ```sh run:%s block", name)
		}
	}
	return scripts
}

// TestReadmeMarks checks the marks alone, quickly.
func TestReadmeMarks(t *testing.T) {
	readmeScripts(t)
}

// TestReadmeRuns runs each run:NAME script of README.md as written, in a
// new module outside the repository, against this checkout.
func TestReadmeRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs README's install and quick start: go mod tidy, builds")
	}
	checkout, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	scripts := readmeScripts(t)
	for _, name := range slices.Sorted(maps.Keys(scripts)) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "app")
			gobin := filepath.Join(t.TempDir(), "bin")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			env := append(os.Environ(),
				"TOOLGEN_SRC="+checkout,
				"GOBIN="+gobin,
				"PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"GOWORK=off",
			)
			setup := exec.Command("go", "mod", "init", "example.com/app")
			setup.Dir, setup.Env = dir, env
			if out, err := setup.CombinedOutput(); err != nil {
				t.Fatalf("go mod init: %v\n%s", err, out)
			}
			var script strings.Builder
			script.WriteString("set -euxo pipefail\n")
			for _, b := range scripts[name] {
				fmt.Fprintf(&script, "# README.md:%d\n%s", b.line, b.body)
			}
			cmd := exec.Command("bash", "-c", script.String())
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("README's run:%s failed: %v\n--- script\n%s--- output\n%s", name, err, script.String(), out)
			}
			wants := map[string][]string{
				// read from the module, then from / with --workdir; the
				// host entry runs the binary by its absolute path
				"quickstart": {"Hello from the workspace.", "refused, exit code 1", `"--workdir", "`, `"command": "/`},
				"init":       {"read_file", "word_count", `\"words\":3`},
			}
			for _, want := range wants[name] {
				if !strings.Contains(string(out), want) {
					t.Errorf("the %s output lacks %q:\n%s", name, want, out)
				}
			}
			if name == "quickstart" && strings.Count(string(out), "Hello from the workspace.") < 2 {
				t.Errorf("the quick start did not read the workspace from / with --workdir:\n%s", out)
			}
		})
	}
}

// TestReadmeSpecReference checks README's spec reference against the
// spec's JSON Schema (toolgen schema): each top-level block has a
// "### `NAME`" section, and every attribute and nested block the schema
// gives it (nested ones included) is written there, as `NAME =`, `NAME {`
// or `NAME "LABEL"` in its examples or as `NAME` in its text.
func TestReadmeSpecReference(t *testing.T) {
	src, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(src)
	b, err := spechcl.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	defs, _ := schema["$defs"].(map[string]any)
	var resolve func(node any) map[string]any
	resolve = func(node any) map[string]any {
		m, _ := node.(map[string]any)
		if ref, ok := m["$ref"].(string); ok {
			return resolve(defs[strings.TrimPrefix(ref, "#/$defs/")])
		}
		return m
	}
	// properties lists the attributes and nested blocks under node.
	var properties func(node any, seen map[string]bool) []string
	properties = func(node any, seen map[string]bool) []string {
		m := resolve(node)
		var out []string
		for _, key := range []string{"additionalProperties", "items"} {
			if sub, ok := m[key].(map[string]any); ok {
				out = append(out, properties(sub, seen)...)
			}
		}
		props, _ := m["properties"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, name)
			out = append(out, properties(props[name], seen)...)
		}
		return out
	}
	spec := resolve(schema)
	blocks, _ := spec["properties"].(map[string]any)
	if len(blocks) == 0 {
		t.Fatal("the schema has no blocks")
	}
	for _, block := range slices.Sorted(maps.Keys(blocks)) {
		if block == "//" {
			continue // JSON syntax's comment key
		}
		heading := "\n### `" + block + "`\n"
		i := strings.Index(readme, heading)
		if i < 0 {
			t.Errorf("README has no %q section for the %s block", strings.TrimSpace(heading), block)
			continue
		}
		section := readme[i+len(heading):]
		if j := strings.Index(section, "\n### "); j >= 0 {
			section = section[:j]
		}
		for _, attr := range properties(blocks[block], map[string]bool{}) {
			written := regexp.MustCompile(`(?m)(^|[\s{,])` + regexp.QuoteMeta(attr) + `\s*(=|\{|")|` + "`" + regexp.QuoteMeta(attr) + "`")
			if !written.MatchString(section) {
				t.Errorf("README's %s section does not show %q, which toolgen schema gives the block", block, attr)
			}
		}
	}
}
