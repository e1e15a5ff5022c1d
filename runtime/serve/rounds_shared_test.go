package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Every test here may give its servers a store replicas share, as an
// agent that links runtime/store/redis does.
func init() { EnableSharedRounds() }

// Rounds pass through a store only when something linked them in
// (runtime/store/redis): without, a server given a store keeps its rounds
// in the process and signs its states with the process's key.
func TestSharedRoundsOnlyWhenLinked(t *testing.T) {
	st := store.NewMemory()
	defer st.Close()
	if rs := newRoundsFor(Options{Store: st}); rs.shared == nil || rs.keys == defaultStateKeys {
		t.Errorf("linked: shared %v, process key %v; want the store's rounds and key", rs.shared != nil, rs.keys == defaultStateKeys)
	}
	own := &processKey{}
	if rs := newRoundsFor(Options{Store: st, StateKeys: own}); rs.keys != own {
		t.Error("linked: the StateKeys Options gave were replaced")
	}
	on := sharedRoundsOn
	sharedRoundsOn = nil
	defer func() { sharedRoundsOn = on }()
	if rs := newRoundsFor(Options{Store: st}); rs.shared != nil || rs.keys != defaultStateKeys {
		t.Errorf("not linked: shared %v, process key %v; want neither the store's rounds nor its key", rs.shared != nil, rs.keys == defaultStateKeys)
	}
}

// postRound posts one tools/call of "ask" from a 2026-07-28 host that can
// sample and elicit; extra adds params (a state and answers).
func postRound(t *testing.T, url, extra string) map[string]any {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + StatelessRevision + `","io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{"form":{}}}}`
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask",` + meta + extra + `}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", StatelessRevision)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "ask")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	line := string(b)
	if i := strings.Index(line, "data: "); i >= 0 {
		line = strings.TrimSpace(strings.SplitN(line[i+6:], "\n", 2)[0])
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("response %q: %v", b, err)
	}
	return m
}

// answersTo is the host's retry of an input-required result: the state
// and an answer to each question (Ada's name, the model's "hello").
func answersTo(t *testing.T, m map[string]any) string {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	if res["resultType"] != "input_required" {
		t.Fatalf("want an input_required result, got %v", m)
	}
	asks, _ := res["inputRequests"].(map[string]any)
	answers := map[string]any{}
	for k := range asks {
		switch {
		case strings.HasPrefix(k, "elicitation"):
			answers[k] = map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}
		case strings.HasPrefix(k, "sampling"):
			answers[k] = map[string]any{"model": "m", "role": "assistant", "content": map[string]any{"type": "text", "text": "hello"}}
		}
	}
	b, _ := json.Marshal(answers)
	return `,"requestState":"` + res["requestState"].(string) + `","inputResponses":` + string(b)
}

func completedText(t *testing.T, m map[string]any) string {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	if res["resultType"] != "complete" {
		t.Fatalf("want a complete result, got %v", m)
	}
	content, _ := res["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("content = %v", res)
	}
	s, _ := content[0].(map[string]any)["text"].(string)
	return s
}

func statelessClients(t *testing.T, st store.Store) (*Clients, string) {
	t.Helper()
	cl := NewClients(func(context.Context) (OwnedSession, error) { return newFakeSession(), nil }, Options{Stateless: true, Store: st})
	return cl, startClients(t, cl)
}

// Stateless HTTP opens a session per request; a call parked for its
// host's answers keeps its session until the retry, on the same replica.
func TestInputRequiredRoundsStateless(t *testing.T) {
	_, url := statelessClients(t, nil)
	first := postRound(t, url, "")
	if got := completedText(t, postRound(t, url, answersTo(t, first))); got != "hello, Ada" {
		t.Fatalf("retry = %q, want hello, Ada", got)
	}
}

