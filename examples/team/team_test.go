package main_test

// The team binary end to end: the binary built from examples/team (the
// generated registry of a spec with model blocks), run with the `run` and
// `serve` commands users type, against modeltest (a real HTTP server on
// loopback speaking the OpenAI and Anthropic wire formats) through the
// official SDKs. The scripts answer by whom they talk to: each agent's
// system prompt is its own, so parallel sub-agents are told apart.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/generated/team"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
	"github.com/toolgen-dev/toolgen/internal/testbin"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/serve"
)

// hang bounds waits that only catch hangs; no assertion is tighter.
const hang = 60 * time.Second

var (
	teamBin string // the built binary
	root    string // the repository root: the binary's working directory
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m, "team", &teamBin, &root)) }

const testKey = "sk-test-TEAMKEY-0123456789abcdef"

// The first words of each agent's instructions (examples/team/spec).
const (
	leadPrompt   = "You lead a small team."
	readerPrompt = "You read files of the team workspace"
	writerPrompt = "You write short, plain release notes"
)

const notesPath = "examples/team/workspace/notes.md"

// provider is one of the two ways the team runs: the lead's agent name and
// the environment that points its model at the server.
type provider struct {
	name   string
	lead   string
	reader string
	// model is the spec's default model name; modelEnv the variable that
	// overrides it (name = env(modelEnv, model)).
	model, modelEnv string
}

var providers = []provider{
	{name: "openai", lead: "lead", reader: "reader", model: "gpt-4.1-mini", modelEnv: "OPENAI_MODEL"},
	{name: "anthropic", lead: "lead_claude", reader: "reader_claude", model: "claude-sonnet-4-5", modelEnv: "ANTHROPIC_MODEL"},
}

// env is the binary's environment: nothing of the test process's but PATH,
// and both providers pointed at srv.
func env(srv *modeltest.Server, extra ...string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.TempDir(),
		"TOOLGEN_LOG=warn",
		"OPENAI_BASE_URL=" + srv.OpenAIBaseURL(),
		"OPENAI_API_KEY=" + testKey,
		"ANTHROPIC_BASE_URL=" + srv.AnthropicBaseURL(),
		"ANTHROPIC_API_KEY=" + testKey,
	}, extra...)
}

type ran struct {
	stdout, stderr string
	code           int
}

// runTeam runs the team binary to its end.
func runTeam(t *testing.T, environ []string, args ...string) ran {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cmd := exec.CommandContext(ctx, teamBin, args...)
	cmd.Dir, cmd.Env = root, environ
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := ran{stdout: out.String(), stderr: errb.String(), code: cmd.ProcessState.ExitCode()}
	if err != nil && r.code < 0 {
		t.Fatalf("team %v: %v\nstderr: %s", args, err, r.stderr)
	}
	return r
}

// who says which agent a request comes from.
func who(req *modeltest.Request) string {
	switch {
	case strings.HasPrefix(req.System, leadPrompt):
		return "lead"
	case strings.HasPrefix(req.System, readerPrompt):
		return "reader"
	case strings.HasPrefix(req.System, writerPrompt):
		return "writer"
	}
	return "unknown: " + req.System
}

// lastResults are the tool results of the request's last message.
func lastResults(req *modeltest.Request) []modeltest.Result {
	var out []modeltest.Result
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if len(m.Results) == 0 {
			break
		}
		out = append(m.Results, out...)
	}
	return out
}

func firstUser(req *modeltest.Request) string {
	for _, m := range req.Messages {
		if m.Role == "user" && m.Text != "" {
			return m.Text
		}
	}
	return ""
}

// readerScript is the reader: read the notes, then report them.
func readerScript(req *modeltest.Request) modeltest.Turn {
	res := lastResults(req)
	if len(res) == 0 {
		return modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "read_file", Args: `{"path":"` + notesPath + `"}`}},
			Usage: modeltest.Usage{Input: 100, Output: 7}}
	}
	if !strings.Contains(res[0].Text, "planned for Friday") {
		return modeltest.Turn{Text: "the file did not reach me: " + res[0].Text, Usage: modeltest.Usage{Input: 100, Output: 7}}
	}
	return modeltest.Turn{Text: "The notes say the release is planned for Friday.", Usage: modeltest.Usage{Input: 100, Output: 7}}
}

