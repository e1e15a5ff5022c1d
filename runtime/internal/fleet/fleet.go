// Package fleet lets every replica of an agent that shares a store show
// the whole fleet on its status page. Each replica appends its call events
// (tool.call, tool.blocked) to one capped list in the store and heartbeats
// its presence (id, start, its servers' health) with a key that expires;
// any replica's /api/status reads both back.
//
// The store writes are off the calls' path: the fleet reads the events
// from the runtime logger's hub like any page does, and the hub never
// waits for a reader. A store that is slow or down makes this replica's
// reader fall behind and be dropped; it then takes up again from the
// hub's ring, and what the ring no longer holds is not shared. A call is
// never slowed or failed by it.
package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/internal/event"
	"github.com/toolgen-dev/toolgen/runtime/internal/eventhub"
	"github.com/toolgen-dev/toolgen/runtime/internal/statuspage"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Keys in the store, under store.PrefixEvents and store.PrefixFleet.
const (
	callsKey    = store.PrefixEvents + "calls"
	membersKey  = store.PrefixFleet + "replicas" // replica ids, appended at each heartbeat
	replicaKey  = store.PrefixFleet + "replica/" // + id: the heartbeat, with a TTL
	maxCalls    = 200                            // calls the list keeps, of all replicas
	maxMembers  = 512                            // ids the member list keeps
	storeWait   = 2 * time.Second                // one store write or read at most
	subscribeTo = 256                            // events the hub may queue for the writer
)

// Options configure a Fleet.
type Options struct {
	Store store.Store
	Hub   *eventhub.Hub // the runtime logger's: the calls come from it
	// Replica names this process in the fleet; default HOST-PID.
	Replica string
	// Servers is this replica's servers with their health (the page's).
	Servers func() []statuspage.Server
	// Every is how often the replica heartbeats; default 5 s. A replica
	// not heard of for 3 heartbeats is gone.
	Every  time.Duration
	Logger *slog.Logger
}

// Fleet is this replica's part in the fleet: Start it, Stop it on exit.
// It implements statuspage.FleetView.
type Fleet struct {
	o       Options
	started time.Time
	stop    context.CancelFunc
	done    sync.WaitGroup
	stopped sync.Once
}

var _ statuspage.FleetView = (*Fleet)(nil)

// Member is a replica's running part in the fleet.
type Member interface {
	statuspage.FleetView
	Stop()
}

// Join starts this replica's part in the fleet of o.Store, or is nil
// when nothing links the fleet in: only a store other replicas reach
// makes a fleet, so runtime/store/redis sets it (Enable) and an agent
// without one does not carry this package's code.
var Join func(o Options) Member

// Enable sets Join.
func Enable() {
	Join = func(o Options) Member {
		f := New(o)
		f.Start()
		return f
	}
}

// New returns the fleet of o.Store; nothing runs until Start.
func New(o Options) *Fleet {
	if o.Replica == "" {
		host, _ := os.Hostname()
		o.Replica = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if o.Every <= 0 {
		o.Every = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Servers == nil {
		o.Servers = func() []statuspage.Server { return nil }
	}
	return &Fleet{o: o, started: time.Now().UTC()}
}

// Replica is this replica's id.
func (f *Fleet) Replica() string { return f.o.Replica }

// Start heartbeats at once and then every Options.Every, and shares the
// calls the hub records, until Stop.
func (f *Fleet) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	f.stop = cancel
	f.heartbeat(ctx) // listed before the first request comes in
	f.done.Add(2)
	go func() {
		defer f.done.Done()
		t := time.NewTicker(f.o.Every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				f.heartbeat(ctx)
			}
		}
	}()
	go func() {
		defer f.done.Done()
		f.shareCalls(ctx)
	}()
}

// Stop ends the heartbeats and takes the replica off the list at once
// (a killed one leaves when its heartbeat expires). Later calls do
// nothing.
func (f *Fleet) Stop() {
	if f.stop == nil {
		return
	}
	f.stopped.Do(f.leave)
}

func (f *Fleet) leave() {
	f.stop()
	f.done.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), storeWait)
	defer cancel()
	if err := f.o.Store.Delete(ctx, replicaKey+f.o.Replica); err != nil {
		f.o.Logger.Warn("fleet.leave", "store", f.o.Store.Name(), "error", err)
	}
}

