package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/store"
	_ "github.com/toolgen-dev/toolgen/runtime/store/redis"
	"github.com/toolgen-dev/toolgen/runtime/store/redis/redistest"
)

// stores runs fn on the process's Memory and on a real redis-server (two
// clients of it: two replicas).
func stores(t *testing.T, fn func(t *testing.T, a, b store.Store)) {
	t.Run("memory", func(t *testing.T) {
		m := store.NewMemory()
		fn(t, m, m)
	})
	t.Run("redis", func(t *testing.T) {
		srv := redistest.Start(t)
		open := func() store.Store {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			st, err := store.Open(ctx, srv.URL(), func(string) (string, bool) { return "", false })
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}
		fn(t, open(), open())
	})
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func getStatus(t *testing.T, b *Board, id string) *Record {
	t.Helper()
	r, err := b.Get(context.Background(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A task created through one replica is asked, answered, cancelled and
// read through the other.
func TestBoardAcrossReplicas(t *testing.T) {
	stores(t, func(t *testing.T, sa, sb store.Store) {
		ctx := context.Background()
		a, b := NewBoard(sa, 0), NewBoard(sb, 0)
		rec, err := a.Create(ctx, "", time.Minute, time.Second)
		mustDo(t, err)
		if r := getStatus(t, b, rec.ID); r.Status != Working || r.TTL != 60000 || r.Poll != 1000 {
			t.Fatalf("new task through the other replica = %+v; want working, ttl 60000, poll 1000", r)
		}
		if _, err := b.Get(ctx, rec.ID, "mallory"); !errors.Is(err, ErrUnknown) {
			t.Errorf("another caller's Get: %v; want ErrUnknown", err)
		}
		if _, err := b.Get(ctx, "nope", ""); !errors.Is(err, ErrUnknown) {
			t.Errorf("unknown id: %v; want ErrUnknown", err)
		}
		mustDo(t, a.Ask(ctx, rec.ID, "q-1", json.RawMessage(`{"method":"elicitation/create"}`)))
		mustDo(t, a.Ask(ctx, rec.ID, "q-2", json.RawMessage(`{"method":"elicitation/create"}`)))
		mustDo(t, b.Answer(ctx, rec.ID, "", map[string]json.RawMessage{"q-1": json.RawMessage(`{"action":"accept"}`), "zz": json.RawMessage(`1`)}))
		r, err := b.Get(ctx, rec.ID, "")
		mustDo(t, err)
		if r.Status != InputRequired || len(r.Asks) != 1 || r.Asks["q-2"] == nil {
			t.Fatalf("after a partial answer: %s %v; want input_required with q-2 alone", r.Status, r.Asks)
		}
		mustDo(t, b.Answer(ctx, rec.ID, "", map[string]json.RawMessage{"q-2": json.RawMessage(`{"action":"decline"}`)}))
		if r := getStatus(t, a, rec.ID); r.Status != Working || len(r.Asks) != 0 {
			t.Fatalf("all answered: %s %v; want working, no questions", r.Status, r.Asks)
		}
		sets, err := a.Answers(ctx, rec.ID)
		mustDo(t, err)
		if len(sets) != 2 || string(sets[0]["q-1"]) != `{"action":"accept"}` || sets[0]["zz"] != nil {
			t.Fatalf("answers the owner reads = %v", sets)
		}
		mustDo(t, b.Cancel(ctx, rec.ID, ""))
		if c, err := a.Cancelled(ctx, rec.ID); err != nil || !c {
			t.Fatalf("cancel flag through the owner: %v %v", c, err)
		}
		mustDo(t, a.Complete(ctx, rec.ID, json.RawMessage(`{"content":[]}`)))
		if r := getStatus(t, b, rec.ID); r.Status != Cancelled {
			t.Fatalf("completed after cancel: %s; want cancelled to stay", r.Status)
		}
		mustDo(t, b.Cancel(ctx, rec.ID, "")) // terminal: no error
	})
}

func TestBoardResult(t *testing.T) {
	stores(t, func(t *testing.T, sa, sb store.Store) {
		ctx := context.Background()
		a, b := NewBoard(sa, 0), NewBoard(sb, 0)
		rec, err := a.Create(ctx, "", time.Minute, time.Second)
		mustDo(t, err)
		mustDo(t, a.Complete(ctx, rec.ID, json.RawMessage(`{"content":[{"type":"text","text":"done"}]}`)))
		if r := getStatus(t, b, rec.ID); r.Status != Completed {
			t.Fatalf("status %s; want completed", r.Status)
		}
		res, err := b.Result(ctx, rec.ID)
		mustDo(t, err)
		if string(res) != `{"content":[{"type":"text","text":"done"}]}` {
			t.Fatalf("result = %s", res)
		}
	})
}

// A task whose owner stopped renewing its lease (its replica died) reads
// as failed, never as unknown or forever working.
func TestBoardLapsedLeaseFails(t *testing.T) {
	stores(t, func(t *testing.T, sa, sb store.Store) {
		ctx := context.Background()
		a, b := NewBoard(sa, 200*time.Millisecond), NewBoard(sb, 0)
		rec, err := a.Create(ctx, "", time.Minute, time.Second)
		mustDo(t, err)
		deadline := time.Now().Add(10 * time.Second)
		for {
			r := getStatus(t, b, rec.ID)
			if r.Status == Failed {
				if r.Error == nil || r.Error.Code != codeInternal {
					t.Fatalf("failed without an internal error: %+v", r.Error)
				}
				return
			}
			if r.Status != Working || time.Now().After(deadline) {
				t.Fatalf("status %s; want working, then failed once the lease lapses", r.Status)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func noHold(context.CancelFunc) func() { return func() {} }

func waitStatus(t *testing.T, b *Board, id string, want Status) *Record {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := getStatus(t, b, id)
		if r.Status == want {
			return r
		}
		if r.Status.Terminal() || time.Now().After(deadline) {
			t.Fatalf("task %s is %s; want %s", id, r.Status, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A run on one replica asks its host, gets the answer given through the
// other, and completes; another run is cancelled through the other.
func TestRunAnsweredAndCancelledElsewhere(t *testing.T) {
	stores(t, func(t *testing.T, sa, sb store.Store) {
		ctx := context.Background()
		a, b := NewBoard(sa, 0), NewBoard(sb, 0)
		caps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}
		rec, err := a.Create(ctx, "", time.Minute, time.Second)
		mustDo(t, err)
		run := start(a, rec, caps, func(ctx context.Context, c mcpconn.Caller) (*mcp.CallToolResult, error) {
			res, err := c.Elicit(ctx, &mcp.ElicitParams{Message: "name?"})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hi " + res.Content["name"].(string)}}}, nil
		}, noHold, slog.New(slog.DiscardHandler))
		r := waitStatus(t, b, rec.ID, InputRequired)
		var key string
		for k := range r.Asks {
			key = k
		}
		mustDo(t, b.Answer(ctx, rec.ID, "", map[string]json.RawMessage{key: json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`)}))
		waitStatus(t, b, rec.ID, Completed)
		<-run.ended
		res, err := b.Result(ctx, rec.ID)
		mustDo(t, err)
		if !json.Valid(res) || !contains(string(res), "hi Ada") {
			t.Fatalf("result = %s", res)
		}

		rec2, err := a.Create(ctx, "", time.Minute, time.Second)
		mustDo(t, err)
		stopped := make(chan error, 1)
		run2 := start(a, rec2, caps, func(ctx context.Context, c mcpconn.Caller) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			stopped <- context.Cause(ctx)
			return nil, ctx.Err()
		}, noHold, slog.New(slog.DiscardHandler))
		mustDo(t, b.Cancel(ctx, rec2.ID, ""))
		if cause := <-stopped; !errors.Is(cause, errCancelled) {
			t.Fatalf("run stopped by %v; want the host's cancel", cause)
		}
		<-run2.ended
		if r := getStatus(t, a, rec2.ID); r.Status != Cancelled {
			t.Fatalf("status %s; want cancelled", r.Status)
		}
	})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