type runJSON struct {
	Answer string `json:"answer"`
	Status string `json:"status"`
	Agent  string `json:"agent"`
	Turns  int    `json:"turns"`
	Usage  struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
	ToolCalls []struct {
		Name  string `json:"name"`
		Agent string `json:"agent"`
		OK    bool   `json:"ok"`
	} `json:"tool_calls"`
	Error string `json:"error"`
}

func decodeRun(t *testing.T, r ran) runJSON {
	t.Helper()
	var out runJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--json output: %v\n%s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return out
}

// The lead delegates to the reader, which reads a file with its builtin
// tool; the answer comes back through both, on each provider. Usage is
// summed over the lead's and the reader's turns.
func TestLeadDelegatesToReader(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.NewServer(t)
			srv.RequireKey(testKey)
			srv.Respond(func(req *modeltest.Request) modeltest.Turn {
				switch who(req) {
				case "reader":
					return readerScript(req)
				case "lead":
					res := lastResults(req)
					if len(res) == 0 {
						return modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "agent__" + p.reader, Args: `{"prompt":"What do the release notes say?"}`}},
							Usage: modeltest.Usage{Input: 100, Output: 7}}
					}
					return modeltest.Turn{Text: "Friday. (" + res[0].Text + ")", Usage: modeltest.Usage{Input: 100, Output: 7}}
				}
				return modeltest.Turn{Status: 400, Message: "unexpected " + who(req)}
			})
			r := runTeam(t, env(srv), "run", "--agent", p.lead, "--json", "When is the release?")
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			got := decodeRun(t, r)
			want := "Friday. (The notes say the release is planned for Friday.)"
			if got.Answer != want || got.Status != "completed" || got.Agent != p.lead || got.Turns != 2 {
				t.Errorf("result %+v", got)
			}
			// Four model calls of 100 in and 7 out: the lead's two and the reader's two.
			if got.Usage.InputTokens != 400 || got.Usage.OutputTokens != 28 {
				t.Errorf("usage %+v, want 400 in and 28 out (the sub-agent's included)", got.Usage)
			}
			if len(got.ToolCalls) != 1 || got.ToolCalls[0].Name != "agent__"+p.reader || !got.ToolCalls[0].OK {
				t.Errorf("tool calls %+v", got.ToolCalls)
			}
			reqs := srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d model requests, want 4", len(reqs))
			}
			for _, req := range reqs {
				if req.Format != p.name || !req.HasKey(testKey) {
					t.Errorf("request to %s without the key", req.Format)
				}
				if req.Model != p.model {
					t.Errorf("model %q, want the spec's default %q", req.Model, p.model)
				}
				var tools []string
				for _, tl := range req.Tools {
					tools = append(tools, tl.Name)
				}
				switch who(req) {
				case "reader":
					// list_files is in use but not allowed: never offered.
					if all := "," + strings.Join(tools, ",") + ","; !strings.Contains(all, ",read_file,") || strings.Contains(all, "list_files") {
						t.Errorf("reader's tools %v", tools)
					}
				case "lead":
					if !strings.Contains(strings.Join(tools, ","), "agent__"+p.reader) {
						t.Errorf("lead's tools %v", tools)
					}
				}
			}

			// Without --json: the answer alone on stdout. The model is the
			// one the environment names (Ollama's "qwen3", say).
			srv2 := modeltest.NewServer(t)
			srv2.Respond(func(req *modeltest.Request) modeltest.Turn {
				if who(req) == "reader" {
					return readerScript(req)
				}
				if len(lastResults(req)) == 0 {
					return modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "agent__" + p.reader, Args: `{"prompt":"read"}`}}}
				}
				return modeltest.Turn{Text: "Friday."}
			})
			r = runTeam(t, env(srv2, p.modelEnv+"=qwen3"), "run", "--agent", p.lead, "When is the release?")
			if r.code != 0 || r.stdout != "Friday.\n" {
				t.Errorf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
			}
			for _, req := range srv2.Requests() {
				if req.Model != "qwen3" {
					t.Errorf("model %q, want qwen3 from %s", req.Model, p.modelEnv)
				}
			}
		})
	}
}

