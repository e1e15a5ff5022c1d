package model_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
)

const testKey = "sk-test-SECRET-0123456789"

var providers = []string{"openai", "anthropic"}

// newModel points the real SDK of provider at srv.
func newModel(t *testing.T, provider string, srv *modeltest.Server, edit ...func(*model.Config)) model.Model {
	t.Helper()
	cfg := model.Config{Label: "fast", Provider: provider, Name: "test-model", APIKey: testKey}
	if provider == "openai" {
		cfg.BaseURL = srv.OpenAIBaseURL()
	} else {
		cfg.BaseURL = srv.AnthropicBaseURL()
	}
	for _, e := range edit {
		e(&cfg)
	}
	m, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// eachProvider runs f for both providers, plain and streamed.
func eachProvider(t *testing.T, f func(t *testing.T, provider string, stream bool)) {
	for _, p := range providers {
		for _, stream := range []bool{false, true} {
			name := p
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				f(t, p, stream)
			})
		}
	}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func userSays(text string) []model.Message { return []model.Message{{Role: model.User, Text: text}} }

func TestText(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string, stream bool) {
		srv := modeltest.NewServer(t, modeltest.Turn{Text: "Hello there, how can I help? ünïcödé ✓", Usage: modeltest.Usage{Input: 21, Output: 9}})
		srv.RequireKey(testKey)
		m := newModel(t, provider, srv)
		resp, err := m.Generate(ctxFor(t), &model.Request{System: "Be brief.", Messages: userSays("hi"), Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "Hello there, how can I help? ünïcödé ✓" || resp.Role != model.Assistant {
			t.Errorf("answer = %q (%s)", resp.Text, resp.Role)
		}
		if resp.StopReason != model.StopEnd || len(resp.ToolCalls) != 0 {
			t.Errorf("stop = %q, calls = %v", resp.StopReason, resp.ToolCalls)
		}
		if want := (model.Usage{InputTokens: 21, OutputTokens: 9}); resp.Usage != want {
			t.Errorf("usage = %+v, want %+v", resp.Usage, want)
		}
		if resp.Latency <= 0 {
			t.Errorf("latency = %v", resp.Latency)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests, want 1", len(reqs))
		}
		r := reqs[0]
		if r.Format != provider || r.Model != "test-model" || r.Stream != stream || r.System != "Be brief." {
			t.Errorf("request: format %s model %q stream %v system %q", r.Format, r.Model, r.Stream, r.System)
		}
		if !r.HasKey(testKey) {
			t.Error("the request did not carry the key")
		}
		if got := r.Header.Get("Authorization") + r.Header.Get("X-Api-Key"); strings.Contains(got, testKey) {
			t.Error("the recorded header holds the key")
		}
		if diff := cmp.Diff([]modeltest.Message{{Role: "user", Text: "hi"}}, r.Messages, ignoreBlocks); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
		if provider == "openai" && r.IncludeUsage != stream {
			t.Errorf("include_usage = %v, want %v", r.IncludeUsage, stream)
		}
		if provider == "anthropic" && r.MaxTokens != model.DefaultAnthropicMaxTokens {
			t.Errorf("max_tokens = %d, want the default %d", r.MaxTokens, model.DefaultAnthropicMaxTokens)
		}
	})
}

var ignoreBlocks = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Blocks" }, cmp.Ignore())

// surface is a tool surface whose schemas hold characters a JSON encoder
// likes to escape, to show they go out as written.
func surface(t testing.TB, n int) (*model.Toolset, []model.Tool) {
	tools := make([]model.Tool, n)
	for i := range tools {
		tools[i] = model.Tool{
			Name:        fmt.Sprintf("tool_%02d", i),
			Description: fmt.Sprintf("Tool %d reads <things> & reports them.", i),
			InputSchema: json.RawMessage(fmt.Sprintf(`{
				"type": "object",
				"required": ["path"],
				"properties": {"path": {"type": "string", "description": "a path like <dir>/f%d & more"},
				               "limit": {"type": "integer", "minimum": 1}}}`, i)),
		}
	}
	ts, err := model.NewToolset(tools)
	if err != nil {
		t.Fatal(err)
	}
	return ts, tools
}

