package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
	"github.com/toolgen-dev/toolgen/runtime/internal/loop"
)

// The model asks for a file, the loop reads it through the session, the
// model answers: the answer, the turns, the usage summed over the turns,
// what the model was sent, and the events.
func TestToolCallThenAnswer(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string, stream bool) {
		f := newFixture(t)
		srv := modeltest.NewServer(t,
			modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}},
				Usage: modeltest.Usage{Input: 100, Output: 10, CacheRead: 40}},
			modeltest.Turn{Text: "The notes say hello.", Usage: modeltest.Usage{Input: 150, Output: 20}},
		)
		f.on(t, "lead", provider, srv)
		_, a := f.open(t, "lead")
		res, err := f.run(ctxFor(t), a, "What do the notes say?", loop.Options{Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		if res.Answer != "The notes say hello." || res.Status != loop.StatusCompleted || res.Turns != 2 || res.Agent != "lead" || res.Error != "" {
			t.Errorf("result %+v", res)
		}
		want := model.Usage{InputTokens: 290, OutputTokens: 30, CacheReadTokens: 40}
		if res.Usage != want {
			t.Errorf("usage %+v, want %+v", res.Usage, want)
		}
		wantCalls := []loop.ToolCall{{Name: "read_file", Agent: "lead", Turn: 1, OK: true}}
		if diff := cmp.Diff(wantCalls, res.ToolCalls, cmpopts.IgnoreFields(loop.ToolCall{}, "Latency")); diff != "" {
			t.Errorf("tool calls (-want +got):\n%s", diff)
		}

		reqs := srv.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		for _, r := range reqs {
			if r.System != "You plan and delegate." || r.Stream != stream {
				t.Errorf("system %q, stream %v", r.System, r.Stream)
			}
			names := toolNames(r)
			for _, n := range []string{"read_file", "barrier", "agent__final_report", "agent__researcher", "router__handoff-to"} {
				if !has(names, n) {
					t.Errorf("tools sent %v lack %s", names, n)
				}
			}
			if has(names, "secret") {
				t.Errorf("tools sent %v include one the agent may not use", names)
			}
		}
		got := results(reqs[1])
		if len(got) != 1 || got[0].Text != notes || got[0].IsError || got[0].CallID != reqs[1].Messages[1].ToolCalls[0].ID {
			t.Errorf("second request's results: %+v", got)
		}
		if len(res.Messages) != 4 || res.Messages[3].Text != "The notes say hello." {
			t.Errorf("conversation: %d messages", len(res.Messages))
		}

		f.log.require(t, 2, loop.EventModelRequest, "model", provider+"-model", "agent", "lead", "status", "ok")
		f.log.require(t, 1, loop.EventModelRequest, "turn", "1", "tokens_in", "140", "tokens_out", "10", "stop_reason", model.StopToolUse)
		f.log.require(t, 1, loop.EventTurn, "agent", "lead", "turn", "1", "tool_calls", "1", "tokens_in", "140")
		f.log.require(t, 1, loop.EventTurn, "agent", "lead", "turn", "2", "tool_calls", "0", "tokens_in", "150")
		f.log.require(t, 1, loop.EventRun, "agent", "lead", "status", "completed", "turns", "2", "tokens_in", "290", "tokens_out", "30")
	})
}

// All calls of one answer run at once: three calls to a tool that waits
// until all three arrived get past it only when they run in parallel.
func TestParallelToolCalls(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string, stream bool) {
		f := newFixture(t)
		f.barrier.n.Store(3)
		srv := modeltest.NewServer(t,
			modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "barrier", Args: `{}`}, {Name: "barrier", Args: `{}`}, {Name: "barrier", Args: `{}`}}},
			modeltest.Turn{Text: "All met."},
		)
		f.on(t, "lead", provider, srv)
		_, a := f.open(t, "lead")
		res, err := f.run(ctxFor(t), a, "Meet.", loop.Options{Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		got := results(reqs[1])
		calls := reqs[1].Messages[1].ToolCalls
		if len(got) != 3 {
			t.Fatalf("results %+v", got)
		}
		for i, r := range got {
			if r.IsError || r.Text != "all 3 arrived" || r.CallID != calls[i].ID {
				t.Errorf("result %d: %+v (call %s)", i, r, calls[i].ID)
			}
		}
		if res.Answer != "All met." || len(res.ToolCalls) != 3 {
			t.Errorf("result %+v", res)
		}
	})
}

