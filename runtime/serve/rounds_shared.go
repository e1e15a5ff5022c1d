package serve

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Input-required rounds across replicas. A host's retry may reach any
// replica, but a parked call is a running goroutine (an upstream request
// in flight, a tool's stack) that cannot move. So the call stays on the
// replica that started it (the owner) and the store carries the rounds:
//
//	round/ID/owner      the owner's lease, renewed while the call is parked
//	round/ID/answers/N  the host's answers to round N (SetNew: one taker)
//	round/ID/reply/N    what the retry of round N gets: the next round's
//	                    questions and state, or the call's result
//
// The replica that receives a retry for a call it does not hold writes the
// answers and waits for the reply; the owner watches for answers while its
// call is parked, hands them to the call, and writes the reply. A retry
// that reaches the owner itself takes the answers key too, so one round is
// never answered twice. The state's signing key is the fleet's, created
// once in the store (StoreStateKeys). When the owner dies, its lease ends
// and the waiting replica says so: the host calls again.

// Key layout and timings of shared rounds.
const (
	prefixRound = store.PrefixRound
	stateKey    = store.PrefixState + "key" // the fleet's request state key

	roundLease      = 6 * time.Second // an owner not heard of for this long is gone
	roundLeaseEvery = 2 * time.Second
	pollFirst       = 2 * time.Millisecond
	pollMax         = 100 * time.Millisecond
)

// roundSharer passes rounds through a store the replicas share.
type roundSharer interface {
	// retry answers the host's retry of round n of call id, parked on
	// another replica.
	retry(ctx context.Context, id, n string, responses mcp.InputResponseMap) (mcp.Result, error)
	// claim takes round n of call id, parked here, for the retry that
	// reached this replica.
	claim(ctx context.Context, id, n string) error
	// watchOnce starts the owner's side for r, when it first parks.
	watchOnce(rs *rounds, r *round)
}

// sharedRoundsOn is the request state keys and the roundSharer of a
// store (keys: those Options gave, if any), or nil when nothing linked
// them in: only a store other replicas reach needs them, so
// runtime/store/redis sets it (EnableSharedRounds) and an agent without
// one does not carry their code. The embedded memory store is one
// process's: rounds stay in the process.
var sharedRoundsOn func(st store.Store, keys StateKeys) (StateKeys, roundSharer)

// EnableSharedRounds passes input-required rounds through the store a
// server is given (Options.Store), so that a host's retry may reach any
// replica.
func EnableSharedRounds() {
	sharedRoundsOn = func(st store.Store, keys StateKeys) (StateKeys, roundSharer) {
		if keys == nil {
			keys = StoreStateKeys(st)
		}
		return keys, &sharedRounds{st: st}
	}
}

// sharedRounds passes rounds through a store shared by the replicas.
type sharedRounds struct {
	st store.Store
}

func roundKey(id, what, n string) string {
	if n == "" {
		return prefixRound + id + "/" + what
	}
	return prefixRound + id + "/" + what + "/" + n
}

// localClaim is the answers value of a round answered on its owner.
var localClaim = []byte(`"local"`)

// claim takes round n of a call parked here for the retry that reached
// this replica.
func (sr *sharedRounds) claim(ctx context.Context, id, n string) error {
	ok, err := sr.st.SetNew(ctx, roundKey(id, "answers", n), localClaim, roundIdle)
	if err != nil {
		return err
	}
	if !ok {
		return answeredTwice()
	}
	return nil
}

func answeredTwice() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: this round was answered already (a retry sent twice); continue with the state of its answer"}
}

// retry answers round n of a call parked on another replica and waits for
// its reply.
func (sr *sharedRounds) retry(ctx context.Context, id, n string, responses mcp.InputResponseMap) (mcp.Result, error) {
	if _, alive, err := sr.st.Get(ctx, roundKey(id, "owner", "")); err != nil {
		return nil, err
	} else if !alive {
		return nil, ownerGone()
	}
	b, err := json.Marshal(responses)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "inputResponses: " + err.Error()}
	}
	ok, err := sr.st.SetNew(ctx, roundKey(id, "answers", n), b, roundIdle)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, answeredTwice()
	}
	replyKey := roundKey(id, "reply", n)
	wait := pollFirst
	checked := time.Now()
	for {
		v, ok, err := sr.st.Get(ctx, replyKey)
		if err != nil {
			return nil, err
		}
		if ok {
			// The answers key stays (until roundIdle): the same state sent
			// again is refused, not left waiting for a reply none will write.
			sr.st.Delete(context.WithoutCancel(ctx), replyKey)
			return decodeReply(v)
		}
		if time.Since(checked) > roundLeaseEvery {
			checked = time.Now()
			if _, alive, err := sr.st.Get(ctx, roundKey(id, "owner", "")); err != nil {
				return nil, err
			} else if !alive {
				return nil, ownerGone()
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, pollMax)
	}
}

