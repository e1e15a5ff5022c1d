package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolgen-dev/toolgen/templates"
)

// runBuildInfo is `toolgen build-info DIR`: the optional runtime packages
// the spec's generated registry imports, each with the declarations that
// pull it in. An agent links these on top of the runtime and agentcli.
func runBuildInfo(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("build-info", stderr, "usage: toolgen build-info DIR")
	_, spec, code := loadDirArg(fs, args, stderr)
	if code >= 0 {
		return code
	}
	links := templates.Links(spec)
	if len(links) == 0 {
		fmt.Fprintln(stdout, "no optional runtime packages: the agent links the runtime and agentcli only")
		return exitOK
	}
	fmt.Fprintln(stdout, "optional runtime packages the generated registry imports:")
	for _, l := range links {
		fmt.Fprintf(stdout, "  %s\n    because of: %s\n", l.Package, strings.Join(l.Why, ", "))
	}
	return exitOK
}
