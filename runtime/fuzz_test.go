package runtime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// FuzzSessionCall: any name with any arguments gets a result, never a
// panic or a hang; a failure always says why.
func FuzzSessionCall(f *testing.F) {
	names := []string{"summarize", "entities_get", "read_file", "github__search_code", decl.ToolBatch, decl.ToolFinalReport,
		decl.ToolTaskStatus, decl.ToolFind, decl.ToolDescribe, decl.ToolLoad, decl.ToolActive, decl.ToolMCPList, decl.ToolMCPSchema, decl.ToolMCPCall,
		decl.ToolOutputRead, decl.ToolHandoff, decl.ToolSpawnAgents, decl.ToolListAgents, "agent__b", "nope", "fs_read_file", "sum", ""}
	args := []string{``, `{}`, `null`, `[]`, `"x"`, `{"names":["summarize"]}`, `{"calls":[{"tool":"summarize"}]}`,
		`{"server":"github","tool":"search_code","args":{"q":1}}`, `{"handle":"../x"}`, `{"query":"","limit":-1}`,
		`{"agents":[{"agent":"b","prompt":"p"}]}`, `{"status":"success"}`, `{"agent":"b"}`, `{`, "\xff"}
	for i, n := range names {
		f.Add(n, args[i%len(args)])
	}
	fx := newFixture(
		decl.Agent{Name: "a", Discovery: true, Use: []decl.Use{{Kind: decl.UseGlob, Name: "*"}, {Kind: decl.UseBundle, Name: "docs_meta"}},
			Aliases: []decl.Alias{{Name: "sum", Target: "summarize"}}, Subagents: []string{"b"}, Router: []string{"b"}, Spawn: true},
		decl.Agent{Name: "b", Use: useTools("summarize")},
	)
	fx.reg.Defaults.ResponseMaxBytes = 64
	opts := fx.opts(&events{})
	opts.Runner = runnerFunc(func(ctx context.Context, child *Session, prompt string) (string, error) { return prompt, nil })
	s, err := Open(context.Background(), fx.reg, "a", opts)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, name, args string) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		r := s.Call(ctx, name, json.RawMessage(args))
		if !r.OK && r.Error == "" {
			t.Errorf("%s(%q): failed without an error", name, args)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Errorf("result does not encode: %v", err)
		}
	})
}