func ownerGone() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: the call it names is over, expired, or its replica stopped; call again"}
}

// watchOnce starts the owner's side for r once, when r first asks its host:
// the lease, and the watch for answers that reach other replicas. The
// first lease is taken here, before the host is shown the state: a retry
// that reaches another replica at once must find the owner. (Taken by the
// watch goroutine, it could come after the answer, and a fast host's
// retry was told the call was gone.)
func (sr *sharedRounds) watchOnce(rs *rounds, r *round) {
	r.watch.Do(func() {
		var leased time.Time
		if sr.st.Set(r.ctx, roundKey(r.id, "owner", ""), []byte("1"), roundLease) == nil {
			leased = time.Now()
		}
		rs.wg.Add(1)
		go func() {
			defer rs.wg.Done()
			sr.watch(rs, r, leased)
		}()
	})
}

// watch runs on the owner while r lives, renewing the lease taken at
// leased (zero: not yet). Store errors are retried: the host's retry on
// the other replica reports the store's error itself.
func (sr *sharedRounds) watch(rs *rounds, r *round, leased time.Time) {
	ctx := r.ctx
	owner := roundKey(r.id, "owner", "")
	defer sr.st.Delete(context.WithoutCancel(ctx), owner)
	handled := 0
	wait := pollFirst
	for {
		if time.Since(leased) >= roundLeaseEvery {
			if sr.st.Set(ctx, owner, []byte("1"), roundLease) == nil {
				leased = time.Now()
			}
		}
		r.mu.Lock()
		n, over := r.shown, r.over
		r.mu.Unlock()
		if over { // handed over to a task (escalate.go), which follows the store itself
			return
		}
		if n > handled {
			v, ok, err := sr.st.Get(ctx, roundKey(r.id, "answers", strconv.Itoa(n)))
			if err == nil && ok {
				handled, wait = n, pollFirst
				if string(v) != string(localClaim) {
					sr.answer(rs, r, strconv.Itoa(n), v)
				}
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-r.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, pollMax)
	}
}

// answer hands a remote round's answers to the parked call and writes
// what the call does next as the round's reply. It runs beside watch,
// which keeps the lease while the call works.
func (sr *sharedRounds) answer(rs *rounds, r *round, n string, answers []byte) {
	rs.wg.Add(1)
	go func() {
		defer rs.wg.Done()
		var reply []byte
		var responses mcp.InputResponseMap
		err := json.Unmarshal(answers, &responses)
		if err == nil {
			err = r.answer(responses)
		}
		var res mcp.Result
		if err == nil {
			res, err = rs.waitNotifying(r.ctx, r, nil)
		}
		if err == nil {
			reply, err = json.Marshal(res)
		}
		if err != nil {
			reply, _ = json.Marshal(storedReply{Error: err.Error()})
		} else {
			reply, _ = json.Marshal(storedReply{Result: reply})
		}
		sr.st.Set(context.Background(), roundKey(r.id, "reply", n), reply, roundIdle)
	}()
}

// storedReply is a round's reply in the store: the result as the host
// reads it, or an error.
type storedReply struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

func decodeReply(b []byte) (mcp.Result, error) {
	var r storedReply
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, errors.New("a round's reply in the store is not readable: " + err.Error())
	}
	if r.Error != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: r.Error}
	}
	return rawResult{Result: &mcp.CallToolResult{}, raw: r.Result}, nil
}

// rawResult is a result another replica wrote, passed on as it is.
type rawResult struct {
	mcp.Result
	raw json.RawMessage
}

func (r rawResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// StoreStateKeys is the request state key of a fleet: made by the first
// replica that needs it (SetNew), read by the others, kept for the life
// of the process once read.
func StoreStateKeys(st store.Store) StateKeys { return &storeKeys{st: st} }

type storeKeys struct {
	st  store.Store
	mu  sync.Mutex
	key []byte
}

func (k *storeKeys) StateKey() ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key != nil {
		return k.key, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	if _, err := k.st.SetNew(ctx, stateKey, fresh, 0); err != nil {
		return nil, err
	}
	key, ok, err := k.st.Get(ctx, stateKey)
	if err != nil {
		return nil, err
	}
	if !ok || len(key) < 32 {
		return nil, errors.New("the request state key in store " + k.st.Name() + " is missing or short")
	}
	k.key = key
	return key, nil
}