// Two replicas share a store: the round asked on one is answered through
// the other, which hands the answers over and returns the call's result;
// the state signed by one verifies on the other (the fleet's key). A
// retry sent twice, and a retry after the owner stopped, are refused
// with errors, never left waiting.
func TestInputRequiredRoundsAcrossReplicas(t *testing.T) {
	st := store.NewMemory()
	a, urlA := statelessClients(t, st)
	_, urlB := statelessClients(t, st)

	first := postRound(t, urlA, "")
	retry := answersTo(t, first)
	if got := completedText(t, postRound(t, urlB, retry)); got != "hello, Ada" {
		t.Fatalf("retry on the other replica = %q, want hello, Ada", got)
	}
	again := postRound(t, urlB, retry)
	if e, _ := again["error"].(map[string]any); e == nil {
		t.Fatalf("the same retry again: %v, want an error", again)
	}

	// The owner stops while the call is parked: the other replica says so.
	parked := postRound(t, urlA, "")
	a.Close()
	gone := postRound(t, urlB, answersTo(t, parked))
	e, _ := gone["error"].(map[string]any)
	if msg, _ := e["message"].(string); !strings.Contains(msg, "call again") {
		t.Fatalf("a retry of a call whose replica stopped: %v, want an error saying to call again", gone)
	}
}

// The owner's lease is in the store before the host has the round's
// state, however slow the store: a retry that reaches another replica at
// once finds the owner. examples/replicas' fleet test once failed so,
// under load: its retry was told the call was gone.
func TestInputRequiredRoundOwnerLeasedBeforeTheAnswer(t *testing.T) {
	st := &slowLease{Store: store.NewMemory()}
	_, urlA := statelessClients(t, st)
	_, urlB := statelessClients(t, st)
	first := postRound(t, urlA, "")
	if !st.leased.Load() {
		t.Fatal("the input-required answer went out before the owner's lease was in the store")
	}
	if got := completedText(t, postRound(t, urlB, answersTo(t, first))); got != "hello, Ada" {
		t.Fatalf("retry on the other replica = %q, want hello, Ada", got)
	}
}

// slowLease is a store whose writes of an owner's lease take a while.
type slowLease struct {
	store.Store
	leased atomic.Bool // a lease has been written
}

func (s *slowLease) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if !strings.HasSuffix(key, "/owner") {
		return s.Store.Set(ctx, key, value, ttl)
	}
	time.Sleep(200 * time.Millisecond)
	err := s.Store.Set(ctx, key, value, ttl)
	s.leased.Store(true)
	return err
}

// A store that does not answer: the round's retry on another replica
// fails naming the store.
func TestInputRequiredRoundsStoreDown(t *testing.T) {
	st := &downStore{Store: store.NewMemory()}
	_, urlA := statelessClients(t, st)
	_, urlB := statelessClients(t, st)
	first := postRound(t, urlA, "")
	st.down.Store(true)
	got := postRound(t, urlB, answersTo(t, first))
	e, _ := got["error"].(map[string]any)
	if msg, _ := e["message"].(string); !strings.Contains(msg, "shared store test-store is unavailable") {
		t.Fatalf("retry with the store down: %v, want an error naming the store", got)
	}
}

// downStore fails every read and write while down is set, as a store
// that stopped answering does.
type downStore struct {
	store.Store
	down atomic.Bool
}

func (d *downStore) Name() string { return "test-store" }

func (d *downStore) err() error {
	if d.down.Load() {
		return &store.Unavailable{Store: d.Name(), Err: errors.New("connection refused")}
	}
	return nil
}

func (d *downStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := d.err(); err != nil {
		return nil, false, err
	}
	return d.Store.Get(ctx, key)
}

func (d *downStore) Set(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if err := d.err(); err != nil {
		return err
	}
	return d.Store.Set(ctx, key, v, ttl)
}

func (d *downStore) SetNew(ctx context.Context, key string, v []byte, ttl time.Duration) (bool, error) {
	if err := d.err(); err != nil {
		return false, err
	}
	return d.Store.SetNew(ctx, key, v, ttl)
}
