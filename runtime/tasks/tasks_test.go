package tasks

import (
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

func TestSupport(t *testing.T) {
	for _, c := range []struct {
		tool *runtime.ToolInfo
		want string
	}{
		{nil, ""},
		{&runtime.ToolInfo{Name: "plain", Kind: decl.KindGo}, ""},
		{&runtime.ToolInfo{Name: "slow", Kind: decl.KindGo, Meta: mcp.Meta{MetaKey: "optional"}}, "optional"},
		{&runtime.ToolInfo{Name: "only", Kind: decl.KindREST, Meta: mcp.Meta{MetaKey: "required"}}, "required"},
		{&runtime.ToolInfo{Name: "later", Kind: decl.KindGo, Meta: mcp.Meta{MetaKey: AfterInput}}, AfterInput},
		{&runtime.ToolInfo{Name: "odd", Kind: decl.KindGo, Meta: mcp.Meta{MetaKey: "sometimes"}}, ""},
		{&runtime.ToolInfo{Name: "agent__reader", Kind: decl.KindAgent}, "optional"},
		{&runtime.ToolInfo{Name: decl.ToolSpawnAgents, Kind: decl.KindAgent}, "optional"},
		{&runtime.ToolInfo{Name: decl.ToolListAgents, Kind: decl.KindAgent}, ""},
	} {
		name := "nil"
		if c.tool != nil {
			name = c.tool.Name
		}
		if got := Support(c.tool); got != c.want {
			t.Errorf("Support(%s) = %q; want %q", name, got, c.want)
		}
	}
}

func callWithMeta(meta mcp.Meta, header http.Header) *mcp.CallToolRequest {
	return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: meta, Name: "x"}, Extra: &mcp.RequestExtra{Header: header}}
}

// The extension is declared per request, in _meta's client capabilities.
func TestDeclared(t *testing.T) {
	with := mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"extensions": map[string]any{ExtensionID: map[string]any{}}}}
	other := mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/skills": map[string]any{}}}}
	if !declared(callWithMeta(with, nil)) {
		t.Error("declared in _meta: not seen")
	}
	if declared(callWithMeta(other, nil)) || declared(callWithMeta(nil, nil)) {
		t.Error("another extension, or none, taken for tasks")
	}
}

// Mcp-Name must name the task the body names (SEP-2243).
func TestCheckName(t *testing.T) {
	req := func(h http.Header, id string) mcp.Request {
		return &mcp.ServerRequest[*TaskParams]{Params: &TaskParams{TaskID: id}, Extra: &mcp.RequestExtra{Header: h}}
	}
	if err := checkName(req(http.Header{"Mcp-Name": {"t1"}}, "t1")); err != nil {
		t.Errorf("matching header: %v", err)
	}
	if err := checkName(req(nil, "t1")); err != nil {
		t.Errorf("no header: %v", err)
	}
	err := checkName(req(http.Header{"Mcp-Name": {"t2"}}, "t1"))
	if e, ok := err.(*jsonrpc.Error); !ok || e.Code != codeHeaderMismatch {
		t.Errorf("mismatch: %v; want code %d", err, codeHeaderMismatch)
	}
}
