// Command conformance-upstream is an MCP server (stdio) the conformance
// agent proxies: the binary resource and the resource template of the
// suite's resources-read-binary and resources-templates-read scenarios,
// which a spec cannot declare (declared resources are fixed text). A host
// reads them through the agent under their own URIs.
package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"log"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pixel is a 1×1 transparent PNG.
const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

func main() {
	png, err := base64.StdEncoding.DecodeString(pixel)
	if err != nil {
		log.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "conformance-upstream", Version: "1"}, nil)
	s.AddResource(&mcp.Resource{Name: "static_binary", URI: "test://static-binary", MIMEType: "image/png", Description: "A 1×1 PNG."},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: png}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "template_data", URITemplate: "test://template/{id}/data", MIMEType: "application/json", Description: "Data for one id."},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
			text := fmt.Sprintf(`{"id":%q,"templateTest":true,"data":"Data for ID: %s"}`, id, id)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: text}}}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