// A call the agent may not make is an error result the model reads; the
// run goes on to an answer.
func TestBlockedToolLoopGoesOn(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string, stream bool) {
		f := newFixture(t)
		srv := modeltest.NewServer(t,
			modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "secret", Args: `{}`}, {Name: "read_file", Args: `{"path":"notes.txt"}`}}},
			modeltest.Turn{Text: "The secret is not mine to read; the notes say hello."},
		)
		f.on(t, "lead", provider, srv)
		_, a := f.open(t, "lead")
		res, err := f.run(ctxFor(t), a, "Read the secret.", loop.Options{Stream: stream})
		if err != nil || res.Status != loop.StatusCompleted {
			t.Fatalf("status %s, err %v", res.Status, err)
		}
		got := results(srv.Requests()[1])
		if len(got) != 2 {
			t.Fatalf("results %+v", got)
		}
		if want := `error: tool "secret" not allowed for agent "lead"`; got[0].Text != want {
			t.Errorf("blocked call's result %q, want %q", got[0].Text, want)
		}
		if provider == "anthropic" && !got[0].IsError {
			t.Error("the blocked call's result is not flagged is_error")
		}
		if got[1].Text != notes || got[1].IsError {
			t.Errorf("the other call's result %+v", got[1])
		}
		if res.ToolCalls[0].OK || !res.ToolCalls[1].OK {
			t.Errorf("tool calls %+v", res.ToolCalls)
		}
	})
}

// A model that never stops calling tools ends the run at max_turns: an
// *Error, after exactly that many model calls.
func TestMaxTurns(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			srv := modeltest.NewServer(t)
			srv.Respond(func(*modeltest.Request) modeltest.Turn {
				return modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}}}
			})
			f.on(t, "lead", provider, srv)
			_, a := f.open(t, "lead")
			res, err := f.run(ctxFor(t), a, "Read forever.", loop.Options{MaxTurns: 3})
			var le *loop.Error
			if !errors.As(err, &le) || le.Status != loop.StatusMaxTurns || res.Status != loop.StatusMaxTurns {
				t.Fatalf("err %v, status %s", err, res.Status)
			}
			if want := `agent lead: no answer after 3 turns (max_turns); raise max_turns or give a narrower task`; err.Error() != want || res.Error != want {
				t.Errorf("err %q, want %q", err, want)
			}
			if n := len(srv.Requests()); n != 3 || res.Turns != 3 || len(res.ToolCalls) != 3 {
				t.Errorf("%d requests, %d turns, %d calls; want 3", n, res.Turns, len(res.ToolCalls))
			}
			f.log.require(t, 1, loop.EventRun, "status", "max_turns", "turns", "3")
		})
	}
}

// agent__final_report ends the run with its content (or content_json) as
// the answer, without asking the model again; its status is the run's.
func TestFinalReport(t *testing.T) {
	for _, c := range []struct {
		name, args, answer string
		status             loop.Status
	}{
		{"success", `{"status":"success","content":"The notes say hello."}`, "The notes say hello.", loop.StatusCompleted},
		{"partial", `{"status":"partial","content":"Half done."}`, "Half done.", loop.StatusPartial},
		{"failure", `{"status":"failure","content":"The file is gone."}`, "The file is gone.", loop.StatusFailed},
		{"content_json", `{"status":"success","content_json":{"greeting":"hello"}}`, `{"greeting":"hello"}`, loop.StatusCompleted},
	} {
		for _, provider := range providers {
			t.Run(c.name+"/"+provider, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t)
				srv := modeltest.NewServer(t, modeltest.Turn{ToolCalls: []modeltest.Call{
					{Name: "read_file", Args: `{"path":"notes.txt"}`}, {Name: "agent__final_report", Args: c.args}}})
				f.on(t, "lead", provider, srv)
				_, a := f.open(t, "lead")
				res, err := f.run(ctxFor(t), a, "Report.", loop.Options{})
				if res.Answer != c.answer || res.Status != c.status || res.Turns != 1 || len(res.ToolCalls) != 2 {
					t.Errorf("result %+v", res)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d requests: the model was asked again after the final report", n)
				}
				var le *loop.Error
				if c.status == loop.StatusFailed {
					if !errors.As(err, &le) || le.Status != loop.StatusFailed || !strings.Contains(err.Error(), "reported failure: The file is gone.") {
						t.Errorf("err %v", err)
					}
				} else if err != nil {
					t.Errorf("err %v", err)
				}
			})
		}
	}
}

