package cmd

import (
	"fmt"
	"io"
	goruntime "runtime"

	"github.com/toolgen-dev/toolgen/internal/buildinfo"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Version is a release's version, stamped in with
// -ldflags "-X github.com/toolgen-dev/toolgen/internal/cmd.Version=v0.4.0";
// empty in other builds, which report what Go recorded.
var Version string

// runVersion is `toolgen version`: the module version toolgen was built
// from (with its commit, time and modified flag when the build was
// stamped), the version of the generated code it writes (which the
// runtime checks at compile time) and the Go toolchain that built it.
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if code, ok := parseNoArgs("version", args, stderr); !ok {
		return code
	}
	fmt.Fprintf(stdout, "toolgen %s\n", moduleVersion())
	fmt.Fprintf(stdout, "generated code version %d (runtime accepts %d to %d)\n", decl.GenVersion, decl.MinVersion, decl.MaxVersion)
	fmt.Fprintf(stdout, "built with %s %s/%s\n", goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
	return exitOK
}

func moduleVersion() string {
	v, _ := buildinfo.Module(toolgenModule, Version)
	return v
}

const toolgenModule = "github.com/toolgen-dev/toolgen"