func compact(t testing.TB, raw json.RawMessage) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestToolCalls(t *testing.T) {
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d_calls", n), func(t *testing.T) {
			eachProvider(t, func(t *testing.T, provider string, stream bool) {
				calls := make([]modeltest.Call, n)
				for i := range calls {
					calls[i] = modeltest.Call{Name: fmt.Sprintf("tool_%02d", i), Args: fmt.Sprintf(`{"path":"dir/file-%d.txt","limit":%d}`, i, i+1)}
				}
				srv := modeltest.NewServer(t, modeltest.Turn{Text: "Let me look.", ToolCalls: calls})
				ts, tools := surface(t, 5)
				m := newModel(t, provider, srv)
				resp, err := m.Generate(ctxFor(t), &model.Request{Messages: userSays("read them"), Tools: ts, Stream: stream})
				if err != nil {
					t.Fatal(err)
				}
				if resp.StopReason != model.StopToolUse || resp.Text != "Let me look." {
					t.Errorf("stop = %q, text = %q", resp.StopReason, resp.Text)
				}
				if len(resp.ToolCalls) != n {
					t.Fatalf("%d calls, want %d together: %+v", len(resp.ToolCalls), n, resp.ToolCalls)
				}
				ids := map[string]bool{}
				for i, c := range resp.ToolCalls {
					if c.Name != calls[i].Name || !jsonEqual(c.Args, calls[i].Args) || c.ID == "" || ids[c.ID] {
						t.Errorf("call %d = %+v, want %s %s with a unique ID", i, c, calls[i].Name, calls[i].Args)
					}
					ids[c.ID] = true
				}
				// The tools went out as declared, schemas byte for byte
				// (compacted; <, > and & not escaped).
				r := srv.Requests()[0]
				if len(r.Tools) != len(tools) {
					t.Fatalf("%d tools sent, want %d", len(r.Tools), len(tools))
				}
				for i, tool := range tools {
					got := r.Tools[i]
					if got.Name != tool.Name || got.Description != tool.Description || !bytes.Equal(got.Schema, compact(t, tool.InputSchema)) {
						t.Errorf("tool %d sent as %s %q %s", i, got.Name, got.Description, got.Schema)
					}
				}
			})
		})
	}
}

func jsonEqual(a json.RawMessage, b string) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal([]byte(b), &y) == nil && cmp.Equal(x, y)
}

// A conversation: the model calls two tools at once, gets their results
// (one failed) and answers. On Anthropic the first answer opens with a
// thinking block, which the server accepts back only unchanged.
func TestConversationRoundTrip(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string, stream bool) {
		srv := modeltest.NewServer(t,
			modeltest.Turn{
				Thinking:  "The user wants two files; read both at once.",
				Text:      "Reading both.",
				ToolCalls: []modeltest.Call{{Name: "tool_00", Args: `{"path":"a"}`}, {Name: "tool_01", Args: `{"path":"b"}`}},
			},
			modeltest.Turn{Text: "a says hi; b is missing."},
		)
		ts, _ := surface(t, 2)
		m := newModel(t, provider, srv)
		ctx := ctxFor(t)
		msgs := userSays("what do a and b say?")
		resp, err := m.Generate(ctx, &model.Request{System: "You read files.", Messages: msgs, Tools: ts, Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, resp.Message,
			model.NewToolResult(resp.ToolCalls[0].ID, "hi", false),
			model.NewToolResult(resp.ToolCalls[1].ID, "no such file: b", true),
		)
		final, err := m.Generate(ctx, &model.Request{System: "You read files.", Messages: msgs, Tools: ts, Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		if final.Text != "a says hi; b is missing." || final.StopReason != model.StopEnd {
			t.Errorf("final = %q (%s)", final.Text, final.StopReason)
		}

		second := srv.Requests()[1]
		ids := []string{resp.ToolCalls[0].ID, resp.ToolCalls[1].ID}
		assistant := modeltest.Message{Role: "assistant", Text: "Reading both.", ToolCalls: []modeltest.Call{
			{ID: ids[0], Name: "tool_00", Args: `{"path":"a"}`}, {ID: ids[1], Name: "tool_01", Args: `{"path":"b"}`},
		}}
		var want []modeltest.Message
		if provider == "openai" {
			// One tool message per result; OpenAI has no error flag.
			want = []modeltest.Message{{Role: "user", Text: "what do a and b say?"}, assistant,
				{Role: "tool", Text: "hi", Results: []modeltest.Result{{CallID: ids[0], Text: "hi"}}},
				{Role: "tool", Text: "no such file: b", Results: []modeltest.Result{{CallID: ids[1], Text: "no such file: b"}}},
			}
		} else {
			// Both results in the one user message after the calls.
			want = []modeltest.Message{{Role: "user", Text: "what do a and b say?"}, assistant,
				{Role: "user", Results: []modeltest.Result{{CallID: ids[0], Text: "hi"}, {CallID: ids[1], Text: "no such file: b", IsError: true}}},
			}
		}
		if diff := cmp.Diff(want, second.Messages, ignoreBlocks); diff != "" {
			t.Errorf("second request's messages (-want +got):\n%s", diff)
		}
		if provider == "anthropic" {
			blocks := second.Messages[1].Blocks
			var first struct{ Type, Thinking, Signature string }
			if len(blocks) != 4 || json.Unmarshal(blocks[0], &first) != nil || first.Type != "thinking" ||
				first.Thinking != "The user wants two files; read both at once." || first.Signature == "" {
				t.Errorf("the assistant's blocks did not go back as received: %s", blocks)
			}
		}
	})
}

// A conversation started on one provider continues on the other (a handoff
// to an agent with another model): the history is rebuilt from the text and
// calls, without the first provider's own form.
func TestHistoryCrossesProviders(t *testing.T) {
	for _, pair := range [][2]string{{"openai", "anthropic"}, {"anthropic", "openai"}} {
		t.Run(pair[0]+"_to_"+pair[1], func(t *testing.T) {
			srv := modeltest.NewServer(t,
				modeltest.Turn{Thinking: "only for anthropic", ToolCalls: []modeltest.Call{{Name: "tool_00", Args: `{"path":"a"}`}}},
				modeltest.Turn{Text: "done"},
			)
			ts, _ := surface(t, 1)
			ctx := ctxFor(t)
			msgs := userSays("go")
			first, err := newModel(t, pair[0], srv).Generate(ctx, &model.Request{Messages: msgs, Tools: ts})
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, first.Message, model.Message{Role: model.ToolResult, ToolCallID: first.ToolCalls[0].ID, Text: "ok"})
			final, err := newModel(t, pair[1], srv).Generate(ctx, &model.Request{Messages: msgs, Tools: ts})
			if err != nil {
				t.Fatal(err)
			}
			if final.Text != "done" {
				t.Errorf("final = %q", final.Text)
			}
			got := srv.Requests()[1].Messages[1].ToolCalls
			if len(got) != 1 || got[0].ID != first.ToolCalls[0].ID || !jsonEqual(json.RawMessage(got[0].Args), `{"path":"a"}`) {
				t.Errorf("the call went over as %+v", got)
			}
		})
	}
}