// A final report the runtime refuses is an error result like any other:
// the run goes on.
func TestRefusedFinalReportGoesOn(t *testing.T) {
	f := newFixture(t)
	srv := modeltest.NewServer(t,
		modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "agent__final_report", Args: `{"status":"done","content":"x"}`}}},
		modeltest.Turn{Text: "Done."},
	)
	f.on(t, "lead", "openai", srv)
	_, a := f.open(t, "lead")
	res, err := f.run(ctxFor(t), a, "Report.", loop.Options{})
	if err != nil || res.Answer != "Done." || res.Turns != 2 {
		t.Fatalf("result %+v, err %v", res, err)
	}
	if got := results(srv.Requests()[1]); len(got) != 1 || !strings.HasPrefix(got[0].Text, "error: ") || !strings.Contains(got[0].Text, "status") {
		t.Errorf("results %+v", got)
	}
}

// Cancelling the run during a tool call cancels the call (the tool sees
// its context end), starts no waiting call, and ends the run as cancelled.
func TestCancelDuringToolCall(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			srv := modeltest.NewServer(t, modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "hang", Args: `{}`}, {Name: "read_file", Args: `{"path":"notes.txt"}`}}})
			f.on(t, "lead", provider, srv)
			_, a := f.open(t, "lead")
			ctx, cancel := context.WithCancel(ctxFor(t))
			go func() {
				<-f.hung
				cancel()
			}()
			// One at a time: read_file waits for hang's slot, and once the
			// run is cancelled it never starts.
			res, err := f.run(ctx, a, "Hang.", loop.Options{Parallel: 1})
			if !errors.Is(err, context.Canceled) || res.Status != loop.StatusCancelled {
				t.Fatalf("err %v, status %s", err, res.Status)
			}
			<-f.hangSawCancel
			if res.Turns != 1 || len(srv.Requests()) != 1 || res.ToolCalls[0].OK || res.ToolCalls[1].OK {
				t.Errorf("result %+v", res)
			}
			if last := res.Messages[len(res.Messages)-1]; last.Text != "error: not run: context canceled" {
				t.Errorf("the waiting call's result %q", last.Text)
			}
			if !strings.Contains(res.Error, "cancelled after 1 turns") {
				t.Errorf("error %q", res.Error)
			}
		})
	}
}

// Cancelling the run while the model streams its answer ends the stream
// and the run.
func TestCancelDuringModelCall(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			srv := modeltest.NewServer(t, modeltest.Turn{Text: strings.Repeat("a long answer ", 40), Stall: true})
			f.on(t, "lead", provider, srv)
			_, a := f.open(t, "lead")
			ctx, cancel := context.WithCancel(ctxFor(t))
			go func() {
				<-srv.Stalled()
				cancel()
			}()
			res, err := f.run(ctx, a, "Talk.", loop.Options{Stream: true})
			if !errors.Is(err, context.Canceled) || res.Status != loop.StatusCancelled {
				t.Fatalf("err %v, status %s", err, res.Status)
			}
			srv.Close()
			if !srv.Requests()[0].ClientGone() {
				t.Error("the stream stayed open")
			}
			f.log.require(t, 1, loop.EventModelRequest, "status", "cancelled")
		})
	}
}

// A model that keeps failing (500, retried by the SDK) fails the run with
// the model's error.
func TestModelErrorFails(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			srv := modeltest.NewServer(t, modeltest.Turn{Text: "first turn is fine", ToolCalls: []modeltest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}}})
			srv.Respond(func(*modeltest.Request) modeltest.Turn {
				return modeltest.Turn{Status: 500, RetryAfter: "0", Message: "upstream exploded"}
			})
			f.on(t, "lead", provider, srv)
			_, a := f.open(t, "lead")
			res, err := f.run(ctxFor(t), a, "Go.", loop.Options{})
			var le *loop.Error
			var me *model.Error
			if !errors.As(err, &le) || le.Status != loop.StatusModelError || !errors.As(err, &me) || me.StatusCode != 500 {
				t.Fatalf("err %v", err)
			}
			want := "agent lead: model " + provider + "-model (" + provider + " test-model): 500 Internal Server Error: upstream exploded"
			if err.Error() != want {
				t.Errorf("err %q, want %q", err, want)
			}
			if n := len(srv.Requests()); n != 1+model.DefaultMaxRetries+1 || res.Turns != 2 {
				t.Errorf("%d requests, %d turns", n, res.Turns)
			}
			f.log.require(t, 1, loop.EventModelRequest, "status", "error", "turn", "2")
		})
	}
}

