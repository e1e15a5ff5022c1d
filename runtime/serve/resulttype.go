package serve

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// typedResult is a tools/call, prompts/get or resources/read result for a
// host of the stateless revision, which requires resultType ("complete"
// or "input_required"). go-sdk sets it only on results its own handlers
// return; the session answers these before them (Server.middleware).
type typedResult struct {
	mcp.Result
	resultType string
	asks       *asked // input_required only
}

type asked struct {
	InputRequests mcp.InputRequestMap `json:"inputRequests"`
	RequestState  string              `json:"requestState,omitempty"`
}

func completed(res mcp.Result) mcp.Result {
	return typedResult{Result: res, resultType: "complete"}
}

// typedFor is res as a host of req's revision takes it.
func typedFor(req mcp.Request, res mcp.Result) mcp.Result {
	if res == nil || !statelessHost(req) {
		return res
	}
	return completed(res)
}

func inputRequired(asks mcp.InputRequestMap, state string) mcp.Result {
	return typedResult{Result: &mcp.CallToolResult{}, resultType: "input_required", asks: &asked{asks, state}}
}

func (r typedResult) MarshalJSON() ([]byte, error) {
	var b []byte
	var err error
	if r.asks != nil {
		// Only the questions and the state: content is for a complete result.
		b, err = json.Marshal(struct {
			Meta mcp.Meta `json:"_meta,omitempty"`
			*asked
		}{r.GetMeta(), r.asks})
	} else {
		b, err = json.Marshal(r.Result)
	}
	if err != nil || len(b) < 2 || b[0] != '{' {
		return b, err
	}
	head := []byte(`{"resultType":` + `"` + r.resultType + `"`)
	if !bytes.Equal(b, []byte("{}")) {
		head = append(head, ',')
	}
	return append(head, b[1:]...), nil
}
