package eventhub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// noTime drops the time so that two handlers' lines can be compared.
func noTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// logSome logs what the runtime logs: bound attributes, a group, a debug
// record and records of every attribute kind the runtime uses.
func logSome(l *slog.Logger) {
	ctx := context.Background()
	l = l.With("agent", "coder")
	l.LogAttrs(ctx, slog.LevelInfo, "agent.build", slog.Int("tools", 3), slog.Any("servers", []string{"a", "b"}), slog.Bool("discovery", true))
	l.LogAttrs(ctx, slog.LevelDebug, "tool.call", slog.String("tool", "read"), slog.Float64("latency_ms", 1.25), slog.String("status", "ok"))
	l.WithGroup("conn").LogAttrs(ctx, slog.LevelWarn, "server.fail", slog.String("server", "alpha"), slog.Any("error", errors.New("exit status 1")),
		slog.Group("retry", slog.Int("attempt", 2)), slog.Group("empty"))
}

// A logger behind the hub writes exactly what it wrote without it.
func TestHandlerPassesRecordsOnUnchanged(t *testing.T) {
	var alone, behind bytes.Buffer
	opts := &slog.HandlerOptions{Level: slog.LevelInfo, ReplaceAttr: noTime}
	logSome(slog.New(slog.NewJSONHandler(&alone, opts)))
	hub := New(Options{})
	logSome(slog.New(hub.Handler(slog.NewJSONHandler(&behind, opts))))
	if diff := cmp.Diff(alone.String(), behind.String()); diff != "" {
		t.Errorf("log output changed by the hub (-alone +behind):\n%s", diff)
	}
	if strings.Contains(behind.String(), "tool.call") {
		t.Error("the debug record reached an info-level log")
	}
	var names []string
	for _, e := range hub.Recent(0) {
		names = append(names, e.Event)
	}
	if diff := cmp.Diff([]string{"agent.build", "tool.call", "server.fail"}, names); diff != "" {
		t.Errorf("hub events (-want +got):\n%s", diff)
	}
}

// An event's attributes nest as slog's JSON handler nests them: bound
// attributes, groups from WithGroup and Group values, empty groups left out.
func TestEventAttrsMatchJSONHandler(t *testing.T) {
	var buf bytes.Buffer
	hub := New(Options{})
	logSome(slog.New(hub.Handler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	events := hub.Recent(0)
	if len(lines) != len(events) {
		t.Fatalf("%d log lines, %d events", len(lines), len(events))
	}
	for i, line := range lines {
		var want map[string]any
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatal(err)
		}
		e := events[i]
		if e.Event != want["msg"] || e.Level != want["level"] {
			t.Errorf("event %d: %s %s, log line %s", i, e.Level, e.Event, line)
		}
		delete(want, "msg")
		delete(want, "level")
		delete(want, "time")
		b, err := json.Marshal(e.Attrs())
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("event %d attrs (-json handler +event):\n%s", i, diff)
		}
	}
}

