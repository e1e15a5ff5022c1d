package serve

import (
	"context"
	"encoding/json"
	"io"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// taker is an extension that takes calls of echo over (as runtime/tasks
// takes a task tool's), counting the Calls it is offered; with mayTake it
// is also a CallFilter.
type taker struct {
	offered atomic.Int32
	mayTake func(*mcp.CallToolRequest, *runtime.ToolInfo) bool
}

func (*taker) Options(Session, *mcp.ServerOptions) bool { return true }
func (*taker) Install(Session, *mcp.Server)             {}

func (t *taker) TakeCall(_ context.Context, _ Session, call *Call) (mcp.Result, bool, error) {
	t.offered.Add(1)
	if call.Tool != nil && call.Tool.Name == "echo" {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "taken"}}}, true, nil
	}
	return nil, false, nil
}

type filteringTaker struct{ *taker }

func (t filteringTaker) MayTake(req *mcp.CallToolRequest, tool *runtime.ToolInfo) bool {
	return t.mayTake(req, tool)
}

// A stdio host of an older revision has its tools/call offered to the
// extensions that take calls, as over go-sdk's path (the lean path had
// run such calls itself: a task tool ran as a plain call); a CallFilter
// that leaves a call alone is not offered a Call for it.
func TestStdioCallsOfferedToCallTakers(t *testing.T) {
	echo := func(t *testing.T, s *Server) string {
		t.Helper()
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- s.ServeIO(context.Background(), sr, sw); sw.Close() }()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).
			Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { cs.Close(); <-done }()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
		if err != nil || len(res.Content) != 1 {
			t.Fatalf("echo: %v %+v", err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}

	tk := &taker{}
	s := New(newFakeSession(), Options{})
	defer s.Close()
	s.exts = append(s.exts, tk)
	if got := echo(t, s); got != "taken" || tk.offered.Load() != 1 {
		t.Errorf("a call takers may take: answered %q, offered %d times; want the taker's answer", got, tk.offered.Load())
	}

	asked := 0
	ft := filteringTaker{&taker{mayTake: func(req *mcp.CallToolRequest, tool *runtime.ToolInfo) bool {
		asked++
		if tool == nil || tool.Name != "echo" || req.Params.Name != "echo" {
			t.Errorf("MayTake(%q, %+v): not the called tool", req.Params.Name, tool)
		}
		return false
	}}}
	s2 := New(newFakeSession(), Options{})
	defer s2.Close()
	s2.exts = append(s2.exts, ft)
	if got := echo(t, s2); got != `{"text":"hi"}` || ft.offered.Load() != 0 || asked == 0 {
		t.Errorf("a call the filter leaves: answered %q, offered %d times, filter asked %d times; want the tool's answer, never offered", got, ft.offered.Load(), asked)
	}
}
