package runtime

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// samplingRegistry: an agent over the real server-everything whose
// sampling is answered as the server block says; the agent's model is
// served by srv in provider's wire format.
func samplingRegistry(t *testing.T, sampling, provider string, srv *modeltest.Server) *Registry {
	node, args := everything(t)
	base := srv.OpenAIBaseURL()
	if provider == "anthropic" {
		base = srv.AnthropicBaseURL()
	}
	return &Registry{
		Separator: "__",
		Defaults:  decl.Defaults{ToolTimeout: 60 * time.Second, ResponseMaxBytes: 100000, StartupTimeout: 60 * time.Second, Model: "fast"},
		Servers: []decl.Server{{Name: "everything", Transport: "stdio", Command: node, Args: args, Trusted: true,
			ProtocolVersion: "2025-11-25", Sampling: sampling}},
		Agents: []decl.Agent{{Name: "a", Use: []decl.Use{{Kind: decl.UseServer, Name: "everything"}}}},
		Models: []decl.Model{{Name: "fast", Provider: provider, ModelName: decl.Value{{Lit: "test-model"}},
			BaseURL: decl.Value{{Lit: base}}, APIKey: decl.Value{{Lit: "sk-sampling-test-0123456789"}}}},
	}
}

// TestSamplingAnsweredByAgentModel: with sampling = "model", an upstream
// server's sampling/createMessage during a call is answered by the agent's
// own model, on both wire formats, with no MCP host at all (the agent runs
// on its own); the model sees the server's system prompt and message.
func TestSamplingAnsweredByAgentModel(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			srv := modeltest.NewServer(t, modeltest.Turn{Text: "Paris is the capital of France."})
			h := NewHost(slog.New(slog.DiscardHandler))
			defer h.Close()
			s, err := h.Open(context.Background(), samplingRegistry(t, "model", provider, srv), "a", Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			r := s.Call(context.Background(), "everything__trigger-sampling-request", []byte(`{"prompt":"What is the capital of France?","maxTokens":50}`))
			if !r.OK || !strings.Contains(r.Result, "Paris is the capital of France.") {
				t.Fatalf("trigger-sampling-request = %+v", r)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d model requests, want 1", len(reqs))
			}
			req := reqs[0]
			if req.System != "You are a helpful test server." || len(req.Messages) != 1 || !strings.Contains(req.Messages[0].Text, "What is the capital of France?") {
				t.Errorf("the model was asked %q / %+v", req.System, req.Messages)
			}
		})
	}
}

// TestSamplingDenied: with sampling = "deny" the client declares no
// sampling, so the server does not offer its sampling tool at all, and
// nothing reaches the model.
func TestSamplingDenied(t *testing.T) {
	srv := modeltest.NewServer(t)
	s := open(t, samplingRegistry(t, "deny", "openai", srv), "a", Options{Logger: slog.New(slog.DiscardHandler)})
	if hasTool(s, "everything__trigger-sampling-request") || !hasTool(s, "everything__echo") {
		t.Errorf("tools %v", toolNames(s.Tools()))
	}
	if r := s.Call(context.Background(), "everything__trigger-sampling-request", []byte(`{"prompt":"x"}`)); r.OK {
		t.Errorf("a denied sampling tool answered: %+v", r)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// An agent without a model cannot answer: the server's tool fails with
// the reason, and nothing else happens.
func TestSamplingByModelWithoutOne(t *testing.T) {
	srv := modeltest.NewServer(t)
	reg := samplingRegistry(t, "model", "openai", srv)
	reg.Defaults.Model = ""
	s := open(t, reg, "a", Options{Logger: slog.New(slog.DiscardHandler)})
	r := s.Call(context.Background(), "everything__trigger-sampling-request", []byte(`{"prompt":"x"}`))
	if r.OK || !strings.Contains(r.Error+r.Result, "has no model") {
		t.Errorf("trigger-sampling-request = %+v", r)
	}
}
