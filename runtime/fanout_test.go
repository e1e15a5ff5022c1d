package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// agent__batch runs its calls at most 8 at a time and refuses more than 64
// (runtime/internal/tools): one model call cannot start unbounded work.
func TestBatchFanOutIsBounded(t *testing.T) {
	var running, peak atomic.Int32
	f := newFixture(decl.Agent{Name: "a", Use: append(useTools("count"), useRuntime(decl.ToolBatch)...)}).withTools(decl.Tool{Name: "count", Kind: decl.KindGo,
		Go: goTool(func(context.Context, json.RawMessage) (string, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(5 * time.Millisecond)
			running.Add(-1)
			return "ok", nil
		})})
	s := open(t, f.reg, "a", f.opts(&events{}))
	calls := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = `{"tool":"count","args":{}}`
		}
		return fmt.Sprintf(`{"calls":[%s]}`, strings.Join(parts, ","))
	}
	out := mustOK(t, call(t, s, decl.ToolBatch, calls(64)))
	if got := strings.Count(out, `"ok":true`); got != 64 {
		t.Errorf("%d of 64 calls succeeded", got)
	}
	// The documented bounds, written out: the test must not follow the
	// constants if someone loosens them.
	if p := peak.Load(); p > 8 {
		t.Errorf("%d calls ran at once, want at most 8", p)
	}
	if r := call(t, s, decl.ToolBatch, calls(65)); r.OK || !strings.Contains(r.Error, "at most") {
		t.Errorf("oversized batch = %+v", r)
	}
}
