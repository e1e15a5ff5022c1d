package serve

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

// Input-required rounds (SEP-2322): a host of the stateless revision gets
// no server-to-client requests. When something behind a call asks the
// host (an upstream server's sampling or elicitation request, a tool that
// samples), the call keeps running here, parked, and the host gets an
// input-required result: the questions and a request state naming the
// parked call. The host retries the call with its answers and that state;
// the answers go to the waiting askers and the call goes on, until it
// completes or asks again. Older hosts are asked by request, as before.

// StateKeys provides the key that signs the request state the server
// mints, so that a host cannot forge or alter one. The default is a random
// key per process; replicas behind one load balancer share a key through
// a store that implements this.
type StateKeys interface {
	StateKey() ([]byte, error)
}

type processKey struct {
	once sync.Once
	key  []byte
	err  error
}

func (k *processKey) StateKey() ([]byte, error) {
	k.once.Do(func() {
		k.key = make([]byte, 32)
		_, k.err = rand.Read(k.key)
	})
	return k.key, k.err
}

var defaultStateKeys = &processKey{}

// roundIdle is how long a parked call waits for the host's next round
// before it is cancelled.
const roundIdle = 10 * time.Minute

// askSettle is how long a round waits after the first question for others
// the call asks at the same time (an upstream's several input requests),
// so that they reach the host in one input-required result.
const askSettle = 20 * time.Millisecond

// rounds are the calls of stateless-revision hosts, and those of them
// parked for their hosts' answers. A call costs no more than a goroutine
// until it asks something: only then is it named, timed and findable by
// its request state (park).
type rounds struct {
	keys StateKeys
	ctx  context.Context // every call's parent; ended by close
	stop context.CancelFunc
	mu   sync.Mutex
	byID map[string]*round // the parked calls
	wg   sync.WaitGroup    // the workers that run calls, the shared rounds' watches

	work chan func()  // to an idle worker
	idle atomic.Int32 // workers waiting for a call

	shared roundSharer // nil: rounds live in this process only (rounds_shared.go)

	hosts statelessHosts // named in the log (statelesshosts.go)
}

// close cancels every call, running or parked, and waits for them to end.
func (rs *rounds) close() {
	rs.stop()
	rs.mu.Lock()
	all := make([]*round, 0, len(rs.byID))
	for _, r := range rs.byID {
		all = append(all, r)
	}
	rs.mu.Unlock()
	for _, r := range all {
		rs.end(r)
	}
	rs.wg.Wait()
}

// round is one call of a stateless-revision host, parked once it asks.
type round struct {
	cancel context.CancelFunc
	done   chan roundDone // the call's result, once
	asked  chan struct{}  // a question was added (1 pending signal)
	holder *parkedCalls   // the server whose session the call runs on

	ctx   context.Context // the call's own, ended by end (Done: the call is over)
	watch sync.Once       // starts the shared store's watch (rounds_shared.go)

	mu      sync.Mutex
	id      string          // set when parked
	timer   *time.Timer     // ends the call roundIdle after its host was last shown a round; set when parked
	over    bool            // ended: never parked again
	current context.Context // the host's request waiting on the call, if any: notifications go with it
	next    int
	shown   int                   // rounds shown to the host
	pending map[string]*question  // asked, not yet answered (made by the first ask)
	sent    map[string]bool       // of pending, those the host was shown
	caps    *mcp.InitializeParams // what the host declared in the request that started the call
	early   mcp.InputResponseMap  // answers the host gave ahead, with its first request
	missing []string              // capabilities required questions need that the host did not declare

	caller roundCaller // what the call asks through (mcpconn.Caller)

	// An inline round's (rounds_inline.go); nil for a worker's.
	rs       *rounds
	reply    roundReply    // answers the request that started the call
	detached bool          // reply is a waiter's now, not the call's goroutine's
	replied  chan struct{} // closed once the waiter has answered

	toTask     Escalate        // nil: the call cannot continue as a task (escalate.go)
	esc        *Escalation     // set when it did
	escalating bool            // toTask is making the task
	escalated  chan mcp.Result // the task's answer to the waiting request, once
}

// roundDone is how a parked call ended: a tools/call or prompts/get result,
// or a protocol error.
type roundDone struct {
	res mcp.Result
	err error
}

// question is one input request a call waits on.
type question struct {
	req    mcp.InputRequest
	answer chan json.RawMessage
}

func newRounds(keys StateKeys, shared roundSharer) *rounds {
	if keys == nil {
		keys = defaultStateKeys
	}
	ctx, stop := context.WithCancel(context.Background())
	return &rounds{keys: keys, shared: shared, ctx: ctx, stop: stop, byID: map[string]*round{}, work: make(chan func())}
}

