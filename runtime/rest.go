package runtime

import (
	"context"
	"encoding/json"
	"net/http"
)

// RESTSpec is a REST tool's rest block with its env() values read: what
// runtime/rest compiles.
type RESTSpec struct {
	Method      string      // GET when empty
	URL         string      // RFC 6570 template over the tool's arguments
	Headers     [][2]string // key, value
	InputSchema json.RawMessage
	Secrets     []string // the env() values in URL and Headers, scrubbed from errors
}

// RESTTool is a compiled REST tool, safe for concurrent use.
type RESTTool interface {
	Call(ctx context.Context, args json.RawMessage) (string, error)
}

// restPackage links REST tools in (RegisterREST).
const restPackage = "github.com/toolgen-dev/toolgen/runtime/rest"

var compileREST func(RESTSpec, *http.Client) (RESTTool, error)

// RegisterREST is how runtime/rest links REST tools into a binary: the
// generated registry imports it only for a spec with a tool's rest block,
// so an agent without one carries no URL templates or HTTP calling of its
// own. Call it from an init function.
func RegisterREST(compile func(RESTSpec, *http.Client) (RESTTool, error)) { compileREST = compile }