// beat is a replica's heartbeat in the store.
type beat struct {
	ID      string              `json:"id"`
	Started time.Time           `json:"started"`
	Seen    time.Time           `json:"seen"`
	Servers []statuspage.Server `json:"servers"`
}

func (f *Fleet) heartbeat(ctx context.Context) {
	b, err := json.Marshal(beat{ID: f.o.Replica, Started: f.started, Seen: time.Now().UTC(), Servers: f.o.Servers()})
	if err != nil {
		f.o.Logger.Error("fleet.heartbeat", "error", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, storeWait)
	defer cancel()
	err = f.o.Store.Set(ctx, replicaKey+f.o.Replica, b, 3*f.o.Every)
	if err == nil {
		// Appended at every beat, so that live ids stay among the newest
		// entries however many replicas came and went.
		err = f.o.Store.Append(ctx, membersKey, []byte(f.o.Replica), maxMembers, 0)
	}
	if err != nil && ctx.Err() == nil {
		f.o.Logger.Warn("fleet.heartbeat", "store", f.o.Store.Name(), "error", err)
	}
}

// shareCalls appends the hub's call events to the store, resubscribing
// after the last one it wrote when it fell behind.
func (f *Fleet) shareCalls(ctx context.Context) {
	if f.o.Hub == nil {
		return
	}
	var last uint64
	for ctx.Err() == nil {
		backlog, sub := f.o.Hub.Subscribe(last, subscribeTo)
		for _, e := range backlog {
			last = e.Seq
			f.share(ctx, e)
		}
		for alive := true; alive; {
			select {
			case <-ctx.Done():
				sub.Close()
				return
			case e, ok := <-sub.C:
				if !ok {
					alive = false
					break
				}
				last = e.Seq
				f.share(ctx, e)
			}
		}
		sub.Close()
	}
}

// isCall says whether an event is one the fleet shares.
func isCall(name string) bool { return name == event.ToolCall || name == event.ToolBlocked }

func (f *Fleet) share(ctx context.Context, e eventhub.Event) {
	if !isCall(e.Event) {
		return
	}
	b, err := e.MarshalJSON()
	if err != nil || len(b) < 2 {
		return
	}
	id, _ := json.Marshal(f.o.Replica)
	// {"replica":ID,  then the event's own fields
	entry := append(append(append([]byte(`{"replica":`), id...), ','), b[1:]...)
	ctx, cancel := context.WithTimeout(ctx, storeWait)
	defer cancel()
	if err := f.o.Store.Append(ctx, callsKey, entry, maxCalls, 0); err != nil && ctx.Err() == nil {
		f.o.Logger.Debug("fleet.share", "store", f.o.Store.Name(), "error", err)
	}
}

// Fleet reads the replicas alive and the recent calls of all of them.
func (f *Fleet) Fleet(ctx context.Context) statuspage.Fleet {
	out := statuspage.Fleet{Store: f.o.Store.Name(), Replica: f.o.Replica, Replicas: []statuspage.Replica{}, Calls: []json.RawMessage{}}
	ctx, cancel := context.WithTimeout(ctx, storeWait)
	defer cancel()
	ids, err := f.o.Store.List(ctx, membersKey, maxMembers)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	seen := map[string]bool{}
	for _, raw := range slices.Backward(ids) {
		id := string(raw)
		if seen[id] {
			continue
		}
		seen[id] = true
		v, ok, err := f.o.Store.Get(ctx, replicaKey+id)
		if err != nil {
			out.Error = err.Error()
			return out
		}
		var b beat
		if !ok || json.Unmarshal(v, &b) != nil {
			continue // gone: its heartbeat expired or it stopped
		}
		if b.Servers == nil {
			b.Servers = []statuspage.Server{}
		}
		out.Replicas = append(out.Replicas, statuspage.Replica{ID: b.ID, Started: b.Started, Seen: b.Seen, Servers: b.Servers})
	}
	slices.SortFunc(out.Replicas, func(a, b statuspage.Replica) int { return a.Started.Compare(b.Started) })
	calls, err := f.o.Store.List(ctx, callsKey, maxCalls)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	for _, c := range calls {
		if json.Valid(c) {
			out.Calls = append(out.Calls, c)
		}
	}
	return out
}
