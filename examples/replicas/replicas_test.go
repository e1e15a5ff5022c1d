package main

import (
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime/store/redis/redistest"
)

// A go-sdk client through HAProxy: initialize, list and call land on
// different replicas (round robin, no stickiness) and all work, because
// serve --store serves stateless HTTP.
func TestFleetToolCalls(t *testing.T) {
	srv := redistest.Start(t)
	f := startFleet(t, 3, nil, "--store", srv.URL())
	ctx := withTimeout(t, time.Minute)
	c := mcp.NewClient(&mcp.Implementation{Name: "fleet-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + f.lb + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 6 { // echo, report, wait, ask, job, output_read
		t.Fatalf("tools/list through the balancer: %v %v", tools, err)
	}
	seen := map[string]bool{}
	for i := range 6 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": fmt.Sprint("hi ", i)}})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		_, rep, _ := strings.Cut(text, "(replica ")
		seen[strings.TrimSuffix(rep, ")")] = true
	}
	if len(seen) != 3 {
		t.Errorf("6 calls reached replicas %v; want all 3 (round robin)", seen)
	}
	// A report spilled on one replica, paged through the others.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "report", Arguments: map[string]any{"lines": 400}})
	if err != nil || res.IsError {
		t.Fatalf("report: %v %+v", err, res)
	}
	if !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"handle":"out-`) {
		t.Fatalf("report did not spill to the store: %+v", res.Content[0])
	}
}

// output_read of a handle made on another replica: stored on r1, read in
// full on r2 and r3, asked of each replica directly.
func TestFleetSpillReadElsewhere(t *testing.T) {
	srv := redistest.Start(t)
	f := startFleet(t, 3, nil, "--store", srv.URL())
	handle := spill(t, f.replicas[0].addr, 500)
	var want string
	for _, r := range f.replicas[1:] {
		got, err := readAll(r.addr, handle)
		if err != nil {
			t.Fatalf("read on %s: %v", r.name, err)
		}
		if !strings.HasPrefix(got, "report by replica r1\n") || !strings.HasSuffix(got, "line 499\n") {
			t.Fatalf("read on %s: %d bytes, %q…", r.name, len(got), got[:min(len(got), 40)])
		}
		if want != "" && got != want {
			t.Fatal("two replicas read different bytes")
		}
		want = got
	}
	// Without the store, a replica knows only its own outputs.
	solo := startFleet(t, 2, nil, "--stateless")
	h := spill(t, solo.replicas[0].addr, 500)
	if _, err := readAll(solo.replicas[1].addr, h); err == nil || !strings.Contains(err.Error(), "unknown output handle") {
		t.Fatalf("without a store, another replica read the output: %v", err)
	}
}