// The prompt can come from stdin.
func TestRunPromptFromStdin(t *testing.T) {
	srv := modeltest.NewServer(t)
	srv.Respond(func(req *modeltest.Request) modeltest.Turn {
		return modeltest.Turn{Text: "you said: " + firstUser(req)}
	})
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cmd := exec.CommandContext(ctx, teamBin, "run", "--agent", "writer")
	cmd.Dir, cmd.Env = root, env(srv)
	cmd.Stdin = strings.NewReader("notes from stdin")
	out, err := cmd.Output()
	if err != nil || string(out) != "you said: notes from stdin\n" {
		t.Errorf("stdout %q, err %v", out, err)
	}
}

// spawn_agents runs two readers in parallel; one fails (its model answers
// 400) and the call still succeeds with one result per child.
func TestSpawnWithOneFailingChild(t *testing.T) {
	srv := modeltest.NewServer(t)
	var leadSaw sync.Map
	srv.Respond(func(req *modeltest.Request) modeltest.Turn {
		switch who(req) {
		case "reader":
			if strings.Contains(firstUser(req), "fail") {
				return modeltest.Turn{Status: 400, Message: "this reader's request is refused"}
			}
			return readerScript(req)
		case "lead":
			res := lastResults(req)
			if len(res) == 0 {
				return modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "spawn_agents",
					Args: `{"agents":[{"agent":"reader","prompt":"read the notes"},{"agent":"reader","prompt":"fail, please"}]}`}}}
			}
			leadSaw.Store("result", res[0])
			return modeltest.Turn{Text: "one of two readers answered"}
		}
		return modeltest.Turn{Status: 400, Message: "unexpected"}
	})
	r := runTeam(t, env(srv), "run", "--agent", "lead", "--json", "Read the notes twice.")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	got := decodeRun(t, r)
	if got.Answer != "one of two readers answered" || len(got.ToolCalls) != 1 || !got.ToolCalls[0].OK {
		t.Errorf("result %+v", got)
	}
	v, _ := leadSaw.Load("result")
	res, _ := v.(modeltest.Result)
	var children []struct {
		Agent, Result, Error string
		OK                   bool
	}
	if err := json.Unmarshal([]byte(res.Text), &children); err != nil || res.IsError {
		t.Fatalf("spawn result %+v: %v", res, err)
	}
	if len(children) != 2 || !children[0].OK || !strings.Contains(children[0].Result, "Friday") ||
		children[1].OK || !strings.Contains(children[1].Error, "400") || !strings.Contains(children[1].Error, "refused") {
		t.Errorf("children %+v", children)
	}
}

// router__handoff-to in run: the writer continues the conversation, with
// what the lead's user asked and the lead's message.
func TestHandoffInRun(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			t.Parallel()
			srv := modeltest.NewServer(t)
			var writerReq sync.Map
			srv.Respond(func(req *modeltest.Request) modeltest.Turn {
				switch who(req) {
				case "lead":
					return modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "router__handoff-to", Args: `{"agent":"writer","message":"keep it short"}`}}}
				case "writer":
					writerReq.Store("req", req)
					return modeltest.Turn{Text: "Release notes: Friday."}
				}
				return modeltest.Turn{Status: 400, Message: "unexpected"}
			})
			args := []string{"run", "--agent", "lead", "--json", "Write the release notes."}
			if stream {
				args = append(args, "--stream")
			}
			r := runTeam(t, env(srv), args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			got := decodeRun(t, r)
			if got.Answer != "Release notes: Friday." || got.Agent != "writer" || got.Turns != 2 {
				t.Errorf("result %+v", got)
			}
			v, ok := writerReq.Load("req")
			if !ok {
				t.Fatal("the writer was never asked")
			}
			req := v.(*modeltest.Request)
			var texts []string
			for _, m := range req.Messages {
				texts = append(texts, m.Text)
			}
			all := strings.Join(texts, "\n")
			if firstUser(req) != "Write the release notes." || !strings.Contains(all, "keep it short") || !strings.Contains(all, `"lead" handed this conversation off`) {
				t.Errorf("the writer got %q", all)
			}
			for _, tl := range req.Tools {
				if tl.Name == "router__handoff-to" || tl.Name == "agent__reader" {
					t.Errorf("the writer was offered the lead's tool %s", tl.Name)
				}
			}
		})
	}
}