// statelessHost reports whether the host of req speaks the stateless
// revision (and so takes input-required results).
func statelessHost(req mcp.Request) bool {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= StatelessRevision
}

// callInRounds runs a tools/call or prompts/get of a stateless-revision
// host: a new request starts parked-capable, and the answers it brings
// answer the questions it asks by those names; a retry (requestState)
// answers the questions of its parked call. Either returns the result,
// or the questions it asks now.
func (s *Server) callInRounds(ctx context.Context, req mcp.Request, state string, responses mcp.InputResponseMap, run func(ctx context.Context) (mcp.Result, error)) (mcp.Result, error) {
	var r *round
	if state == "" {
		// Answers without a state are for this new call's own questions.
		var caps *mcp.InitializeParams
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
			caps = ss.InitializeParams()
		}
		r = s.rounds.start(run, responses, caps, &s.parked)
	} else {
		id, n, err := s.rounds.verify(state)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: " + err.Error()}
		}
		if r = s.rounds.get(id); r == nil {
			if s.rounds.shared != nil { // parked on another replica, maybe
				return s.rounds.shared.retry(ctx, id, n, responses)
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: the call it names is over or expired; call again"}
		}
		if s.rounds.shared != nil {
			if err := s.rounds.shared.claim(ctx, id, n); err != nil {
				return nil, err
			}
		}
		if err := r.answer(responses); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
	}
	return s.rounds.wait(ctx, r)
}

// start runs the call detached from the request that started it: it
// outlives that request while it waits for the host's answers. Until it
// parks, its session's server holds it (holder) and nothing else knows
// of it.
func (rs *rounds) start(run func(ctx context.Context) (mcp.Result, error), early mcp.InputResponseMap, caps *mcp.InitializeParams, holder *parkedCalls, toTask ...Escalate) *round {
	ctx, cancel := context.WithCancel(rs.ctx)
	r := &round{ctx: ctx, cancel: cancel, done: make(chan roundDone, 1), asked: make(chan struct{}, 1),
		early: early, caps: caps, holder: holder}
	if len(toTask) > 0 {
		r.toTask, r.escalated = toTask[0], make(chan mcp.Result, 1)
	}
	holder.add(r)
	r.caller.r = r
	ctx = mcpconn.WithCaller(ctx, &r.caller) // withCaller fills in host
	rs.run(func() {
		res, err := run(ctx)
		if esc := r.escalation(); esc != nil { // a task now: its outcome settles the task
			tr, _ := res.(*mcp.CallToolResult)
			esc.Settle(tr, err)
			return
		}
		r.done <- roundDone{res, err}
	})
	return r
}

// maxIdleRunners bounds the workers kept waiting for calls.
const maxIdleRunners = 4

// run runs a call on an idle worker, or a new one. A worker keeps the
// stack its calls grew, which a goroutine per call would grow (copy) again
// on every call (as leanCalls.run).
func (rs *rounds) run(fn func()) {
	select {
	case rs.work <- fn:
	default:
		rs.wg.Add(1)
		go rs.worker(fn)
	}
}

func (rs *rounds) worker(fn func()) {
	defer rs.wg.Done()
	for {
		fn()
		fn = nil // the call's memory goes with it, not with the idle worker
		if rs.idle.Add(1) > maxIdleRunners {
			rs.idle.Add(-1)
			return
		}
		select {
		case fn = <-rs.work:
			rs.idle.Add(-1)
		case <-rs.ctx.Done():
			rs.idle.Add(-1)
			return
		}
	}
}

// park makes r a parked call, when its host is first shown a round: named
// (its request state's id), findable by that name, ended after roundIdle
// without the host's next round. Each later round restarts the clock.
// false: r has ended.
func (rs *rounds) park(r *round) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.over:
		return false
	case r.id != "":
		r.timer.Reset(roundIdle)
		return true
	}
	r.id = rand.Text()
	r.timer = time.AfterFunc(roundIdle, func() { rs.end(r) })
	rs.mu.Lock()
	rs.byID[r.id] = r
	rs.mu.Unlock()
	return true
}

// end forgets r and cancels its call.
func (rs *rounds) end(r *round) { rs.forget(r, r.cancel) }

// forget makes r over and no longer a parked call, running stop (if any)
// before its server stops holding it. Without stop, r runs on as a task
// (handed over), which holds the server and cancels it.
func (rs *rounds) forget(r *round, stop func()) {
	r.mu.Lock()
	r.over = true
	id, timer := r.id, r.timer
	r.mu.Unlock()
	if id != "" {
		rs.mu.Lock()
		delete(rs.byID, id)
		rs.mu.Unlock()
		timer.Stop()
	}
	if stop != nil {
		stop()
	}
	if r.holder != nil {
		r.holder.remove(r)
	}
}

