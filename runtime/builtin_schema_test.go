package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// Builtin tools declare no input schema in the registry; before they are
// loaded, tool_describe and tool_load must still give the builtin's own
// schema, not an empty object (found by examples/full's acceptance test).
func TestBuiltinSchemaBeforeLoad(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Discovery: true, Use: useTools("read_file", "write_file", "git")})
	ev := &events{}
	s, err := Open(context.Background(), f.reg, "a", f.opts(ev))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for tool, want := range map[string]string{"read_file": `"path"`, "write_file": `"content"`, "git": `"enum":["git","go"]`} {
		r := s.Call(context.Background(), decl.ToolDescribe, json.RawMessage(`{"name":"`+tool+`"}`))
		if !r.OK || !strings.Contains(r.Result, want) {
			t.Errorf("tool_describe(%s) = %+v; want its builtin schema with %s", tool, r, want)
		}
		r = s.Call(context.Background(), decl.ToolLoad, json.RawMessage(`{"names":["`+tool+`"]}`))
		if !r.OK || !strings.Contains(r.Result, want) || !strings.Contains(r.Result, `"already_active":[]`) {
			t.Errorf("tool_load(%s) = %+v; want its builtin schema with %s, and already_active a list", tool, r, want)
		}
		for _, info := range s.Tools() {
			if info.Name == tool && !strings.Contains(string(info.InputSchema), want) {
				t.Errorf("Tools() schema of %s = %s", tool, info.InputSchema)
			}
		}
	}
}