// The API key never reaches an error, an event or the printed result, even
// when the server quotes it back.
func TestKeysNeverLeak(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			srv := modeltest.NewServer(t)
			srv.RequireKey("sk-the-right-key-987654321") // the 401 quotes the key sent
			f.on(t, "lead", provider, srv)
			_, a := f.open(t, "lead")
			res, err := f.run(ctxFor(t), a, "Go.", loop.Options{})
			if err == nil || !strings.Contains(err.Error(), "401") {
				t.Fatalf("err %v", err)
			}
			out, _ := json.Marshal(res)
			for what, s := range map[string]string{"error": err.Error(), "result": string(out), "events": f.log.String()} {
				if strings.Contains(s, testKey) {
					t.Errorf("the key is in the %s: %s", what, s)
				}
			}
			if !strings.Contains(f.log.String(), "[redacted]") {
				t.Errorf("events do not show the scrubbed error:\n%s", f.log)
			}
		})
	}
}

// An agent without a model fails at once, saying what to do.
func TestNoModel(t *testing.T) {
	f := newFixture(t)
	_, a := f.open(t, "lead")
	res, err := f.run(ctxFor(t), a, "Go.", loop.Options{})
	var le *loop.Error
	if !errors.As(err, &le) || le.Status != loop.StatusNoModel || res.Turns != 0 || !strings.Contains(err.Error(), "agent lead: it has no model") {
		t.Fatalf("err %v, result %+v", err, res)
	}
}

// toolsetSpy records the Toolset of every request a model gets.
type toolsetSpy struct {
	model.Model
	mu   sync.Mutex
	sets []*model.Toolset
}

func (s *toolsetSpy) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	s.mu.Lock()
	s.sets = append(s.sets, req.Tools)
	s.mu.Unlock()
	return s.Model.Generate(ctx, req)
}

// The surface is converted once per change, not per turn: the same
// Toolset goes out until tool_load changes the surface, then a new one,
// which again holds for the following turns.
func TestToolsetOncePerSurface(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			srv := modeltest.NewServer(t,
				modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "tool_find", Args: `{"query":"read a text file"}`}}},
				modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "tool_load", Args: `{"names":["read_file"]}`}}},
				modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}}},
				modeltest.Turn{Text: "hello"},
			)
			f.on(t, "finder", provider, srv)
			spy := &toolsetSpy{Model: f.tm.models["finder"]}
			f.tm.models["finder"] = spy
			_, a := f.open(t, "finder")
			res, err := f.run(ctxFor(t), a, "Read notes.txt.", loop.Options{})
			if err != nil || res.Answer != "hello" {
				t.Fatalf("result %+v, err %v", res, err)
			}
			s := spy.sets
			if len(s) != 4 || s[0] != s[1] || s[1] == s[2] || s[2] != s[3] {
				t.Errorf("toolsets per turn %v: want A A B B", s)
			}
			reqs := srv.Requests()
			if has(toolNames(reqs[1]), "read_file") || !has(toolNames(reqs[2]), "read_file") {
				t.Errorf("tools before load %v, after %v", toolNames(reqs[1]), toolNames(reqs[2]))
			}
			if got := results(reqs[3]); got[len(got)-1].Text != notes {
				t.Errorf("read after load: %+v", got)
			}
		})
	}
}