const answerSchema = `{"type":"object","properties":{"queries":{"type":"array","items":{"type":"string"}}},"required":["queries"],"additionalProperties":false}`

func TestStructuredOutput(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string, stream bool) {
		srv := modeltest.NewServer(t,
			modeltest.Turn{JSON: `{"queries":["remember a person","store a fact"]}`, Usage: modeltest.Usage{Input: 40, Output: 12}},
			modeltest.Turn{JSON: `{"queries":["cut off`, StopReason: map[string]string{"openai": "length", "anthropic": "max_tokens"}[provider]},
		)
		m := newModel(t, provider, srv)
		ts, _ := surface(t, 2) // declared for the history; not to be called
		req := &model.Request{Messages: userSays("write queries"), Tools: ts, JSONSchema: json.RawMessage(answerSchema), Stream: stream}
		resp, err := m.Generate(ctxFor(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(resp.JSON, `{"queries":["remember a person","store a fact"]}`) || len(resp.ToolCalls) != 0 || resp.StopReason != model.StopEnd {
			t.Errorf("JSON = %s, calls = %v, stop = %q", resp.JSON, resp.ToolCalls, resp.StopReason)
		}
		r := srv.Requests()[0]
		if r.JSONName != "answer" || !bytes.Equal(r.JSONSchema, []byte(answerSchema)) {
			t.Errorf("structured output asked as %q %s", r.JSONName, r.JSONSchema)
		}
		wantChoice := map[string]string{"openai": `"none"`, "anthropic": `{"type":"tool","name":"answer"}`}[provider]
		if !jsonEqual(r.ToolChoice, wantChoice) {
			t.Errorf("tool_choice = %s, want %s", r.ToolChoice, wantChoice)
		}

		// A cut-off answer is an error, and the usage still counts.
		resp, err = m.Generate(ctxFor(t), req)
		var merr *model.Error
		if !errors.As(err, &merr) || !strings.Contains(err.Error(), "not valid JSON (stop reason max_tokens)") {
			t.Fatalf("err = %v, want invalid JSON", err)
		}
		if resp == nil || resp.Usage.OutputTokens == 0 || resp.JSON != nil {
			t.Errorf("response with the error = %+v", resp)
		}
	})
}

