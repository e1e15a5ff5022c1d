// Command conformance-upstream is an MCP server (stdio) the conformance
// agent proxies, for what a spec cannot declare (declared resources and
// prompts are text): the binary resource and resource template of the
// suite's resources-read-binary and resources-templates-read scenarios,
// which a host reads through the agent under their own URIs, and the
// image and embedded-resource prompts of prompts-get-with-image and
// prompts-get-embedded-resource. The agent names this server "test" with
// the separator "_", so prompt_with_image reaches the host as the suite's
// test_prompt_with_image. It also serves a prompt that asks the host while
// it renders and the hooks that change its lists (changing.go).
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
	s.AddPrompt(&mcp.Prompt{Name: "prompt_with_image", Description: "A prompt with an image."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.ImageContent{Data: png, MIMEType: "image/png"}},
				{Role: "user", Content: &mcp.TextContent{Text: "Please analyze the image above."}},
			}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "prompt_with_embedded_resource", Description: "A prompt embedding a resource.",
		Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			uri := req.Params.Arguments["resourceUri"]
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: "Embedded resource content for testing."}}},
				{Role: "user", Content: &mcp.TextContent{Text: "Please process the embedded resource above."}},
			}}, nil
		})
	addChanging(s)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
