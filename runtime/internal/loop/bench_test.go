package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/loop"
)

// prepared is an in-process model that answers from prepared responses:
// a call to one tool for the first n requests, then a text. It costs
// nothing, so a benchmark measures the loop. It counts the Toolsets it
// was sent.
type prepared struct {
	n        int
	call     *model.Response
	answer   *model.Response
	asked    int
	toolsets map[*model.Toolset]bool
}

func newPrepared(n int, tool string) *prepared {
	return &prepared{n: n, toolsets: map[*model.Toolset]bool{},
		call: &model.Response{Message: model.Message{Role: model.Assistant,
			ToolCalls: []model.ToolCall{{ID: "c1", Name: tool, Args: json.RawMessage(`{}`)}}}, StopReason: model.StopToolUse},
		answer: &model.Response{Message: model.Message{Role: model.Assistant, Text: "done"}, StopReason: model.StopEnd}}
}

func (p *prepared) Generate(_ context.Context, req *model.Request) (*model.Response, error) {
	p.toolsets[req.Tools] = true
	p.asked++
	if p.asked <= p.n {
		return p.call, nil
	}
	return p.answer, nil
}

// benchSession is an agent of 20 in-process Go tools.
func benchSession(b *testing.B) *runtime.Session {
	object := json.RawMessage(`{"type":"object","properties":{}}`)
	reg := &runtime.Registry{Separator: "__", Defaults: decl.Defaults{MaxDepth: 2}}
	var uses []decl.Use
	for i := range 20 {
		name := fmt.Sprintf("tool%02d", i)
		reg.Tools = append(reg.Tools, decl.Tool{Name: name, Kind: decl.KindGo, Description: "A tool.", InputSchema: object,
			Go: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`"ok"`), nil }})
		uses = append(uses, decl.Use{Kind: decl.UseTool, Name: name})
	}
	reg.Agents = []decl.Agent{{Name: "bench", Use: uses}}
	s, err := runtime.Open(context.Background(), reg, "bench", runtime.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// turnsPerRun is the length of each benchmarked run: 19 turns with a tool
// call, then the answer (max_turns' default is 20).
const turnsPerRun = 20

// BenchmarkLoopTurn is the loop's cost per turn without the model: one
// tool call to an in-process tool per turn, 20 tools on the surface. One
// op is a run of 20 turns (converting the surface once, as a run does);
// ns/turn is the figure. "quiet" drops the events, "events" writes them as
// JSON (to io.Discard).
func BenchmarkLoopTurn(b *testing.B) {
	for _, c := range []struct {
		name string
		log  *slog.Logger
	}{
		{"quiet", slog.New(slog.DiscardHandler)},
		{"events", slog.New(slog.NewJSONHandler(io.Discard, nil))},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := benchSession(b)
			m := newPrepared(turnsPerRun-1, "tool07")
			tm := &team{models: map[string]model.Model{"bench": m}, labels: map[string]string{"bench": "prepared"}}
			a := tm.agent(s)
			defer a.Close()
			ctx := context.Background()
			opts := loop.Options{MaxTurns: turnsPerRun, Logger: c.log}
			b.ReportAllocs()
			for b.Loop() {
				m.asked = 0
				clear(m.toolsets)
				res, err := loop.Run(ctx, a, "go", opts)
				if err != nil || res.Turns != turnsPerRun || len(m.toolsets) != 1 {
					b.Fatalf("result %+v, err %v, %d Toolsets for one surface", res, err, len(m.toolsets))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turnsPerRun), "ns/turn")
		})
	}
}

// BenchmarkLoopTurnBaseline is what any loop must do for the same run,
// written out by hand: convert the surface once, then per turn the model
// call, Session.Call and the result message. The difference to
// BenchmarkLoopTurn is the loop's own cost.
func BenchmarkLoopTurnBaseline(b *testing.B) {
	s := benchSession(b)
	m := newPrepared(turnsPerRun-1, "tool07")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m.asked = 0
		infos := s.Tools()
		tools := make([]model.Tool, len(infos))
		for i, t := range infos {
			tools[i] = model.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		}
		ts, err := model.NewToolset(tools)
		if err != nil {
			b.Fatal(err)
		}
		msgs := make([]model.Message, 0, 2*turnsPerRun)
		msgs = append(msgs, model.NewUserMessage("go"))
		for {
			resp, _ := m.Generate(ctx, &model.Request{Messages: msgs, Tools: ts})
			msgs = append(msgs, resp.Message)
			if len(resp.ToolCalls) == 0 {
				break
			}
			c := resp.ToolCalls[0]
			r := s.Call(ctx, c.Name, c.Args)
			msgs = append(msgs, model.NewToolResult(c.ID, r.Result, !r.OK))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turnsPerRun), "ns/turn")
}
