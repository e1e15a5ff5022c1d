// Command templates is a fixture MCP server of resource templates only:
// each -template URI_TEMPLATE is listed, and a read of any URI one of them
// matches answers "LABEL read URI" (-label).
package main

import (
	"context"
	"flag"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/testdata/mcpservers/internal/fixture"
)

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

var (
	templates list
	label     = flag.String("label", "templates", "who answers a read")
)

func main() {
	flag.Var(&templates, "template", "a resource template to list (repeatable)")
	fixture.Main("templates", func(s *mcp.Server) {
		for i, t := range templates {
			s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "t" + string(rune('0'+i)), URITemplate: t},
				func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					uri := req.Params.URI
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: *label + " read " + uri}}}, nil
				})
		}
	})
}