func (rs *rounds) get(id string) *round {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.byID[id]
}

// wait returns the call's result when it ends, or an input-required
// result when it asks something the host has not been shown. A host that
// gives up on its request leaves the call parked until its next round or
// roundIdle.
func (rs *rounds) wait(ctx context.Context, r *round) (mcp.Result, error) {
	return rs.waitNotifying(ctx, r, ctx)
}

// waitNotifying is wait with the request that progress and log messages go
// with meanwhile; nil: none (a round answered on another replica).
func (rs *rounds) waitNotifying(ctx context.Context, r *round, notify context.Context) (mcp.Result, error) {
	r.mu.Lock()
	r.current = notify
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.current = nil
		r.mu.Unlock()
	}()
	for {
		if need := r.need(); need != nil {
			rs.end(r)
			return nil, missingCapability(need)
		}
		if asks := r.unsent(); len(asks) > 0 && rs.park(r) {
			r.mu.Lock()
			r.shown++
			n, id := r.shown, r.id
			r.mu.Unlock()
			state, err := rs.sign(id + "~" + strconv.Itoa(n)) // a new state each round
			if err != nil {
				return nil, err
			}
			state = strings.Replace(state, "~", ".", 1)
			if rs.shared != nil {
				rs.shared.watchOnce(rs, r) // the next answers may reach another replica
			}
			return inputRequired(asks, state), nil
		}
		select {
		case d := <-r.done:
			rs.end(r)
			if d.err != nil {
				return nil, d.err
			}
			return completed(d.res), nil
		case task := <-r.escalated: // nil channel unless the call may continue as a task
			rs.forget(r, nil) // handed over: the task runs it on
			return task, nil
		case <-r.asked:
			if !settle(ctx) {
				rs.end(r)
				return nil, ctx.Err()
			}
		case <-ctx.Done():
			rs.end(r) // the host gave up on the call
			return nil, ctx.Err()
		}
	}
}

// settle lets questions a call asks together arrive together: false when
// ctx ended first.
func settle(ctx context.Context) bool {
	t := time.NewTimer(askSettle)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// ask adds a question and waits for the host's answer to it. It goes by
// the name the asker gave it (mcpconn.Question) unless that one is
// waiting already, else by kind and number; an answer the host gave ahead
// under that name answers it at once.
func (r *round) ask(ctx context.Context, q mcp.InputRequest, prefix string) (json.RawMessage, error) {
	r.mu.Lock()
	key := mcpconn.QuestionFrom(ctx).Name
	if _, taken := r.pending[key]; key == "" || taken {
		r.next++
		key = prefix + "-" + strconv.Itoa(r.next)
	}
	if a, ok := r.early[key]; ok {
		delete(r.early, key)
		r.mu.Unlock()
		return json.Marshal(a)
	}
	qu := &question{req: q, answer: make(chan json.RawMessage, 1)}
	if r.pending == nil {
		r.pending, r.sent = map[string]*question{}, map[string]bool{}
	}
	r.pending[key] = qu
	r.detachLocked() // an inline call's request is answered by a waiter now
	r.mu.Unlock()
	select {
	case r.asked <- struct{}{}:
	default:
	}
	select {
	case a := <-qu.answer:
		return a, nil
	case <-ctx.Done():
		r.mu.Lock()
		delete(r.pending, key)
		delete(r.sent, key)
		r.mu.Unlock()
		return nil, ctx.Err()
	}
}

// unsent are the pending questions the host has not been shown, now
// marked shown.
func (r *round) unsent() mcp.InputRequestMap {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out mcp.InputRequestMap
	for k, q := range r.pending {
		if r.sent[k] {
			continue
		}
		if out == nil {
			out = mcp.InputRequestMap{}
		}
		out[k] = q.req
		r.sent[k] = true
	}
	return out
}

// answer delivers the host's answers to the questions they name. Answers
// to questions not asked are ignored; a question the host was shown but
// left unanswered is shown again.
func (r *round) answer(responses mcp.InputResponseMap) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, resp := range responses {
		q := r.pending[k]
		if q == nil {
			continue
		}
		b, err := json.Marshal(resp)
		if err != nil {
			return fmt.Errorf("inputResponses[%q]: %v", k, err)
		}
		q.answer <- b
		delete(r.pending, k)
		delete(r.sent, k)
	}
	for k := range r.sent {
		delete(r.sent, k) // shown, not answered: ask again
	}
	return nil
}

