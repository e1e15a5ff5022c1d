package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// ToolSeq walks what Tools lists, in the same order, for a listing agent
// (shared table plus own tools), a discovery agent after tool_load, and an
// agent with an alias.
func TestToolSeqIsTools(t *testing.T) {
	reg := catalogRegistry(300)
	reg.Agents = append(reg.Agents, decl.Agent{Name: "aliased", Use: []decl.Use{{Kind: decl.UseGlob, Name: "*"}},
		Aliases: []decl.Alias{{Name: "aaa_first", Target: reg.Tools[7].Name}}})
	opts := Options{Logger: slog.New(slog.DiscardHandler)}
	same := func(t *testing.T, s *Session) {
		t.Helper()
		var seq []ToolInfo
		for ti := range s.ToolSeq() {
			seq = append(seq, *ti)
		}
		if tools := s.Tools(); !reflect.DeepEqual(seq, tools) {
			t.Errorf("ToolSeq lists %d tools %v…, Tools %d %v…", len(seq), toolNames(seq[:min(3, len(seq))]), len(tools), toolNames(tools[:min(3, len(tools))]))
		}
	}
	for _, agent := range []string{"direct", "discovery", "aliased"} {
		t.Run(agent, func(t *testing.T) {
			s := open(t, reg, agent, opts)
			same(t, s)
			if agent == "discovery" {
				args, _ := json.Marshal(map[string]any{"names": []string{reg.Tools[3].Name, reg.Tools[200].Name}})
				if r := s.Call(context.Background(), decl.ToolLoad, args); !r.OK {
					t.Fatal(r.Error)
				}
				same(t, s)
			}
		})
	}
}
