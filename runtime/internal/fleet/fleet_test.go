package fleet_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolgen-dev/toolgen/runtime/internal/eventhub"
	"github.com/toolgen-dev/toolgen/runtime/internal/fleet"
	"github.com/toolgen-dev/toolgen/runtime/internal/statuspage"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// replica is one process's part: its hub, the logger the runtime would
// log calls with, and its fleet.
type replica struct {
	log   *slog.Logger
	fleet *fleet.Fleet
}

func start(t *testing.T, st store.Store, id, server string) *replica {
	t.Helper()
	hub := eventhub.New(eventhub.Options{})
	f := fleet.New(fleet.Options{Store: st, Hub: hub, Replica: id, Every: time.Hour,
		Servers: func() []statuspage.Server {
			return []statuspage.Server{{Name: server, Transport: "stdio", Health: statuspage.Green}}
		}})
	f.Start()
	t.Cleanup(f.Stop)
	return &replica{log: slog.New(hub.Handler(nil)), fleet: f}
}

// waitCalls reads the fleet until it holds n calls (they are written
// asynchronously) or 10 s passed.
func waitCalls(r *replica, n int) statuspage.Fleet {
	deadline := time.Now().Add(10 * time.Second)
	for {
		f := r.fleet.Fleet(context.Background())
		if len(f.Calls) >= n || time.Now().After(deadline) {
			return f
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type call struct {
	Replica string         `json:"replica"`
	Event   string         `json:"event"`
	Attrs   map[string]any `json:"attrs"`
}

func TestEveryReplicaSeesTheFleet(t *testing.T) {
	st := store.NewMemory()
	a := start(t, st, "a", "files")
	b := start(t, st, "b", "web")
	a.log.Info("tool.call", "tool", "echo", "caller", "local", "status", "ok")
	a.log.Info("agent.build", "agent", "worker") // not a call: not shared
	b.log.Warn("tool.blocked", "tool", "rm", "reason", "denied")

	got := waitCalls(a, 2)
	if got.Error != "" || got.Replica != "a" || got.Store != "memory" {
		t.Fatalf("fleet as a sees it: %+v", got)
	}
	var calls []call
	for _, raw := range got.Calls {
		var c call
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("call %s: %v", raw, err)
		}
		calls = append(calls, c)
	}
	slices.SortFunc(calls, func(x, y call) int { return strings.Compare(x.Replica, y.Replica) })
	if len(calls) != 2 || calls[0].Replica != "a" || calls[0].Event != "tool.call" || calls[0].Attrs["tool"] != "echo" ||
		calls[1].Replica != "b" || calls[1].Event != "tool.blocked" || calls[1].Attrs["reason"] != "denied" {
		t.Fatalf("calls: %+v", calls)
	}
	ids := func(f statuspage.Fleet) (out []string) {
		for _, r := range f.Replicas {
			out = append(out, r.ID+":"+r.Servers[0].Name+":"+r.Servers[0].Health)
		}
		return out
	}
	if got := ids(b.fleet.Fleet(context.Background())); !slices.Equal(got, []string{"a:files:green", "b:web:green"}) {
		t.Fatalf("replicas b sees: %v", got)
	}
	// A replica that stops leaves the list at once.
	a.fleet.Stop()
	if got := ids(b.fleet.Fleet(context.Background())); !slices.Equal(got, []string{"b:web:green"}) {
		t.Fatalf("after a stopped, b sees: %v", got)
	}
}

// stuck is a store that does not answer: every call waits for its
// deadline, as a store behind a dead network does.
type stuck struct{ store.Store }

func (stuck) Name() string { return "redis://stuck" }
func (stuck) Append(ctx context.Context, _ string, _ []byte, _ int, _ time.Duration) error {
	<-ctx.Done()
	return ctx.Err()
}
func (stuck) Set(ctx context.Context, _ string, _ []byte, _ time.Duration) error {
	<-ctx.Done()
	return ctx.Err()
}
func (stuck) List(ctx context.Context, _ string, _ int) ([][]byte, error) {
	<-ctx.Done()
	return nil, &store.Unavailable{Store: "redis://stuck", Err: ctx.Err()}
}

// A store that does not answer never holds up the calls being logged:
// 10,000 call events go through while the writer is stuck on the first,
// and the status says the store is unavailable instead of hanging.
func TestStuckStoreHoldsNothingUp(t *testing.T) {
	hub := eventhub.New(eventhub.Options{})
	f := fleet.New(fleet.Options{Store: stuck{store.NewMemory()}, Hub: hub, Replica: "a", Every: time.Hour})
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Start() // its first heartbeat waits for the store's deadline
		log := slog.New(hub.Handler(nil))
		for i := range 10000 {
			log.Info("tool.call", "tool", "echo", "n", i)
		}
	}()
	<-done
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if got := f.Fleet(ctx); got.Error == "" || len(got.Replicas) != 0 {
		t.Fatalf("fleet of a stuck store: %+v", got)
	}
	f.Stop()
}