// router__handoff-to switches the session, and the conversation goes on
// on the destination: its model (another provider), instructions and
// tools, with the whole conversation and the handoff's message.
func TestHandoffContinuesOnDestination(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			leadSrv := modeltest.NewServer(t, modeltest.Turn{Text: "Passing you on.", ToolCalls: []modeltest.Call{
				{Name: "router__handoff-to", Args: `{"agent":"support","message":"Refund order 42."}`}}})
			supportSrv := modeltest.NewServer(t,
				modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}}},
				modeltest.Turn{Text: "Order 42 is refunded."},
			)
			f.on(t, "lead", provider, leadSrv)
			f.on(t, "support", other(provider), supportSrv)
			sess, a := f.open(t, "lead")
			res, err := f.run(ctxFor(t), a, "I want my money back.", loop.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != "Order 42 is refunded." || res.Agent != "support" || res.Turns != 3 || sess.Agent() != "support" {
				t.Errorf("result %+v, session on %s", res, sess.Agent())
			}
			if res.ToolCalls[0].Agent != "lead" || res.ToolCalls[1].Agent != "support" {
				t.Errorf("tool calls %+v", res.ToolCalls)
			}
			reqs := supportSrv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("destination got %d requests", len(reqs))
			}
			first := reqs[0]
			if first.System != "You help customers." {
				t.Errorf("destination system %q", first.System)
			}
			if names := toolNames(first); !has(names, "read_file") || has(names, "router__handoff-to") || has(names, "agent__researcher") {
				t.Errorf("destination tools %v", names)
			}
			if m := first.Messages; m[0].Text != "I want my money back." || m[1].Text != "Passing you on." || len(m[1].ToolCalls) != 1 {
				t.Errorf("destination lacks the conversation so far: %+v", m)
			}
			if got := lastUserText(first); !strings.Contains(got, `Agent "lead" handed this conversation off to you (agent "support"). Its message: Refund order 42.`) {
				t.Errorf("handoff message %q", got)
			}
			if got := results(first); len(got) != 1 || got[0].IsError || !strings.Contains(got[0].Text, `"switched":true`) || !strings.Contains(got[0].Text, `now with agent \"support\"`) {
				t.Errorf("handoff result %+v", got)
			}
			f.log.require(t, 1, loop.EventHandoff, "from", "lead", "to", "support", "turn", "1")
			f.log.require(t, 1, loop.EventModelRequest, "agent", "support", "turn", "3", "model", other(provider)+"-model")
		})
	}
}

// A sub-agent runs its own loop on its own model (the other provider),
// reads a file, and its answer is the parent's tool result; its tokens
// are in the parent's usage and in the parent's turn event.
func TestSubagentUsageFlowsUp(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			leadSrv := modeltest.NewServer(t,
				modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "agent__researcher", Args: `{"prompt":"What does notes.txt say?"}`}}, Usage: modeltest.Usage{Input: 100, Output: 10}},
				modeltest.Turn{Text: "The researcher says: hello.", Usage: modeltest.Usage{Input: 200, Output: 20}},
			)
			researcherSrv := modeltest.NewServer(t,
				modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}}, Usage: modeltest.Usage{Input: 50, Output: 5}},
				modeltest.Turn{Text: "It says hello.", Usage: modeltest.Usage{Input: 60, Output: 6}},
			)
			f.on(t, "lead", provider, leadSrv)
			f.on(t, "researcher", other(provider), researcherSrv)
			_, a := f.open(t, "lead")
			res, err := f.run(ctxFor(t), a, "Ask the researcher.", loop.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if want := (model.Usage{InputTokens: 410, OutputTokens: 41}); res.Usage != want {
				t.Errorf("usage %+v, want %+v", res.Usage, want)
			}
			if got := results(leadSrv.Requests()[1]); len(got) != 1 || got[0].Text != "It says hello." {
				t.Errorf("sub-agent's answer as the lead's result: %+v", got)
			}
			rr := researcherSrv.Requests()
			if rr[0].System != "You read files and report what they say." || rr[0].Messages[0].Text != "What does notes.txt say?" {
				t.Errorf("researcher's first request: system %q, messages %+v", rr[0].System, rr[0].Messages)
			}
			if got := results(rr[1]); len(got) != 1 || got[0].Text != notes {
				t.Errorf("researcher's read: %+v", got)
			}
			f.log.require(t, 1, loop.EventTurn, "agent", "lead", "turn", "1", "tokens_in", "100", "subagent_tokens_in", "110", "subagent_tokens_out", "11")
			f.log.require(t, 1, loop.EventRun, "agent", "researcher", "status", "completed", "tokens_in", "110")
			f.log.require(t, 1, loop.EventRun, "agent", "lead", "status", "completed", "tokens_in", "410")
		})
	}
}

