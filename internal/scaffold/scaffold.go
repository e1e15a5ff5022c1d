// Package scaffold writes a new agent project into a Go module: what
// `toolgen init [DIR]` does.
//
//	DIR/spec/toolgen.hcl       the spec: an fs_read tool over ./workspace, a Go tool, one agent
//	DIR/workspace/notes.md     a file for the agent to read
//	DIR/tools/tools.go         the Go tool (package tools)
//	DIR/gen.go                 package NAME; //go:generate … generate -o . ./spec
//	DIR/cmd/NAME/main.go       the agent binary: os.Exit(agentcli.Main(NAME.Registry, os.Args[1:]))
//
// NAME is DIR's base name made a Go package name, so the generated code
// and gen.go are one package; the binary is built from cmd/NAME into DIR
// as NAME, a name no directory of the project has. go:generate runs
// `go tool toolgen` when the module's go.mod has the toolgen tool
// directive, and `toolgen` from PATH otherwise.
package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

// ToolPackage is toolgen's command, as go.mod's tool directive names it.
const ToolPackage = "github.com/toolgen-dev/toolgen/cmd/toolgen"

// Project is what Init wrote.
type Project struct {
	Dir     string // absolute
	Package string // Go package of gen.go and the generated code
	Command string // the binary's name: cmd/Command, built as DIR/Command
	Module  string // the module path
	Import  string // the import path of Dir
	// Generate is the command go:generate runs: "go tool toolgen" with
	// the module's tool directive, "toolgen" (from PATH) without.
	Generate string
	Files    []string // written, relative to Dir, sorted
	// Setup is what the module needs before go mod tidy finds toolgen's
	// runtime (ToolgenSetup): a replace to a clone, or nothing.
	Setup []string
}

// ExistsError lists the files Init would have overwritten.
type ExistsError struct {
	Dir   string
	Files []string // relative to Dir
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already has %s; toolgen init writes only new files, so nothing was written", e.Dir, strings.Join(e.Files, ", "))
}

// Init writes a new project into dir (created if missing), which must be
// inside a Go module. It writes nothing when any file it would write
// exists, when dir/spec already holds a spec, or when dir holds Go files
// of another package.
func Init(dir string) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	modDir, gomod, err := findModule(abs)
	if err != nil {
		return nil, err
	}
	mf, err := modfile.Parse(filepath.Join(modDir, "go.mod"), gomod, nil)
	if err != nil {
		return nil, err
	}
	if mf.Module == nil {
		return nil, fmt.Errorf("%s has no module line", filepath.Join(modDir, "go.mod"))
	}
	rel, err := filepath.Rel(modDir, abs)
	if err != nil {
		return nil, err
	}
	p := &Project{Dir: abs, Module: mf.Module.Mod.Path, Import: path.Join(mf.Module.Mod.Path, filepath.ToSlash(rel))}
	p.Package = packageName(filepath.Base(abs))
	p.Command = p.Package
	if slices.Contains([]string{"spec", "workspace", "tools", "cmd"}, p.Command) {
		p.Command += "-agent" // the binary goes next to those directories
	}
	p.Generate = "toolgen"
	if usesTool(mf) {
		p.Generate = "go tool toolgen"
	}
	p.Setup = ToolgenSetup(mf)

	files, err := p.files()
	if err != nil {
		return nil, err
	}
	if err := p.checkFree(files); err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		full := filepath.Join(abs, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		// O_EXCL: a file that appeared since the check is not overwritten.
		f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return nil, err
		}
		_, err = f.Write(files[name])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, name)
	}
	return p, nil
}

// findModule finds the go.mod of dir, which may not exist yet.
func findModule(dir string) (string, []byte, error) {
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			return d, b, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", nil, err
		}
		if filepath.Dir(d) == d {
			return "", nil, fmt.Errorf("%s is not inside a Go module: toolgen init writes a package of one; run `go mod init example.com/%s` there first", dir, filepath.Base(dir))
		}
	}
}

// checkFree refuses to overwrite a file, to add a second spec to a spec
// directory, or to add gen.go to a directory of another package.
func (p *Project) checkFree(files map[string][]byte) error {
	var taken []string
	for name := range files {
		if _, err := os.Lstat(filepath.Join(p.Dir, filepath.FromSlash(name))); err == nil {
			taken = append(taken, name)
		}
	}
	specs, _ := filepath.Glob(filepath.Join(p.Dir, "spec", "*.hcl*"))
	for _, s := range specs {
		if name := "spec/" + filepath.Base(s); !slices.Contains(taken, name) {
			taken = append(taken, name)
		}
	}
	if len(taken) > 0 {
		slices.Sort(taken)
		return &ExistsError{Dir: p.Dir, Files: taken}
	}
	gofiles, _ := filepath.Glob(filepath.Join(p.Dir, "*.go"))
	for _, g := range gofiles {
		f, err := parser.ParseFile(token.NewFileSet(), g, nil, parser.PackageClauseOnly)
		if err != nil || strings.HasSuffix(g, "_test.go") {
			continue
		}
		if f.Name.Name != p.Package {
			return fmt.Errorf("%s is package %s, but the generated code there would be package %s (the directory's name); run toolgen init in a new directory", g, f.Name.Name, p.Package)
		}
	}
	return nil
}

