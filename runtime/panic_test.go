package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A panicking tool is the agent's failure (Internal), which a task reports
// as failed; a tool's own error is not.
func TestPanicIsInternal(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: useTools("panics", "errs")}).withTools(
		decl.Tool{Name: "errs", Kind: decl.KindGo, Go: goTool(func(context.Context, json.RawMessage) (string, error) { return "", errBoom })},
		decl.Tool{Name: "panics", Kind: decl.KindGo, Go: goTool(func(context.Context, json.RawMessage) (string, error) { panic("kaboom") })},
	)
	for _, timeout := range []bool{false, true} {
		if !timeout {
			f.reg.Defaults.ToolTimeout = 0 // the in-process fast path
		} else {
			f.reg.Defaults.ToolTimeout = 5e9
		}
		s := open(t, f.reg, "a", f.opts(&events{}))
		if r := call(t, s, "panics", `{}`); r.OK || !r.Internal || r.Error != "tool panicked: kaboom" {
			t.Errorf("timeout %v: panic result %+v; want Internal", timeout, r)
		}
		if r := call(t, s, "errs", `{}`); r.OK || r.Internal {
			t.Errorf("timeout %v: error result %+v; want not Internal", timeout, r)
		}
	}
}
