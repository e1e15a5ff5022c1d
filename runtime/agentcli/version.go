package agentcli

import (
	"fmt"
	goruntime "runtime"
	"runtime/debug"

	"github.com/toolgen-dev/toolgen/internal/buildinfo"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// version is `version`: this binary's own build (its module, version and
// VCS stamp), the toolgen runtime it links and the generated code's
// version, and the Go toolchain.
func (c *cli) version(args []string) int {
	fs := c.flags("version")
	pos, err := parse(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) != 0 {
		return c.usageErr(fs, "version takes no arguments")
	}
	main := "(unknown)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path != "" {
		v, _ := buildinfo.Module(bi.Main.Path, "")
		main = bi.Main.Path + " " + v
	}
	fmt.Fprintf(c.stdout, "%s: %s\n", c.prog(), main)
	rt, ok := buildinfo.Module("github.com/toolgen-dev/toolgen", "")
	if !ok {
		rt = "(not recorded)"
	}
	fmt.Fprintf(c.stdout, "toolgen runtime %s, generated code version %d (package %s)\n", rt, decl.GenVersion, c.reg.Package)
	fmt.Fprintf(c.stdout, "built with %s %s/%s\n", goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
	return exitOK
}