func TestRetryAfterThenSuccess(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string, stream bool) {
		srv := modeltest.NewServer(t,
			modeltest.Turn{Status: 429, RetryAfter: "1", Message: "slow down"},
			modeltest.Turn{Text: "ok"},
		)
		resp, err := newModel(t, provider, srv).Generate(ctxFor(t), &model.Request{Messages: userSays("hi"), Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		if resp.Text != "ok" || len(reqs) != 2 {
			t.Fatalf("answer %q after %d requests, want ok after 2", resp.Text, len(reqs))
		}
		// Retry-After was honoured: the SDK's own first backoff is under 0.5s.
		if gap := reqs[1].Received.Sub(reqs[0].Received); gap < time.Second {
			t.Errorf("retried after %v, before the server's Retry-After of 1s", gap)
		}
		if resp.Latency < time.Second {
			t.Errorf("latency %v leaves out the wait", resp.Latency)
		}
	})
}

func TestRetriesAreBounded(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string, stream bool) {
		for _, retries := range []*int{nil, ptr(0), ptr(1)} {
			want := model.DefaultMaxRetries + 1
			name := "default"
			if retries != nil {
				want = *retries + 1
				name = fmt.Sprint(*retries)
			}
			t.Run(name, func(t *testing.T) {
				srv := modeltest.NewServer(t)
				srv.Respond(func(*modeltest.Request) modeltest.Turn {
					return modeltest.Turn{Status: 500, RetryAfter: "0", Message: "upstream exploded"}
				})
				m := newModel(t, provider, srv, func(c *model.Config) { c.MaxRetries = retries })
				_, err := m.Generate(ctxFor(t), &model.Request{Messages: userSays("hi"), Stream: stream})
				if err == nil || !strings.Contains(err.Error(), "500 Internal Server Error: upstream exploded") {
					t.Fatalf("err = %v", err)
				}
				if n := len(srv.Requests()); n != want {
					t.Errorf("%d requests, want %d", n, want)
				}
			})
		}
	})
}

func ptr[T any](v T) *T { return &v }

// A Retry-After beyond MaxRetryAfter ends the call at once instead of
// waiting an hour.
func TestLongRetryAfterIsNotWaited(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.NewServer(t, modeltest.Turn{Status: 429, RetryAfter: "3600", Message: "quota exhausted"})
			_, err := newModel(t, provider, srv).Generate(ctxFor(t), &model.Request{Messages: userSays("hi")})
			if err == nil || !strings.Contains(err.Error(), "429 Too Many Requests: quota exhausted") {
				t.Fatalf("err = %v", err)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// The server's 401 quotes the key it got; the error must not.
func TestErrorsHideTheKey(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string, stream bool) {
		srv := modeltest.NewServer(t)
		srv.RequireKey("the-right-key")
		m := newModel(t, provider, srv, func(c *model.Config) { c.Headers = map[string]string{"X-Proxy-Token": "proxy-SECRET-77"} })
		_, err := m.Generate(ctxFor(t), &model.Request{Messages: userSays("hi"), Stream: stream})
		want := fmt.Sprintf("model fast (%s test-model): 401 Unauthorized: Incorrect API key provided: [redacted]", provider)
		if err == nil || err.Error() != want {
			t.Fatalf("err = %v\nwant  %s", err, want)
		}
		for _, form := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			if strings.Contains(form, testKey) {
				t.Errorf("the key leaks: %s", form)
			}
		}
		var merr *model.Error
		if !errors.As(err, &merr) || merr.StatusCode != 401 {
			t.Errorf("err is %T with status %v", err, merr)
		}
		// The SDK's error holds the request, key included: it is not kept.
		var openaiErr *openai.Error
		var anthropicErr *anthropic.Error
		if errors.As(err, &openaiErr) || errors.As(err, &anthropicErr) {
			t.Error("the SDK's error (with the request's headers) can be unwrapped")
		}

		// A header value the server echoes is scrubbed too.
		srv.RequireKey("")
		srv.Push(modeltest.Turn{Status: 400, Message: "bad proxy token proxy-SECRET-77"})
		_, err = m.Generate(ctxFor(t), &model.Request{Messages: userSays("hi"), Stream: stream})
		if err == nil || strings.Contains(err.Error(), "proxy-SECRET-77") || !strings.Contains(err.Error(), "400 Bad Request: bad proxy token [redacted]") {
			t.Errorf("err = %v", err)
		}
	})
}

