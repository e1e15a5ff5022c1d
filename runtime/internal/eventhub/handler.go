package eventhub

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"
)

// Handler returns a slog.Handler that passes every record to next as if
// it stood alone and also publishes the records at or above the hub's
// level. Give the runtime slog.New(hub.Handler(base)) as its logger.
func (h *Hub) Handler(next slog.Handler) slog.Handler {
	if next == nil {
		next = slog.DiscardHandler
	}
	return &tee{hub: h, next: next}
}

// tee is the Handler. bound are the WithAttrs attributes so far, each
// under the groups open when it was added; path is the groups open now.
type tee struct {
	hub   *Hub
	next  slog.Handler
	bound []pathAttr
	path  []string
}

func (t *tee) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= t.hub.level.Level() || t.next.Enabled(ctx, l)
}

func (t *tee) Handle(ctx context.Context, r slog.Record) error {
	var err error
	// Enabled said yes for either of the two; each gets only what it asked for.
	if t.next.Enabled(ctx, r.Level) {
		err = t.next.Handle(ctx, r)
	}
	if r.Level >= t.hub.level.Level() {
		t.hub.Publish(t.event(r))
	}
	return err
}

func (t *tee) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return t
	}
	bound := t.bound[:len(t.bound):len(t.bound)]
	for _, a := range as {
		bound = append(bound, pathAttr{t.path, stable(a)})
	}
	return &tee{hub: t.hub, next: t.next.WithAttrs(as), bound: bound, path: t.path}
}

func (t *tee) WithGroup(name string) slog.Handler {
	if name == "" {
		return t
	}
	return &tee{hub: t.hub, next: t.next.WithGroup(name), bound: t.bound, path: append(t.path[:len(t.path):len(t.path)], name)}
}

// event records what the record says. It keeps the attributes as they
// are (one slice); the map a reader sees is built when it reads, so that
// logging pays for no page that is not open.
func (t *tee) event(r slog.Record) Event {
	t0 := r.Time
	if t0.IsZero() {
		t0 = time.Now()
	}
	attrs := make([]pathAttr, len(t.bound), len(t.bound)+r.NumAttrs())
	copy(attrs, t.bound)
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, pathAttr{t.path, stable(a)})
		return true
	})
	return Event{Time: t0, Level: r.Level.String(), Event: r.Message, attrs: attrs}
}

// stable resolves a and encodes now what could change or fail to encode
// later: any value that is not a plain scalar.
func stable(a slog.Attr) slog.Attr {
	a.Value = a.Value.Resolve()
	switch a.Value.Kind() {
	case slog.KindAny:
		a.Value = slog.AnyValue(anyValue(a.Value.Any()))
	case slog.KindGroup:
		g := a.Value.Group()
		out := make([]slog.Attr, len(g))
		for i, x := range g {
			out[i] = stable(x)
		}
		a.Value = slog.GroupValue(out...)
	}
	return a
}

// put stores a under path in m, creating the group maps on the way only
// when something goes in them (slog omits empty groups).
func put(m map[string]any, path []string, a slog.Attr) {
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		as := a.Value.Group()
		if len(as) == 0 {
			return
		}
		if a.Key != "" {
			path = append(path[:len(path):len(path)], a.Key)
		}
		for _, g := range as {
			put(m, path, g)
		}
		return
	}
	for _, p := range path {
		sub, ok := m[p].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[p] = sub
		}
		m = sub
	}
	m[a.Key] = value(a.Value)
}

// value turns a slog value into something encoding/json writes for people.
func value(v slog.Value) any {
	switch v.Kind() {
	case slog.KindString:
		return v.String()
	case slog.KindInt64:
		return v.Int64()
	case slog.KindUint64:
		return v.Uint64()
	case slog.KindFloat64:
		return v.Float64()
	case slog.KindBool:
		return v.Bool()
	case slog.KindDuration:
		return v.Duration().String()
	case slog.KindTime:
		return v.Time().Format(time.RFC3339Nano)
	}
	return v.Any() // made stable when recorded
}

// anyValue is an arbitrary value as the event keeps it: an error's text,
// or the value's JSON, or (when it has none) its fmt text.
func anyValue(x any) any {
	if err, ok := x.(error); ok {
		return err.Error()
	}
	if b, err := json.Marshal(x); err == nil {
		return json.RawMessage(b)
	}
	return fmt.Sprint(x)
}
