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
	} else {
		fmt.Fprintln(stdout, "optional runtime packages the generated registry imports:")
		for _, l := range links {
			fmt.Fprintf(stdout, "  %s\n    because of: %s\n", l.Package, strings.Join(l.Why, ", "))
		}
	}
	fmt.Fprintln(stdout, "optional runtime packages the agent's main package imports itself, to run so:")
	for _, l := range mainLinks {
		fmt.Fprintf(stdout, "  %s\n    for: %s\n", l.pkg, l.why)
	}
	return exitOK
}

// mainLinks are the optional packages no declaration pulls in: they serve
// a way of running the agent, so its main package imports them (without
// one, the flag that needs it fails saying to import it).
var mainLinks = []struct{ pkg, why string }{
	{"github.com/toolgen-dev/toolgen/runtime/serve/jwtauth", "serve --http --auth-issuer (JWT access tokens, checked with go-jose)"},
	{"github.com/toolgen-dev/toolgen/runtime/store/redis", "serve --store redis://… (state shared by replicas)"},
}
