package serve

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

// A call of a stateless-revision host is only held by its server while it
// runs: it has no name, no timer and no place in the table of parked
// calls until it asks something. Once it asks it is parked, findable by
// the request state its host got, and forgotten when it ends.
func TestRoundParksOnlyWhenItAsks(t *testing.T) {
	rs := newRounds(nil, nil)
	defer rs.close()
	var held parkedCalls
	parkedNow := func() int {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		return len(rs.byID)
	}

	release := make(chan struct{})
	r := rs.start(func(ctx context.Context) (mcp.Result, error) {
		<-release
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	}, nil, nil, &held)
	r.mu.Lock()
	id, timer := r.id, r.timer
	r.mu.Unlock()
	if id != "" || timer != nil || parkedNow() != 0 {
		t.Fatalf("a running call that asked nothing: id %q, timer %v, %d parked", id, timer != nil, parkedNow())
	}
	idle := make(chan struct{})
	held.whenIdle(func() { close(idle) })
	select {
	case <-idle:
		t.Fatal("the session was let go while its call runs")
	default:
	}
	close(release)
	res, err := rs.wait(context.Background(), r)
	if tr, ok := res.(typedResult); err != nil || !ok || tr.resultType != "complete" {
		t.Fatalf("wait = %#v, %v", res, err)
	}
	select {
	case <-idle:
	case <-time.After(10 * time.Second):
		t.Fatal("the session was not let go after its call ended")
	}

	caps := &mcp.InitializeParams{Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}}
	r = rs.start(func(ctx context.Context) (mcp.Result, error) {
		got, err := mcpconn.CallerFrom(ctx).Elicit(ctx, &mcp.ElicitParams{Message: "Your name?"})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: got.Content["name"].(string)}}}, nil
	}, nil, caps, &held)
	res, err = rs.wait(context.Background(), r)
	tr, ok := res.(typedResult)
	if err != nil || !ok || tr.asks == nil || len(tr.asks.InputRequests) != 1 {
		t.Fatalf("wait = %#v, %v; want an input-required round", res, err)
	}
	stateID, _, err := rs.verify(tr.asks.RequestState)
	if err != nil || rs.get(stateID) != r || parkedNow() != 1 {
		t.Fatalf("after asking: state %q (%v), get = %p, %d parked; want the call", tr.asks.RequestState, err, rs.get(stateID), parkedNow())
	}
	if err := r.answer(mcp.InputResponseMap{"elicitation-1": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}); err != nil {
		t.Fatal(err)
	}
	res, err = rs.wait(context.Background(), r)
	if tr, ok := res.(typedResult); err != nil || !ok || tr.resultType != "complete" {
		t.Fatalf("wait after the answer = %#v, %v", res, err)
	}
	if rs.get(stateID) != nil || parkedNow() != 0 {
		t.Fatal("an ended call stays parked")
	}
}

// close ends a call that is running and has asked nothing yet too.
func TestRoundsCloseEndsRunningCalls(t *testing.T) {
	rs := newRounds(nil, nil)
	var held parkedCalls
	r := rs.start(func(ctx context.Context) (mcp.Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, nil, nil, &held)
	closed := make(chan struct{})
	go func() { rs.close(); close(closed) }()
	if _, err := rs.wait(context.Background(), r); err == nil {
		t.Error("a call cut off by close succeeded")
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("close did not return")
	}
}
