package serve

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

// A call that asks a required question (mcpconn.Question.Required, a Go
// tool's runtime.Required) of a stateless-revision host that did not
// declare the capability to answer it cannot go on: the request fails with
// MissingRequiredClientCapability (SEP-2575, -32021, HTTP 400) naming what
// is missing, and the call is cancelled. A question that is not required
// fails or is declined as before, and the tool works around it.

// errNotDeclared is what the asker of a required question gets while its
// request is refused.
var errNotDeclared = errors.New("the host did not declare the capability this call requires")

// require records that the question asked with ctx needs capability, which
// the host did not declare. It returns nil when the question is optional.
func (r *round) require(ctx context.Context, capability string) error {
	if !mcpconn.QuestionFrom(ctx).Required {
		return nil
	}
	r.mu.Lock()
	if !slices.Contains(r.missing, capability) {
		r.missing = append(r.missing, capability)
	}
	r.detachLocked() // the request fails now, while the call winds down
	r.mu.Unlock()
	select {
	case r.asked <- struct{}{}:
	default:
	}
	return errNotDeclared
}

// need is what required questions lack, or nil.
func (r *round) need() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.missing)
}

// missingCapability is the -32021 error naming the capabilities, as a
// ClientCapabilities object ({"sampling": {}}).
func missingCapability(names []string) error {
	caps := make(map[string]any, len(names))
	for _, n := range names {
		caps[n] = map[string]any{}
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": caps})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
		Message: "the request needs client capabilities it did not declare: " + strings.Join(names, ", "), Data: data}
}
