// Command plainserver is the yardstick of `make weight`: a stdio MCP
// server with one tool written directly on the go-sdk (mcp.AddTool), the
// same go-sdk version the runtime uses.
package main

import (
	"context"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type readArgs struct {
	Path string `json:"path" jsonschema:"a file inside the notes directory"`
}

func readNote(_ context.Context, _ *mcp.CallToolRequest, in readArgs) (*mcp.CallToolResult, any, error) {
	root, err := os.OpenRoot("notes")
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	b, err := root.ReadFile(in.Path)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "v0.0.1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "read_note", Description: "Read a note from the notes directory."}, readNote)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
