package tasks

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/serve"
)

// taskSession lists a tool that supports tasks, one that requires them and
// a plain one; every call answers at once.
type taskSession struct{}

func (taskSession) Agent() string { return "tasks" }
func (taskSession) Tools() []runtime.ToolInfo {
	schema := json.RawMessage(`{"type":"object"}`)
	return []runtime.ToolInfo{
		{Name: "slow", Kind: decl.KindGo, InputSchema: schema, Meta: mcp.Meta{MetaKey: "optional"}},
		{Name: "only", Kind: decl.KindGo, InputSchema: schema, Meta: mcp.Meta{MetaKey: "required"}},
		{Name: "plain", Kind: decl.KindGo, InputSchema: schema},
	}
}
func (taskSession) Call(_ context.Context, name string, _ json.RawMessage) runtime.Result {
	return runtime.Result{OK: true, Result: "ran " + name, Kind: decl.KindGo}
}
func (taskSession) Instructions() []string  { return nil }
func (taskSession) Subscribe(func()) func() { return func() {} }

// A stdio host of 2025-11-25 that declared the extension at initialize
// gets a task for a task tool, and one that did not is refused a tool
// that requires a task, as over HTTP: its calls go to the extension
// first, on the lean stdio path too (which had run them as plain calls).
func TestStdioHostOf2025GetsTasks(t *testing.T) {
	for _, c := range []struct {
		declares   bool
		tool, want string
	}{
		{true, "slow", `"resultType":"task"`},
		{true, "plain", `"ran plain"`},
		{false, "slow", `"ran slow"`},
		{false, "only", `"code":-32021`},
	} {
		s := serve.New(taskSession{}, serve.Options{})
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- s.ServeIO(context.Background(), sr, sw); sw.Close() }()
		out := bufio.NewReader(cr)
		send := func(line string) {
			if _, err := io.WriteString(cw, line+"\n"); err != nil {
				t.Fatal(err)
			}
		}
		caps := `{}`
		if c.declares {
			caps = `{"extensions":{"` + ExtensionID + `":{}}}`
		}
		send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"h","version":"1"}}}`)
		if _, err := out.ReadBytes('\n'); err != nil {
			t.Fatal(err)
		}
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		// A host lists first; then the call, which the lean path reads.
		send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
		if _, err := out.ReadBytes('\n'); err != nil {
			t.Fatal(err)
		}
		send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + c.tool + `","arguments":{}}}`)
		got, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), c.want) {
			t.Errorf("declares %v, calls %s: %s; want %s", c.declares, c.tool, got, c.want)
		}
		cw.Close()
		<-done
		s.Close()
	}
}
