package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// preparedModel answers from prepared responses: a call to one tool for
// the first n requests, then a text. It costs nothing, so a benchmark of
// Session.Run measures the loop and the runtime around it. It records the
// Toolsets it was sent.
type preparedModel struct {
	n        int
	call     *model.Response
	answer   *model.Response
	asked    int
	toolsets map[*model.Toolset]bool
}

func newPreparedModel(n int, tool string) *preparedModel {
	return &preparedModel{n: n, toolsets: map[*model.Toolset]bool{},
		call: &model.Response{Message: model.Message{Role: model.Assistant,
			ToolCalls: []model.ToolCall{{ID: "c1", Name: tool, Args: json.RawMessage(`{}`)}}}, StopReason: model.StopToolUse},
		answer: &model.Response{Message: model.Message{Role: model.Assistant, Text: "done"}, StopReason: model.StopEnd}}
}

func (p *preparedModel) Generate(_ context.Context, req *model.Request) (*model.Response, error) {
	p.toolsets[req.Tools] = true
	p.asked++
	if p.asked <= p.n {
		return p.call, nil
	}
	return p.answer, nil
}

// runBenchSession is an agent of 20 in-process Go tools whose model is m.
func runBenchSession(tb testing.TB, m model.Model, log *slog.Logger) *Session {
	object := json.RawMessage(`{"type":"object","properties":{}}`)
	reg := &Registry{Separator: "__", Defaults: decl.Defaults{MaxDepth: 2}, Models: []decl.Model{{Name: "prepared", Provider: "openai", ModelName: decl.Value{{Lit: "x"}}}}}
	var uses []decl.Use
	for i := range 20 {
		name := fmt.Sprintf("tool%02d", i)
		reg.Tools = append(reg.Tools, decl.Tool{Name: name, Kind: decl.KindGo, Description: "A tool.", InputSchema: object,
			Go: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`"ok"`), nil }})
		uses = append(uses, decl.Use{Kind: decl.UseTool, Name: name})
	}
	reg.Agents = []decl.Agent{{Name: "bench", Use: uses, Model: "prepared"}}
	ms := newModels(reg, nil)
	ms.made["prepared"] = modelOrErr{m: m}
	s, err := Open(context.Background(), reg, "bench", Options{Logger: log, models: ms})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// turnsPerRun: 19 turns with a tool call, then the answer (max_turns' default is 20).
const turnsPerRun = 20

// Session.Run converts the surface for the model once, not once per turn.
func TestRunConvertsSurfaceOnce(t *testing.T) {
	m := newPreparedModel(turnsPerRun-1, "tool07")
	s := runBenchSession(t, m, slog.New(slog.DiscardHandler))
	res, err := s.Run(context.Background(), "go", RunOptions{})
	if err != nil || res.Turns != turnsPerRun || res.Answer != "done" || len(res.ToolCalls) != turnsPerRun-1 {
		t.Fatalf("result %+v, err %v", res, err)
	}
	if len(m.toolsets) != 1 {
		t.Errorf("%d Toolsets for one surface over %d turns", len(m.toolsets), turnsPerRun)
	}
}

// BenchmarkRunTurn is the cost per turn of Session.Run without the model:
// one call to an in-process tool per turn, 20 tools on the surface. One op
// is a run of 20 turns; ns/turn is the figure. "quiet" drops the events,
// "events" writes them as JSON (to io.Discard).
func BenchmarkRunTurn(b *testing.B) {
	for _, c := range []struct {
		name string
		log  *slog.Logger
	}{
		{"quiet", slog.New(slog.DiscardHandler)},
		{"events", slog.New(slog.NewJSONHandler(io.Discard, nil))},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := newPreparedModel(turnsPerRun-1, "tool07")
			s := runBenchSession(b, m, c.log)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				m.asked = 0
				clear(m.toolsets)
				res, err := s.Run(ctx, "go", RunOptions{})
				if err != nil || res.Turns != turnsPerRun || len(m.toolsets) != 1 {
					b.Fatalf("result %+v, err %v, %d Toolsets for one surface", res, err, len(m.toolsets))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turnsPerRun), "ns/turn")
		})
	}
}

// BenchmarkRunTurnBaseline is what any loop must do for the same run,
// written out by hand: convert the surface once, then per turn the model
// call, Session.Call and the result message. The difference to
// BenchmarkRunTurn is the loop's own cost.
func BenchmarkRunTurnBaseline(b *testing.B) {
	m := newPreparedModel(turnsPerRun-1, "tool07")
	s := runBenchSession(b, m, slog.New(slog.DiscardHandler))
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