// connect serves agent over stdio from the binary to a go-sdk client.
func connect(t *testing.T, srv *modeltest.Server, agent string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(teamBin, "serve", "--agent", agent)
	cmd.Dir, cmd.Env = root, env(srv)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, opts).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	return out
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// Under serve, an MCP host's agent__reader runs the reader on its model and
// returns its answer; router__handoff-to switches the served session, the
// host gets tools/list_changed and then lists the writer's tools.
func TestServeSubagentAndHandoff(t *testing.T) {
	srv := modeltest.NewServer(t)
	srv.Respond(func(req *modeltest.Request) modeltest.Turn {
		if who(req) == "reader" {
			return readerScript(req)
		}
		return modeltest.Turn{Status: 400, Message: "unexpected"}
	})
	changed := make(chan struct{}, 8)
	cs := connect(t, srv, "lead", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	// The host receives the lead's instructions at initialize.
	if in := cs.InitializeResult().Instructions; !strings.HasPrefix(in, leadPrompt) {
		t.Errorf("instructions the host got: %q", in)
	}
	before := toolNames(t, cs)
	if !strings.Contains(strings.Join(before, ","), "router__handoff-to") {
		t.Fatalf("lead's tools %v", before)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "agent__reader", Arguments: map[string]any{"prompt": "What do the notes say?"}})
	if err != nil || res.IsError || text(res) != "The notes say the release is planned for Friday." {
		t.Fatalf("agent__reader: %q (error %v, %v)", text(res), res != nil && res.IsError, err)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "router__handoff-to", Arguments: map[string]any{"agent": "writer", "message": "over to you"}})
	if err != nil || res.IsError || !strings.Contains(text(res), `"switched":true`) || !strings.Contains(text(res), `now with agent \"writer\"`) {
		t.Fatalf("handoff: %q (%v)", text(res), err)
	}
	select {
	case <-changed:
	case <-time.After(hang):
		t.Fatal("no tools/list_changed after the handoff")
	}
	after := toolNames(t, cs)
	for _, n := range after {
		if n == "router__handoff-to" || n == "agent__reader" {
			t.Errorf("after the handoff the host still lists %s: %v", n, after)
		}
	}
}

// max_turns: a model that never answers ends the run with exit 1 and the reason.
func TestMaxTurns(t *testing.T) {
	srv := modeltest.NewServer(t)
	srv.Respond(func(*modeltest.Request) modeltest.Turn {
		return modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "read_file", Args: `{"path":"` + notesPath + `"}`}}}
	})
	r := runTeam(t, env(srv), "run", "--agent", "reader", "--max-turns", "2", "Read forever.")
	if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "agent reader: no answer after 2 turns (max_turns)") {
		t.Errorf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2", n)
	}
	r = runTeam(t, env(srv), "run", "--agent", "reader", "--json", "--max-turns", "1", "Read forever.")
	if got := decodeRun(t, r); r.code != 1 || got.Status != "max_turns" || got.Turns != 1 || !strings.Contains(got.Error, "max_turns") {
		t.Errorf("exit %d, %+v", r.code, got)
	}
}

// A tool the agent may not call is blocked; the model reads why and goes on.
func TestBlockedToolLoopGoesOn(t *testing.T) {
	srv := modeltest.NewServer(t)
	var blocked sync.Map
	srv.Respond(func(req *modeltest.Request) modeltest.Turn {
		res := lastResults(req)
		if len(res) == 0 {
			return modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "list_files", Args: `{"args":["-la"]}`}}}
		}
		blocked.Store("result", res[0])
		return modeltest.Turn{Text: "I may not list files."}
	})
	r := runTeam(t, env(srv), "run", "--agent", "reader", "--json", "List the workspace.")
	got := decodeRun(t, r)
	if r.code != 0 || got.Answer != "I may not list files." || len(got.ToolCalls) != 1 || got.ToolCalls[0].OK {
		t.Errorf("exit %d, %+v", r.code, got)
	}
	v, _ := blocked.Load("result")
	if res, _ := v.(modeltest.Result); !strings.Contains(res.Text, `"list_files" not allowed for agent "reader"`) {
		t.Errorf("the model read %+v", res)
	}
}