// spawn_agents runs children in parallel; one without a model fails, the
// call still returns both results, and the parent goes on.
func TestSpawnWithOneFailingChild(t *testing.T) {
	f := newFixture(t)
	leadSrv := modeltest.NewServer(t,
		modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "spawn_agents", Args: `{"agents":[{"agent":"researcher","prompt":"Read notes.txt."},{"agent":"support","prompt":"Help."}]}`}}},
		modeltest.Turn{Text: "One of two answered."},
	)
	researcherSrv := modeltest.NewServer(t, modeltest.Turn{Text: "It says hello.", Usage: modeltest.Usage{Input: 7, Output: 3}})
	f.on(t, "lead", "anthropic", leadSrv)
	f.on(t, "researcher", "openai", researcherSrv)
	_, a := f.open(t, "lead")
	res, err := f.run(ctxFor(t), a, "Fan out.", loop.Options{})
	if err != nil || res.Answer != "One of two answered." {
		t.Fatalf("result %+v, err %v", res, err)
	}
	got := results(leadSrv.Requests()[1])
	if len(got) != 1 || got[0].IsError {
		t.Fatalf("results %+v", got)
	}
	var spawned []struct {
		Agent, Result, Error string
		OK                   bool
	}
	if err := json.Unmarshal([]byte(got[0].Text), &spawned); err != nil {
		t.Fatalf("%v: %s", err, got[0].Text)
	}
	if len(spawned) != 2 || !spawned[0].OK || spawned[0].Result != "It says hello." ||
		spawned[1].OK || !strings.Contains(spawned[1].Error, "it has no model") {
		t.Errorf("spawned %+v", spawned)
	}
	if res.Usage.InputTokens != 10+7+10 {
		t.Errorf("usage %+v: the child's 7 tokens are not in", res.Usage)
	}
}

// A run continues an earlier conversation: the model gets it whole.
func TestContinueConversation(t *testing.T) {
	f := newFixture(t)
	srv := modeltest.NewServer(t,
		modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}}},
		modeltest.Turn{Text: "It says hello."},
		modeltest.Turn{Text: "You asked what the notes say."},
	)
	f.on(t, "lead", "anthropic", srv)
	_, a := f.open(t, "lead")
	first, err := f.run(ctxFor(t), a, "What do the notes say?", loop.Options{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.run(ctxFor(t), a, "What did I ask?", loop.Options{History: first.Messages})
	if err != nil || second.Answer != "You asked what the notes say." || second.Turns != 1 {
		t.Fatalf("result %+v, err %v", second, err)
	}
	last := srv.Requests()[2]
	if len(last.Messages) != 5 || last.Messages[0].Text != "What do the notes say?" || last.Messages[3].Text != "It says hello." || last.Messages[4].Text != "What did I ask?" {
		t.Errorf("continued conversation %+v", last.Messages)
	}
}

// The printed result is {answer, status, agent, turns, usage, tool_calls}.
func TestResultJSON(t *testing.T) {
	f := newFixture(t)
	srv := modeltest.NewServer(t,
		modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "read_file", Args: `{"path":"notes.txt"}`}}, Usage: modeltest.Usage{Input: 3, Output: 2}},
		modeltest.Turn{Text: "hello", Usage: modeltest.Usage{Input: 4, Output: 1}},
	)
	f.on(t, "lead", "openai", srv)
	_, a := f.open(t, "lead")
	res, err := f.run(ctxFor(t), a, "Read.", loop.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	json.Unmarshal(b, &got)
	calls := got["tool_calls"].([]any)
	call := calls[0].(map[string]any)
	if _, ok := call["latency_ms"].(float64); !ok {
		t.Errorf("tool call %v has no latency_ms", call)
	}
	delete(call, "latency_ms")
	want := map[string]any{
		"answer": "hello", "status": "completed", "agent": "lead", "turns": 2.0,
		"usage":      map[string]any{"input_tokens": 7.0, "output_tokens": 3.0, "cache_read_tokens": 0.0, "cache_write_tokens": 0.0},
		"tool_calls": []any{map[string]any{"name": "read_file", "agent": "lead", "turn": 1.0, "ok": true}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

// A tool no provider accepts (name over 64 bytes, a schema that is not an
// object) is left out with an event; the run goes on with the rest.
func TestUnsendableToolsAreSkipped(t *testing.T) {
	f := newFixture(t)
	srv := modeltest.NewServer(t, modeltest.Turn{Text: "fine"})
	f.on(t, "odd", "anthropic", srv)
	_, a := f.open(t, "odd")
	res, err := f.run(ctxFor(t), a, "Go.", loop.Options{})
	if err != nil || res.Answer != "fine" {
		t.Fatalf("result %+v, err %v", res, err)
	}
	names := toolNames(srv.Requests()[0])
	if !has(names, "read_file") || has(names, "odd") || has(names, longName) {
		t.Errorf("tools sent %v", names)
	}
	f.log.require(t, 1, loop.EventToolSkipped, "agent", "odd", "tool", "odd")
	f.log.require(t, 1, loop.EventToolSkipped, "agent", "odd", "tool", longName)
}