// A rate limit of N per caller holds across 3 replicas: of 3N concurrent
// calls through the balancer exactly N succeed, whichever replica took
// them.
func TestFleetRateLimitHolds(t *testing.T) {
	srv := redistest.Start(t)
	const limit = 20
	f := startFleet(t, 3, nil, "--store", srv.URL(), "--rate-limit", fmt.Sprintf("%d/1h", limit))
	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 12)
	for i := range 3 * limit {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			r := callTool(f.lb, "echo", map[string]string{"text": fmt.Sprint(i)})
			switch {
			case r.Err != nil:
				t.Errorf("call %d: %v", i, r.Err)
			case !r.IsError:
				ok.Add(1)
			case strings.Contains(r.Text, `rate limit exceeded: caller "local" may make 20 tool calls per 1h0m0s`):
				limited.Add(1)
			default:
				t.Errorf("call %d: %s", i, r.Text)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != limit || limited.Load() != 2*limit {
		t.Fatalf("%d calls succeeded and %d were limited; want exactly %d and %d", ok.Load(), limited.Load(), limit, 2*limit)
	}
	// Each replica counted some of them: the limit is the fleet's.
	for _, r := range f.replicas {
		if !strings.Contains(r.log.waitFor("caller=local"), "caller=local") {
			t.Errorf("replica %s logged no call with its caller:\n%s", r.name, r.log)
		}
	}
}

// Callers are named by their token: with --auth-token-env, each call's
// event carries the token's name, and the limit is that caller's.
func TestFleetNamedCaller(t *testing.T) {
	srv := redistest.Start(t)
	const token = "0123456789abcdef0123456789abcdef"
	f := startFleet(t, 2, []string{"FLEET_TOKEN=" + token},
		"--store", srv.URL(), "--auth-token-env", "FLEET_TOKEN", "--rate-limit", "1/1h")
	if r := callTool(f.replicas[0].addr, "echo", map[string]string{"text": "x"}); r.Status != 401 {
		t.Fatalf("a call without the token: %+v", r)
	}
	if r := callToolAs(f.replicas[0].addr, token, "echo", map[string]string{"text": "x"}); r.Err != nil || r.IsError {
		t.Fatalf("first call: %+v", r)
	}
	r := callToolAs(f.replicas[1].addr, token, "echo", map[string]string{"text": "x"})
	if !r.IsError || !strings.Contains(r.Text, `caller "FLEET_TOKEN" may make 1 tool calls per 1h0m0s`) {
		t.Fatalf("second call, on the other replica: %+v", r)
	}
	for _, rep := range f.replicas {
		if log := rep.log.waitFor("caller=FLEET_TOKEN"); !strings.Contains(log, "caller=FLEET_TOKEN") || strings.Contains(log, token) {
			t.Errorf("replica %s: want caller=FLEET_TOKEN on the call's event and never the token:\n%s", rep.name, rep.log)
		}
	}
}

// Redis restarted mid-run: calls that need the store (a spill, output_read)
// fail with an error naming it; calls that do not go on; once Redis is
// back both work again, without restarting a replica, and what was stored
// before is still there.
func TestFleetRedisRestart(t *testing.T) {
	srv := redistest.Start(t)
	f := startFleet(t, 3, nil, "--store", srv.URL())
	before := spill(t, f.lb, 300)
	srv.Stop()
	for range 3 { // one call per replica
		if r := callTool(f.lb, "echo", map[string]string{"text": "still here"}); r.Err != nil || r.IsError {
			t.Fatalf("a call that needs no store failed with the store down: %+v", r)
		}
		r := callTool(f.lb, "report", map[string]int{"lines": 300})
		if r.Err != nil || !r.IsError || !strings.Contains(r.Text, "shared store "+srv.URL()+" is unavailable") {
			t.Fatalf("a spill with the store down: %+v", r)
		}
		if _, err := readAll(f.lb, before); err == nil || !strings.Contains(err.Error(), srv.URL()) {
			t.Fatalf("output_read with the store down: %v", err)
		}
	}
	srv.Restart()
	deadline := time.Now().Add(20 * time.Second)
	for _, r := range f.replicas {
		for {
			res := callTool(r.addr, "report", map[string]int{"lines": 300})
			if res.Err == nil && !res.IsError {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %s did not recover: %+v", r.name, res)
			}
			time.Sleep(100 * time.Millisecond)
		}
		if _, err := readAll(r.addr, before); err != nil {
			t.Fatalf("replica %s lost the output stored before the restart: %v", r.name, err)
		}
	}
}

// A replica killed with SIGKILL during 1,000 concurrent calls: every call
// gets an answer (a result, or an error the client can retry — the
// balancer's 502/503 or a broken connection, never a hang), calls after
// the kill keep succeeding on the others, and outputs stored before are
// all still readable.
func TestFleetReplicaKilled(t *testing.T) {
	srv := redistest.Start(t)
	f := startFleet(t, 3, nil, "--store", srv.URL())
	var handles []string
	for range 3 {
		handles = append(handles, spill(t, f.lb, 200))
	}
	const calls = 1000
	var ok, retryable atomic.Int64
	kinds := &errorKinds{}
	var wg sync.WaitGroup
	var started atomic.Int64
	killed := make(chan struct{})
	go func() {
		for started.Load() < calls/2 {
			time.Sleep(5 * time.Millisecond)
		}
		f.replicas[1].kill()
		close(killed)
	}()
	for i := range calls { // all at once: 1,000 in flight when r2 dies
		wg.Add(1)
		go func() {
			defer wg.Done()
			started.Add(1)
			var r rpcResult
			if i%5 == 0 {
				r = callTool(f.lb, "report", map[string]int{"lines": 150})
			} else {
				r = callTool(f.lb, "wait", map[string]int{"ms": 200})
			}
			switch {
			case r.Err == nil && !r.IsError:
				ok.Add(1)
			case r.Transport:
				retryable.Add(1) // the client may retry: nothing ran to completion on a live replica
				kinds.add(r)
			default:
				t.Errorf("call %d: not a result nor a retryable error: %+v", i, r)
			}
		}()
	}
	wg.Wait()
	<-killed
	t.Logf("%d calls: %d results, %d retryable errors %v", calls, ok.Load(), retryable.Load(), kinds.counts())
	if ok.Load()+retryable.Load() != calls {
		t.Fatalf("answers: %d + %d of %d", ok.Load(), retryable.Load(), calls)
	}
	// After the kill the balancer sends everything to the two left.
	time.Sleep(time.Second)
	for i := range 6 {
		if r := callTool(f.lb, "echo", map[string]string{"text": "after"}); r.Err != nil || r.IsError {
			t.Fatalf("call %d after the kill: %+v", i, r)
		}
	}
	for _, h := range handles {
		if _, err := readAll(f.lb, h); err != nil {
			t.Fatalf("an output stored before the kill is gone: %v", err)
		}
	}
}

// errorKinds counts retryable errors by what they were, for the log.
type errorKinds struct {
	mu sync.Mutex
	n  map[string]int
}

func (k *errorKinds) add(r rpcResult) {
	what := fmt.Sprint(r.Err)
	if i := strings.LastIndex(what, ": "); r.Status == 0 && i >= 0 {
		what = what[i+2:] // the cause: "connection reset by peer"
	}
	what = what[:min(len(what), 80)]
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.n == nil {
		k.n = map[string]int{}
	}
	k.n[what]++
}

func (k *errorKinds) counts() map[string]int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return maps.Clone(k.n)
}