// packageName makes a directory's base name the project's Go package
// name; not main, which is the agent binary's.
func packageName(base string) string { return spechcl.PackageName(base, "agent", "main") }

// files are the project's files by slash path relative to Dir.
func (p *Project) files() (map[string][]byte, error) {
	files := map[string][]byte{
		"spec/toolgen.hcl":   []byte(fmt.Sprintf(specTemplate, p.Package, p.Import+"/tools")),
		"workspace/notes.md": []byte(notesTemplate),
	}
	for name, src := range map[string]string{
		"gen.go":                        fmt.Sprintf(genTemplate, p.Package, p.Generate),
		"tools/tools.go":                toolsTemplate,
		"cmd/" + p.Command + "/main.go": fmt.Sprintf(mainTemplate, p.Command, p.importLine(), p.Package),
	} {
		b, err := format.Source([]byte(src))
		if err != nil {
			return nil, fmt.Errorf("scaffold: %s: %v", name, err) // a template bug
		}
		files[name] = b
	}
	return files, nil
}

// importLine imports Dir, named when its last element is not the package
// name.
func (p *Project) importLine() string {
	if path.Base(p.Import) == p.Package {
		return fmt.Sprintf("%q", p.Import)
	}
	return fmt.Sprintf("%s %q", p.Package, p.Import)
}

// WriteNextSteps prints the commands that generate, build and try the
// project, from Dir (rel is how the user named it).
func (p *Project) WriteNextSteps(w io.Writer, rel string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Wrote %s in %s.\n\nNext:\n", strings.Join(p.Files, ", "), rel)
	if rel != "." && rel != "" {
		fmt.Fprintf(&b, "  cd %s\n", rel)
	}
	if p.Generate == "toolgen" {
		fmt.Fprintf(&b, "  # go:generate runs toolgen from PATH; to pin it in go.mod instead, run\n  # go mod edit -tool %s, and write `go tool toolgen` in gen.go\n", ToolPackage)
	}
	for _, s := range p.Setup {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	fmt.Fprintf(&b, "  go mod tidy\n  go generate ./...\n  go build ./cmd/%s\n", p.Command)
	fmt.Fprintf(&b, "  ./%s tools\n", p.Command)
	fmt.Fprintf(&b, "  ./%s call read_file '{\"path\": \"workspace/notes.md\"}'\n", p.Command)
	_, err := w.Write(b.Bytes())
	return err
}

const specTemplate = `# The agent's spec: ` + "`go generate ./...`" + ` turns it into Go (toolgen generate).
toolgen {
  package = %[1]q
}

# Relative paths resolve against the agent's --workdir (or TOOLGEN_WORKDIR),
# else its working directory; mcp-config writes --workdir into host configs.
policy "workspace_read" {
  builtin       = "fs_read"
  allowed_paths = ["./workspace"]
}

tool "read_file" {
  description = "Read a UTF-8 text file inside the workspace."
  policy      = policy.workspace_read
  keywords    = ["open", "cat", "contents"]
}

tool "word_count" {
  description = "Count the words of a text."
  go          = "%[2]s.WordCount"
}

agent "assistant" {
  description = "Reads the files of its workspace and counts words."
  tools {
    use = [tool.read_file, tool.word_count]
  }
}
`

const notesTemplate = `# Notes

The assistant agent can read this file with its read_file tool.
`

const genTemplate = `// Package %[1]s is the agent's generated registry: spec/ holds its spec,
// and go generate writes the *_gen.go files of this package.
package %[1]s

//go:generate %[2]s generate -o . ./spec
`

const toolsTemplate = `// Package tools holds the agent's Go function tools.
package tools

import (
	"context"
	"strings"
)

// CountArgs are the arguments of the word_count tool.
type CountArgs struct {
	// Text is the text to count the words of.
	Text string ` + "`json:\"text\"`" + `
}

// CountResult is the word count.
type CountResult struct {
	Words int ` + "`json:\"words\"`" + `
}

// WordCount counts the words of a text, separated by white space.
func WordCount(ctx context.Context, args CountArgs) (CountResult, error) {
	return CountResult{Words: len(strings.Fields(args.Text))}, nil
}
`

const mainTemplate = `// Command %[1]s is the agent binary: serve it to an MCP host
// (%[1]s serve), or list and call its tools (%[1]s tools, %[1]s call).
package main

import (
	"os"

	%[2]s
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
)

func main() { os.Exit(agentcli.Main(%[3]s.Registry, os.Args[1:])) }
`