// A key that sits in the URL (some proxies want it there) is scrubbed from
// the 404 that quotes the path, and the error says what base_url should be.
func TestKeyInURLAndBaseURLHint(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.NewServer(t)
			const key = "k-SECRET-in-path"
			m := newModel(t, provider, srv, func(c *model.Config) { c.APIKey = key; c.BaseURL = srv.URL + "/" + key + "/v1" })
			_, err := m.Generate(ctxFor(t), &model.Request{Messages: userSays("hi")})
			if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "404 Not Found") || !strings.Contains(err.Error(), "check base_url") {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func TestCancelStopsStream(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.NewServer(t, modeltest.Turn{Text: strings.Repeat("a long answer ", 50), Stall: true})
			m := newModel(t, provider, srv)
			ctx, cancel := context.WithCancel(ctxFor(t))
			done := make(chan error, 1)
			go func() {
				_, err := m.Generate(ctx, &model.Request{Messages: userSays("talk"), Stream: true})
				done <- err
			}()
			<-srv.Stalled() // the answer has started
			cancel()
			err := <-done
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "model fast") {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			srv.Close() // waits for the handler
			if !srv.Requests()[0].ClientGone() {
				t.Error("the client kept the stream open after cancelling")
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests: a cancelled call was retried", n)
			}
		})
	}
}

func TestBrokenStreams(t *testing.T) {
	for _, provider := range providers {
		for _, c := range []struct {
			name string
			turn modeltest.Turn
			want string
		}{
			{"cut", modeltest.Turn{Text: "half an answer", Cut: true}, "the stream ended before the answer was complete"},
			{"error_event", modeltest.Turn{Text: "half an answer", StreamError: "Overloaded"}, "error in the stream: Overloaded"},
		} {
			t.Run(provider+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				srv := modeltest.NewServer(t, c.turn)
				_, err := newModel(t, provider, srv).Generate(ctxFor(t), &model.Request{Messages: userSays("hi"), Stream: true})
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "model fast ("+provider) {
					t.Errorf("err = %v, want %q", err, c.want)
				}
			})
		}
	}
}

func TestUsageSums(t *testing.T) {
	eachProvider(t, func(t *testing.T, provider string, stream bool) {
		srv := modeltest.NewServer(t,
			modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "tool_00", Args: `{}`}}, Usage: modeltest.Usage{Input: 100, Output: 20, CacheWrite: 900}},
			modeltest.Turn{Text: "done", Usage: modeltest.Usage{Input: 30, Output: 7, CacheRead: 1000}},
		)
		ts, _ := surface(t, 1)
		m := newModel(t, provider, srv)
		msgs := userSays("go")
		var total model.Usage
		first, err := m.Generate(ctxFor(t), &model.Request{Messages: msgs, Tools: ts, Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		total.Add(first.Usage)
		msgs = append(msgs, first.Message, model.Message{Role: model.ToolResult, ToolCallID: first.ToolCalls[0].ID, Text: "ok"})
		second, err := m.Generate(ctxFor(t), &model.Request{Messages: msgs, Tools: ts, Stream: stream})
		if err != nil {
			t.Fatal(err)
		}
		total.Add(second.Usage)
		// Input counts cached tokens too; OpenAI reports no cache writes.
		want := model.Usage{InputTokens: 1000 + 1030, OutputTokens: 27, CacheReadTokens: 1000, CacheWriteTokens: 900}
		if provider == "openai" {
			want.CacheWriteTokens = 0
		}
		if total != want {
			t.Errorf("total = %+v, want %+v", total, want)
		}
	})
}

// Anthropic: cache breakpoints after the tools, the system prompt and the
// last message, within the API's limit of four.
func TestAnthropicCacheBreakpoints(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "tool_00", Args: `{}`}}}, modeltest.Turn{Text: "done"})
	ts, _ := surface(t, 20)
	m := newModel(t, "anthropic", srv)
	msgs := []model.Message{model.NewUserMessage("go")}
	first, err := m.Generate(ctxFor(t), &model.Request{System: "sys", Messages: msgs, Tools: ts})
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, first.Message, model.NewToolResult(first.ToolCalls[0].ID, "ok", false))
	if _, err := m.Generate(ctxFor(t), &model.Request{System: "sys", Messages: msgs, Tools: ts}); err != nil {
		t.Fatal(err)
	}
	for i, r := range srv.Requests() {
		if r.CacheBreakpoints != 3 {
			t.Errorf("request %d has %d cache breakpoints, want 3", i, r.CacheBreakpoints)
		}
	}
}

