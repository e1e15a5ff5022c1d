package mcpauth_test

import "github.com/toolgen-dev/toolgen/internal/mcpauth/authtest"

// The test world's authorization server and protected MCP server live in
// authtest, so that the agent's end-to-end tests use the same ones.
type (
	clock      = authtest.Clock
	authServer = authtest.Server
)

var (
	newAuthServer   = authtest.NewServer
	protectedServer = authtest.Protected
	browse          = authtest.Browse
)