// sign mints the request state for round id: id.N.MAC, N counting the
// rounds shown.
func (rs *rounds) sign(id string) (string, error) {
	key, err := rs.keys.StateKey()
	if err != nil {
		return "", fmt.Errorf("request state key: %w", err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	return id + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil)), nil
}

// verify checks a request state minted by sign and returns its round id
// and the number of the round it answers.
func (rs *rounds) verify(state string) (id, n string, err error) {
	parts := strings.Split(state, ".")
	if len(parts) != 3 {
		return "", "", errors.New("not a request state this server minted")
	}
	id, n, mac := parts[0], parts[1], parts[2]
	want, err := rs.sign(id + "~" + n)
	if err != nil {
		return "", "", err
	}
	_, wantMAC, _ := strings.Cut(want, ".")
	if !hmac.Equal([]byte(mac), []byte(wantMAC)) {
		return "", "", errors.New("its signature does not match (altered or not minted here)")
	}
	return id, n, nil
}

// roundCaller is the Caller of a parked-capable call: sampling and
// elicitation become questions for the host's next round; progress and
// log messages go to the host's request while one is open.
type roundCaller struct {
	r    *round
	host mcpconn.Caller // the first request's caller: progress, logs
	own  caller         // host's storage (withCaller)
}

func (c *roundCaller) WantsProgress() bool { return c.host != nil && c.host.WantsProgress() }

// Host is the parked call itself: a host of the stateless revision has no
// session to tell its calls apart by (mcpconn.HostOf).
func (c *roundCaller) Host() any { return c.r }

// request is the context of the host's request open now, which the
// transport sends notifications with (the call's own outlives requests).
func (c *roundCaller) request() context.Context {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	return c.r.current
}

func (c *roundCaller) Progress(_ context.Context, progress, total float64, message string) {
	if ctx := c.request(); c.host != nil && ctx != nil {
		c.host.Progress(ctx, progress, total, message)
	}
}

func (c *roundCaller) Log(_ context.Context, p *mcp.LoggingMessageParams) {
	if ctx := c.request(); c.host != nil && ctx != nil {
		c.host.Log(ctx, p)
	}
}

// Declared is what the host declared it can answer in the request that
// started the call (none when unknown): for the runtime's discovery tools,
// the host's declaration where the session's is not this request's.
func (c *roundCaller) Declared() *mcp.ClientCapabilities {
	if p := c.r.caps; p != nil && p.Capabilities != nil {
		return p.Capabilities
	}
	return &mcp.ClientCapabilities{}
}

func (c *roundCaller) CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if esc := c.r.escalation(); esc != nil {
		return esc.Caller.CreateMessage(ctx, p)
	}
	if c.Declared().Sampling == nil {
		if err := c.r.require(ctx, "sampling"); err != nil {
			return nil, err
		}
		return nil, errors.New("sampling: the host did not declare it can sample")
	}
	b, err := c.r.ask(ctx, p, "sampling")
	if err != nil {
		return nil, err
	}
	return mcpconn.SamplingAnswer(b)
}

func (c *roundCaller) Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if esc := c.r.escalation(); esc != nil {
		return esc.Caller.Elicit(ctx, p)
	}
	if c.Declared().Elicitation == nil {
		if err := c.r.require(ctx, "elicitation"); err != nil {
			return nil, err
		}
		return mcpconn.Decline("the host did not declare it can elicit"), nil
	}
	b, err := c.r.ask(ctx, p, "elicitation")
	if err != nil {
		return nil, err
	}
	var res mcp.ElicitResult
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("elicitation answer: %w", err)
	}
	return &res, nil
}

// ListRoots asks the host for its roots (a tool that needs them).
func (c *roundCaller) ListRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	if esc := c.r.escalation(); esc != nil {
		if lr, ok := esc.Caller.(interface {
			ListRoots(context.Context) (*mcp.ListRootsResult, error)
		}); ok {
			return lr.ListRoots(ctx)
		}
		return nil, errors.New("roots: the task cannot ask for roots")
	}
	if d := c.Declared(); d.RootsV2 == nil && !d.Roots.ListChanged {
		if err := c.r.require(ctx, "roots"); err != nil {
			return nil, err
		}
		return nil, errors.New("roots: the host did not declare roots")
	}
	b, err := c.r.ask(ctx, &mcp.ListRootsParams{}, "roots")
	if err != nil {
		return nil, err
	}
	var res mcp.ListRootsResult
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("roots answer: %w", err)
	}
	return &res, nil
}
