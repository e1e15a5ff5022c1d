package runtime

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// FuzzSessionCall: any name with any arguments gets a result, never a
// panic or a hang; a failure always says why.
func FuzzSessionCall(f *testing.F) {
	names := []string{"summarize", "entities_get", "read_file", "github__search_code", ToolBatch, ToolFinalReport,
		ToolTaskStatus, ToolFind, ToolDescribe, ToolLoad, ToolActive, ToolMCPList, ToolMCPSchema, ToolMCPCall,
		ToolOutputRead, ToolHandoff, ToolSpawnAgents, ToolListAgents, "agent__b", "nope", "fs_read_file", "sum", ""}
	args := []string{``, `{}`, `null`, `[]`, `"x"`, `{"names":["summarize"]}`, `{"calls":[{"tool":"summarize"}]}`,
		`{"server":"github","tool":"search_code","args":{"q":1}}`, `{"handle":"../x"}`, `{"query":"","limit":-1}`,
		`{"agents":[{"agent":"b","prompt":"p"}]}`, `{"status":"success"}`, `{"agent":"b"}`, `{`, "\xff"}
	for i, n := range names {
		f.Add(n, args[i%len(args)])
	}
	fx := newFixture(
		Agent{Name: "a", Discovery: true, Use: []Use{{Kind: UseGlob, Name: "*"}, {Kind: UseBundle, Name: "docs_meta"}},
			Aliases: []Alias{{Name: "sum", Target: "summarize"}}, Subagents: []string{"b"}, Router: []string{"b"}, Spawn: true},
		Agent{Name: "b", Use: useTools("summarize")},
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
