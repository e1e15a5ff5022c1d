// Package eventhub keeps the runtime's recent events and hands them to live
// subscribers (the status page's debugger). It sits behind the runtime's
// logger as a slog.Handler that passes every record on unchanged, so the
// events the runtime already logs are the events the page shows.
//
// Publishing never waits for a subscriber: one whose buffer is full is
// dropped (its channel closed) and may subscribe again from the last event
// it saw, which the ring buffer still holds unless it fell too far behind.
package eventhub

import (
	"encoding/json"
	"log/slog"
	"sync"
	"time"
)

// Event is one runtime log record: its message is the event name
// (agent.build, tool.call …), its attributes are the event's fields.
// It encodes as JSON {time, level, event, attrs}, attrs nested by group
// as slog's JSON handler nests them.
type Event struct {
	Seq   uint64 // 1, 2, 3 … in publishing order; the SSE id
	Time  time.Time
	Level string
	Event string
	attrs []pathAttr // resolved; turned into a map only when read
}

// pathAttr is one attribute under its groups.
type pathAttr struct {
	path []string // shared, never modified
	attr slog.Attr
}

// Attrs returns the attributes as nested maps.
func (e Event) Attrs() map[string]any {
	m := make(map[string]any, len(e.attrs))
	for _, a := range e.attrs {
		put(m, a.path, a.attr)
	}
	return m
}

func (e Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Time  time.Time      `json:"time"`
		Level string         `json:"level"`
		Event string         `json:"event"`
		Attrs map[string]any `json:"attrs"`
	}{e.Time, e.Level, e.Event, e.Attrs()})
}

// Options configure a Hub. The zero value is usable.
type Options struct {
	// Size is how many recent events the hub keeps for late joiners;
	// default 1000.
	Size int
	// Level is the least level the hub records; default slog.LevelDebug,
	// so that successful calls (tool.call) reach the debugger whatever the
	// log's own level is.
	Level slog.Leveler
}

// Hub records events in a ring buffer and fans them out to subscribers.
type Hub struct {
	level slog.Leveler

	mu   sync.Mutex // guards what follows
	ring []Event    // oldest at (next - len) mod cap once full
	next int        // where the next event goes
	n    int        // events in ring
	seq  uint64
	subs map[*Subscription]struct{}
}

// New returns an empty hub.
func New(o Options) *Hub {
	if o.Size <= 0 {
		o.Size = 1000
	}
	if o.Level == nil {
		o.Level = slog.LevelDebug
	}
	return &Hub{level: o.Level, ring: make([]Event, o.Size), subs: map[*Subscription]struct{}{}}
}

// Subscription is one live reader of a hub.
type Subscription struct {
	// C yields events in order. It is closed when the subscription is
	// closed or when the hub dropped it for falling behind (see Dropped).
	C <-chan Event

	c       chan Event
	hub     *Hub
	dropped bool // guarded by hub.mu
}

// Subscribe returns the recorded events after seq (0: all the ring holds)
// and a subscription that yields every later one, with nothing missed or
// repeated between the two. buf is the subscription's buffer: a subscriber
// that lets buf events pile up is dropped.
func (h *Hub) Subscribe(after uint64, buf int) (backlog []Event, s *Subscription) {
	if buf < 1 {
		buf = 1
	}
	c := make(chan Event, buf)
	s = &Subscription{C: c, c: c, hub: h}
	h.mu.Lock()
	defer h.mu.Unlock()
	backlog = h.recentLocked(after)
	h.subs[s] = struct{}{}
	return backlog, s
}

// Close ends the subscription; C is closed. It is idempotent.
func (s *Subscription) Close() {
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.c)
	}
}

// Dropped reports whether the hub ended the subscription because its
// reader fell behind.
func (s *Subscription) Dropped() bool {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.dropped
}

// Recent returns the recorded events after seq, oldest first.
func (h *Hub) Recent(after uint64) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.recentLocked(after)
}

func (h *Hub) recentLocked(after uint64) []Event {
	var out []Event
	for i := h.n; i > 0; i-- {
		e := h.ring[(h.next-i+len(h.ring))%len(h.ring)]
		if e.Seq > after {
			out = append(out, e)
		}
	}
	return out
}

// Publish records e (its Seq is assigned here) and offers it to every
// subscriber without waiting.
func (h *Hub) Publish(e Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	e.Seq = h.seq
	h.ring[h.next] = e
	h.next = (h.next + 1) % len(h.ring)
	h.n = min(h.n+1, len(h.ring))
	for s := range h.subs {
		select {
		case s.c <- e:
		default:
			// A full buffer: the reader is stuck or slow. Waiting would stall
			// the logger, and so every tool call; drop it instead.
			s.dropped = true
			delete(h.subs, s)
			close(s.c)
		}
	}
}

// Subscribers is how many subscriptions are live.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}
