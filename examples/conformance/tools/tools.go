// Package tools holds the Go function tools of the conformance agent: the
// tools the MCP conformance suite's server scenarios call by name.
package tools

import (
	"context"
	"errors"
)

// NoArgs is the arguments of a tool that takes none.
type NoArgs struct{}

// SimpleText answers tools-call-simple-text.
func SimpleText(ctx context.Context, _ NoArgs) (string, error) {
	return "This is a simple text response for testing.", nil
}

// ErrorHandling answers tools-call-error: it always fails, which a client
// must see as a result with isError, not a protocol error.
func ErrorHandling(ctx context.Context, _ NoArgs) (string, error) {
	return "", errors.New("This tool intentionally returns an error for testing")
}