// Anthropic's SDK refuses a plain request whose max_tokens could take over
// ten minutes; such a model streams even when the request does not ask.
func TestAnthropicLargeMaxTokensStreams(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Turn{Text: "ok"})
	m := newModel(t, "anthropic", srv, func(c *model.Config) { c.MaxTokens = 64000 })
	resp, err := m.Generate(ctxFor(t), &model.Request{Messages: userSays("hi")})
	if err != nil || resp.Text != "ok" {
		t.Fatalf("resp = %+v, err = %v", resp, err)
	}
	if r := srv.Requests()[0]; !r.Stream || r.MaxTokens != 64000 {
		t.Errorf("stream = %v, max_tokens = %d", r.Stream, r.MaxTokens)
	}
}

func TestConfigSent(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.NewServer(t, modeltest.Turn{Text: "ok"})
			m := newModel(t, provider, srv, func(c *model.Config) {
				c.MaxTokens = 321
				c.Temperature = ptr(0.25)
				c.Headers = map[string]string{"X-Team": "agents"}
			})
			if _, err := m.Generate(ctxFor(t), &model.Request{Messages: userSays("hi")}); err != nil {
				t.Fatal(err)
			}
			r := srv.Requests()[0]
			if r.MaxTokens != 321 || r.Temperature == nil || *r.Temperature != 0.25 || r.Header.Get("X-Team") != "agents" {
				t.Errorf("max_tokens %d, temperature %v, X-Team %q", r.MaxTokens, r.Temperature, r.Header.Get("X-Team"))
			}
			if provider == "openai" && !bytes.Contains(r.Body, []byte(`"max_completion_tokens":321`)) {
				t.Errorf("max tokens not sent as max_completion_tokens: %s", r.Body)
			}
		})
	}
}

func TestTimeoutPerAttempt(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.NewServer(t, modeltest.Turn{Text: "late", Delay: time.Minute})
			m := newModel(t, provider, srv, func(c *model.Config) { c.Timeout = 200 * time.Millisecond; c.MaxRetries = ptr(0) })
			_, err := m.Generate(ctxFor(t), &model.Request{Messages: userSays("hi")})
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after 200ms") {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func TestNewRejects(t *testing.T) {
	for _, c := range []struct {
		cfg  model.Config
		want string
	}{
		{model.Config{Label: "x", Provider: "gemini", Name: "g"}, `model x (gemini g): unknown provider "gemini"; known providers: anthropic, openai`},
		{model.Config{Label: "x", Provider: "openai"}, `model x (openai): no model name`},
		{model.Config{Provider: "openai", Name: "m", MaxRetries: ptr(-1)}, `model (openai m): max_retries must not be negative, got -1`},
	} {
		if _, err := model.New(c.cfg); err == nil || err.Error() != c.want {
			t.Errorf("New(%+v) = %v, want %s", c.cfg, err, c.want)
		}
	}
}

func TestNewToolsetRejects(t *testing.T) {
	for _, c := range []struct {
		tools []model.Tool
		want  string
	}{
		{[]model.Tool{{Name: "get.file"}}, `tool "get.file": a name must be 1 to 64 letters, digits, '_' or '-'`},
		{[]model.Tool{{Name: "a"}, {Name: "a"}}, `tool "a" is listed twice`},
		{[]model.Tool{{Name: "a", InputSchema: json.RawMessage(`{"type":"string"}`)}}, `tool "a": input schema: "type" is string; both providers need "object"`},
		{[]model.Tool{{Name: "a", InputSchema: json.RawMessage(`[1]`)}}, `tool "a": input schema: not a JSON object`},
		{[]model.Tool{{Name: "a", InputSchema: json.RawMessage(`{"type":`)}}, `tool "a": input schema: unexpected end of JSON input`},
	} {
		if _, err := model.NewToolset(c.tools); err == nil || err.Error() != c.want {
			t.Errorf("NewToolset(%+v) = %v, want %s", c.tools, err, c.want)
		}
	}
	// An absent schema is an object with no properties.
	srv := modeltest.NewServer(t, modeltest.Turn{Text: "ok"})
	ts, err := model.NewToolset([]model.Tool{{Name: "ping"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range providers {
		if _, err := newModel(t, p, srv).Generate(ctxFor(t), &model.Request{Messages: userSays("hi"), Tools: ts}); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		srv.Push(modeltest.Turn{Text: "ok"})
	}
}