// SIGINT while the model streams: the run stops promptly, exit 1, and the
// model's connection is closed.
func TestCancellation(t *testing.T) {
	srv := modeltest.NewServer(t, modeltest.Turn{Stall: true})
	cmd := exec.Command(teamBin, "run", "--agent", "writer", "--stream", "Write forever.")
	cmd.Dir, cmd.Env = root, env(srv)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var req *modeltest.Request
	select {
	case req = <-srv.Stalled():
	case <-time.After(hang):
		cmd.Process.Kill()
		t.Fatal("the model was never asked")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(hang):
		cmd.Process.Kill()
		t.Fatal("the run did not stop on SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "cancel") {
		t.Errorf("exit %d, stderr %s", code, stderr.String())
	}
	deadline := time.Now().Add(hang)
	for !req.ClientGone() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !req.ClientGone() {
		t.Error("the model's stream was left open")
	}
}

// A wrong key: the server's 401 quotes it, and it appears nowhere the
// binary writes, debug logs included.
func TestKeysRedacted(t *testing.T) {
	srv := modeltest.NewServer(t)
	srv.RequireKey("the-right-key-0123456789")
	environ := env(srv, "TOOLGEN_LOG=debug")
	for _, args := range [][]string{
		{"run", "--agent", "lead", "hello"},
		{"run", "--agent", "lead_claude", "--json", "hello"},
	} {
		r := runTeam(t, environ, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "401") {
			t.Errorf("%v: exit %d, stderr %s", args, r.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, testKey) || strings.Contains(r.stdout+r.stderr, "TEAMKEY") {
			t.Errorf("%v: the key leaked:\nstdout: %s\nstderr: %s", args, r.stdout, r.stderr)
		}
	}
	if len(srv.Requests()) == 0 {
		t.Fatal("no request reached the server")
	}
}

// A key that is not set fails the run with the variable's name, before
// any request.
func TestMissingKey(t *testing.T) {
	srv := modeltest.NewServer(t)
	var environ []string
	for _, kv := range env(srv) {
		if !strings.HasPrefix(kv, "OPENAI_API_KEY=") {
			environ = append(environ, kv)
		}
	}
	r := runTeam(t, environ, "run", "--agent", "lead", "hello")
	if r.code != 1 || !strings.Contains(r.stderr, "agent lead: model gpt: api_key: environment variable OPENAI_API_KEY is not set") {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests without a key", n)
	}
}

// A sub-agent without a model, under a host that samples with tools: the
// reader's loop runs on the host's model through sampling/createMessage,
// reads the file through the session and answers the host's call. The
// session is the generated team registry with the reader's model taken
// away, served by serve.New to a go-sdk client over in-memory transports.
func TestSubagentOnHostModel(t *testing.T) {
	reg := *team.Registry
	reg.Defaults.Model = ""
	reg.Agents = append(reg.Agents[:0:0], reg.Agents...)
	for i := range reg.Agents {
		if reg.Agents[i].Name == "reader" {
			reg.Agents[i].Model = ""
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	sess, err := runtime.Open(ctx, &reg, "lead", runtime.Options{Workdir: root, SpillDir: t.TempDir(),
		Getenv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	server := serve.New(sess, serve.Options{})
	defer server.Close()

	var mu sync.Mutex
	var asked []*mcp.CreateMessageWithToolsParams
	sample := func(_ context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req.Params)
		if len(asked) == 1 {
			return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "host-model", StopReason: "toolUse",
				Content: []mcp.Content{&mcp.ToolUseContent{ID: "u1", Name: "read_file", Input: map[string]any{"path": notesPath}}}}, nil
		}
		last := req.Params.Messages[len(req.Params.Messages)-1]
		tr, _ := last.Content[0].(*mcp.ToolResultContent)
		if tr == nil || tr.IsError || !strings.Contains(tr.Content[0].(*mcp.TextContent).Text, "planned for Friday") {
			return nil, fmt.Errorf("the file did not reach the host's model: %+v", last.Content[0])
		}
		return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "host-model", StopReason: "endTurn",
			Content: []mcp.Content{&mcp.TextContent{Text: "Friday, says the host's model."}}}, nil
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{CreateMessageWithToolsHandler: sample}).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "agent__reader", Arguments: map[string]any{"prompt": "What do the notes say?"}})
	if err != nil || res.IsError || text(res) != "Friday, says the host's model." {
		t.Fatalf("agent__reader: %q (%v)", text(res), err)
	}
	var offered []string
	for _, tl := range asked[0].Tools {
		offered = append(offered, tl.Name)
	}
	if all := "," + strings.Join(offered, ",") + ","; len(asked) != 2 || !strings.HasPrefix(asked[0].SystemPrompt, readerPrompt) ||
		!strings.Contains(all, ",read_file,") || strings.Contains(all, "list_files") {
		t.Errorf("the host was asked %d times; first: system %q, tools %v", len(asked), asked[0].SystemPrompt, offered)
	}
}
