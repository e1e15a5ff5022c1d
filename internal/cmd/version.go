package cmd

import (
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/debug"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// runVersion is `toolgen version`: the module version toolgen was built
// from, the version of the generated code it writes (which the runtime
// checks at compile time) and the Go toolchain that built it.
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if code, ok := parseNoArgs("version", args, stderr); !ok {
		return code
	}
	fmt.Fprintf(stdout, "toolgen %s\n", moduleVersion())
	fmt.Fprintf(stdout, "generated code version %d (runtime accepts %d to %d)\n", decl.GenVersion, decl.MinVersion, decl.MaxVersion)
	fmt.Fprintf(stdout, "built with %s %s/%s\n", goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
	return exitOK
}

// moduleVersion is toolgen's module version as the build recorded it: a
// tag or pseudo-version when installed with `go install …@v` or built
// from a clone with VCS stamping, "(devel)" otherwise; with the commit
// when the build knows it.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	mod := bi.Main
	if mod.Path != toolgenModule {
		// Built into another program: its version is among the deps.
		for _, d := range bi.Deps {
			if d.Path == toolgenModule {
				mod = *d
			}
		}
	}
	v := mod.Version
	if r := mod.Replace; r != nil {
		// `go tool toolgen` from a local checkout: go.mod's replace.
		v += " => " + r.Path
		if r.Version != "" {
			v += " " + r.Version
		}
	}
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		v += fmt.Sprintf(" (commit %.12s%s)", rev, dirty)
	}
	return v
}

const toolgenModule = "github.com/toolgen-dev/toolgen"
