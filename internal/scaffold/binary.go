package scaffold

import (
	"fmt"
	"go/format"
	"io"
	"path"
	"path/filepath"

	"golang.org/x/mod/modfile"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

// BinaryPlan is what turns an existing spec directory into an agent
// binary: its files and the commands to run, from the directory above the
// spec's.
type BinaryPlan struct {
	Files   []BinaryFile
	Setup   []string // what the module needs first: go mod init, the toolgen replace
	Command string   // the binary: cmd/Command, built as ./Command
}

// BinaryFile is one file of a BinaryPlan.
type BinaryFile struct {
	Path string // slash path relative to the directory above the spec's
	Data []byte
}

// Binary plans the binary of agent for the spec in specDir (package pkg,
// as the loader named it): gen.go in the spec directory, whose go:generate
// writes the registry beside the spec, and cmd/NAME/main.go next to the
// spec directory.
func Binary(specDir, pkg, agent string) (*BinaryPlan, error) {
	abs, err := filepath.Abs(specDir)
	if err != nil {
		return nil, err
	}
	plan := &BinaryPlan{Command: spechcl.PackageName(agent, "agent", "spec", "cmd", filepath.Base(abs))}
	generate, importPath := "toolgen", ""
	if modDir, gomod, err := findModule(abs); err == nil {
		mf, err := modfile.Parse(filepath.Join(modDir, "go.mod"), gomod, nil)
		if err != nil || mf.Module == nil {
			return nil, fmt.Errorf("%s is not a usable go.mod", filepath.Join(modDir, "go.mod"))
		}
		rel, _ := filepath.Rel(modDir, abs)
		importPath = path.Join(mf.Module.Mod.Path, filepath.ToSlash(rel))
		if usesTool(mf) {
			generate = "go tool toolgen"
		}
		plan.Setup = ToolgenSetup(mf)
	} else {
		const mod = "example.com/app"
		importPath = path.Join(mod, filepath.Base(abs))
		plan.Setup = append([]string{"go mod init " + mod}, ToolgenSetup(nil)...)
	}
	p := &Project{Package: pkg, Import: importPath}
	for _, f := range []struct{ name, src string }{
		{filepath.Base(abs) + "/gen.go", fmt.Sprintf(specGenTemplate, pkg, generate)},
		{"cmd/" + plan.Command + "/main.go", fmt.Sprintf(mainTemplate, plan.Command, p.importLine(), pkg)},
	} {
		b, err := format.Source([]byte(f.src))
		if err != nil {
			return nil, fmt.Errorf("scaffold: %s: %v", f.name, err) // a template bug
		}
		plan.Files = append(plan.Files, BinaryFile{Path: f.name, Data: b})
	}
	return plan, nil
}

// Write prints the plan for a person: each file under a --- PATH line,
// then the commands.
func (b *BinaryPlan) Write(w io.Writer) error {
	_, err := fmt.Fprintln(w, "To build an agent binary from it, add these files (paths from the spec directory's parent):")
	for _, f := range b.Files {
		fmt.Fprintf(w, "\n--- %s\n%s", f.Path, f.Data)
	}
	fmt.Fprintln(w, "\nThen, from there:")
	for _, s := range b.Setup {
		fmt.Fprintln(w, "  "+s)
	}
	fmt.Fprintf(w, "  go mod tidy\n  go generate ./...\n  go build ./cmd/%s\n  ./%s tools\n", b.Command, b.Command)
	return err
}

// usesTool reports whether go.mod pins toolgen with a tool directive.
func usesTool(mf *modfile.File) bool {
	for _, t := range mf.Tool {
		if t.Path == ToolPackage {
			return true
		}
	}
	return false
}

const specGenTemplate = `// Package %[1]s is the agent's generated registry: toolgen.hcl beside
// this file is its spec, and go generate writes the *_gen.go files here.
package %[1]s

//go:generate %[2]s generate .
`