// Durations and times are written for people (the debugger), not as
// nanoseconds; a value encoding/json cannot write becomes its text.
func TestEventValues(t *testing.T) {
	hub := New(Options{})
	l := slog.New(hub.Handler(nil))
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l.Info("x", "d", 1500*time.Millisecond, "at", at, "ch", make(chan int), "n", uint64(7))
	e := hub.Recent(0)[0]
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Attrs map[string]any `json:"attrs"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"d": "1.5s", "at": "2026-01-02T03:04:05Z", "n": float64(7)}
	ch := got.Attrs["ch"]
	delete(got.Attrs, "ch")
	if diff := cmp.Diff(want, got.Attrs); diff != "" {
		t.Errorf("attrs (-want +got):\n%s", diff)
	}
	if s, ok := ch.(string); !ok || !strings.HasPrefix(s, "0x") {
		t.Errorf("a channel attribute = %#v, want its text", ch)
	}
}

// A logger with a level above the hub's still feeds the hub; a hub with a
// higher level records only what reaches it.
func TestHubLevel(t *testing.T) {
	hub := New(Options{Level: slog.LevelWarn})
	var buf bytes.Buffer
	l := slog.New(hub.Handler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	l.Debug("tool.call")
	l.Warn("tool.blocked")
	if got := hub.Recent(0); len(got) != 1 || got[0].Event != "tool.blocked" {
		t.Errorf("hub holds %+v, want only tool.blocked", got)
	}
	if !strings.Contains(buf.String(), "tool.call") {
		t.Error("the log lost its debug record")
	}
}

// The ring keeps the last Size events; Recent(after) returns those after.
func TestRingKeepsTheLatest(t *testing.T) {
	hub := New(Options{Size: 3})
	for i := range 5 {
		hub.Publish(Event{Event: string(rune('a' + i))})
	}
	seqs := func(es []Event) (out []uint64) {
		for _, e := range es {
			out = append(out, e.Seq)
		}
		return out
	}
	if diff := cmp.Diff([]uint64{3, 4, 5}, seqs(hub.Recent(0))); diff != "" {
		t.Errorf("Recent(0) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint64{5}, seqs(hub.Recent(4))); diff != "" {
		t.Errorf("Recent(4) (-want +got):\n%s", diff)
	}
	if got := hub.Recent(5); len(got) != 0 {
		t.Errorf("Recent(5) = %v", got)
	}
}

// A subscriber that stops reading is dropped: logging goes on at once
// (this test would hang otherwise) and the other subscriber gets every
// event.
func TestSlowSubscriberIsDroppedNotWaitedFor(t *testing.T) {
	hub := New(Options{Size: 10})
	l := slog.New(hub.Handler(nil))
	_, stuck := hub.Subscribe(0, 2)
	_, live := hub.Subscribe(0, 1)
	var got []uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range live.C {
			got = append(got, e.Seq)
			if e.Seq == 100 {
				return
			}
		}
	}()
	for range 100 {
		l.Info("tool.call")
		// the live reader keeps up; one event in flight at a time
		for len(live.c) > 0 {
			time.Sleep(time.Microsecond)
		}
	}
	<-done
	live.Close()
	if !stuck.Dropped() {
		t.Fatal("the stuck subscriber was not dropped")
	}
	var held int
	for range stuck.C { // closed after what it had buffered
		held++
	}
	if held != 2 {
		t.Errorf("stuck subscriber held %d events, want its buffer of 2", held)
	}
	if len(got) != 100 || got[0] != 1 || got[99] != 100 {
		t.Errorf("live subscriber got %d events (%v…)", len(got), got[:min(len(got), 3)])
	}
	if live.Dropped() {
		t.Error("the live subscriber was dropped")
	}
	stuck.Close() // after a drop: no double close
	if hub.Subscribers() != 0 {
		t.Errorf("%d subscribers left", hub.Subscribers())
	}
}

// Subscribing while events are published loses and repeats none: the
// backlog and the live events join without a gap.
func TestSubscribeJoinsBacklogAndLive(t *testing.T) {
	hub := New(Options{Size: 1000})
	l := slog.New(hub.Handler(nil))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				l.Info("tool.call")
			}
		})
	}
	time.Sleep(time.Millisecond)
	backlog, s := hub.Subscribe(0, 1000)
	wg.Wait()
	var seqs []uint64
	for _, e := range backlog {
		seqs = append(seqs, e.Seq)
	}
	for len(s.C) > 0 {
		seqs = append(seqs, (<-s.C).Seq)
	}
	s.Close()
	if len(seqs) != 800 {
		t.Fatalf("%d events seen, want 800", len(seqs))
	}
	for i, q := range seqs {
		if q != uint64(i+1) {
			t.Fatalf("event %d has seq %d: a gap or a repeat", i, q)
		}
	}
}
