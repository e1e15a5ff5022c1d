// Package jsonrpcline is newline-delimited JSON-RPC for go-sdk, read a
// line at a time and decoded with encoding/json. go-sdk's own IOTransport
// hands each line from a reader goroutine to a decoder that allocates
// tens of KiB per message and then decodes it twice (as a batch, then as
// one message); on an agent's served path, where every call crosses two
// such connections, that was most of the agent's work per call. Both the
// runtime's client connections to stdio servers (internal/mcpconn) and an
// agent's own stdio server (runtime/serve) use it, each with its own
// checks of the framing (Lines).
//
// Beside the messages it hands go-sdk, a connection carries messages of
// its own user's (NewConn): Options.Take sees each line before it is
// decoded and may answer it itself, and Send sends a request and hands
// its response to a function on the reading goroutine (Call waits for it). On an agent's served
// path, tools/call takes these ways on both connections (runtime/serve,
// internal/mcpconn), without go-sdk's per-message decoding, dispatch and
// goroutine hops.
package jsonrpcline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Lines yields checked lines: each one JSON object or array, valid until
// the next call; io.EOF at the end.
type Lines interface {
	Next() ([]byte, error)
	Close() error
}

// New is a connection reading lines and writing one line per message to
// w. bad, when set, is told of a line that does not decode, and reading
// goes on; without it such a line ends the connection, as go-sdk's does.
func New(lines Lines, w io.WriteCloser, bad func(error)) mcp.Connection {
	return NewConn(lines, w, Options{Bad: bad})
}

// Options of a connection (NewConn).
type Options struct {
	// Bad, when set, is told of a line that does not decode, and reading
	// goes on; without it such a line ends the connection, as go-sdk's
	// does.
	Bad func(error)
	// Take, when set, is offered each line before it is decoded, on the
	// reading goroutine: a line it takes (true) is not passed on. It must
	// not block, and the line is valid only during the call. The run it
	// returns with a line it takes, if any, is that line's work (a call),
	// which may block: the reading goroutine hands reading on to another
	// goroutine and runs it itself (leader/follower), so the work starts
	// without waking a goroutine first.
	Take func(line []byte) (taken bool, run func())
}

// maxFollowers bounds the goroutines kept parked, each of which ran a
// taken line's work, to take over reading when the reader next runs one.
const maxFollowers = 4

// NewConn is New with options.
func NewConn(lines Lines, w io.WriteCloser, o Options) *Conn {
	c := &Conn{lines: lines, w: w, bad: o.Bad, take: o.Take, incoming: make(chan message, 16), closed: make(chan struct{}),
		lead: make(chan struct{})}
	go c.readLoop()
	return c
}

type message struct {
	msg jsonrpc.Message
	err error
}

// Conn is a line connection (New).
type Conn struct {
	lines    Lines
	bad      func(error)
	take     func([]byte) (bool, func())
	w        io.WriteCloser
	incoming chan message
	queue    []jsonrpc.Message // the rest of a batch
	closed   chan struct{}
	once     sync.Once

	// writes ready together, written as one (put)
	writeMu   sync.Mutex // held by the group being written
	gatherMu  sync.Mutex
	gathering bool   // a leader is gathering pending
	pending   []byte // the gathering group's lines
	joined    *group // its members besides the leader, if any
	spare     []byte // the last group's buffer, for the next

	// requests of the connection's user in flight (Send), by id
	callMu  sync.Mutex
	calls   map[int64]*pending
	ncalls  atomic.Int32
	readErr error // why reading ended; then Send fails at once

	// the reading role, handed to a parked follower (handOn)
	lead      chan struct{}
	followers atomic.Int32 // parked

	// batches read whose responses are not all written, by request id
	batchMu sync.Mutex
	batches map[jsonrpc.ID]*batch
}

// batch is the responses to one batch's requests, written together once
// all are in (as go-sdk's IOTransport does).
type batch struct {
	slot      map[jsonrpc.ID]int
	responses []*jsonrpc.Response
	left      int
}

type reply struct {
	line []byte
	err  error
}

// readLoop reads on its own goroutine so that Close unblocks Read. When
// Take gives it a line's work, it hands reading on (handOn), runs the work
// and then waits to be handed reading back (follow).
func (c *Conn) readLoop() {
	for {
		run := c.read()
		if run == nil {
			return // reading ended
		}
		c.handOn()
		run()
		if !c.follow() {
			return
		}
	}
}

// handOn gives the reading role to a parked follower, or a new goroutine.
func (c *Conn) handOn() {
	select {
	case c.lead <- struct{}{}:
	default:
		go c.readLoop()
	}
}

// follow parks a goroutine that ran a line's work until the reading role
// comes back to it: false when enough are parked or the connection closed.
func (c *Conn) follow() bool {
	if c.followers.Add(1) > maxFollowers {
		c.followers.Add(-1)
		return false
	}
	defer c.followers.Add(-1)
	select {
	case <-c.lead:
		return true
	case <-c.closed:
		return false
	}
}

// read reads and passes lines on until Take gives it one's work, which it
// returns, or reading ends (nil).
func (c *Conn) read() (run func()) {
	err := io.EOF // closed
	defer func() {
		if run == nil {
			c.endCalls(err)
		}
	}()
	for {
		var line []byte
		line, err = c.lines.Next()
		var msgs []jsonrpc.Message
		if err == nil {
			if c.ncalls.Load() > 0 && c.reply(line) {
				continue
			}
			if c.take != nil {
				taken, work := c.take(line)
				if work != nil {
					return work
				}
				if taken {
					continue
				}
			}
			msgs, err = DecodeLine(line)
			if err == nil && line[0] == '[' {
				err = c.addBatch(msgs)
			}
			if err != nil && c.bad != nil {
				c.bad(err) // one bad message; the rest go on
				continue
			}
		}
		if err != nil {
			select {
			case c.incoming <- message{err: err}:
			case <-c.closed:
			}
			return
		}
		for _, m := range msgs {
			select {
			case c.incoming <- message{msg: m}:
			case <-c.closed:
				err = io.EOF
				return
			}
		}
	}
}

// Call writes line, one request whose id is the integer id (newline
// included), in one write, and waits for the response with that id. The
// reading goroutine hands the response line over as it came (a copy),
// neither decoded nor passed on to go-sdk. Ids must not be ones go-sdk
// uses on the connection (it counts up from 1). When ctx ends first, Call
// forgets the request and returns ctx.Err(); when reading ends first, the
// reason (io.EOF at the end of the input or after Close).
func (c *Conn) Call(ctx context.Context, id int64, line []byte) ([]byte, error) {
	ch := make(chan reply, 1)
	err := c.Send(ctx, id, line, func(line []byte, err error) {
		ch <- reply{line: bytes.Clone(line), err: err}
	})
	if err != nil {
		return nil, err
	}
	r := <-ch
	return r.line, r.err
}

// Send is Call without the wait: done gets the response line on the
// reading goroutine itself (valid only during done, which must not
// block reading for long), so that no goroutine waits for it. done is
// called exactly once, unless Send fails: with the response; with
// ctx.Err() when ctx ends first (on the goroutine that ends it, or the
// context package's), after which a late response is passed on as an
// unknown one; or with the reason reading ended. done may run before
// Send returns.
func (c *Conn) Send(ctx context.Context, id int64, line []byte, done func(line []byte, err error)) error {
	p := &pending{done: done}
	c.callMu.Lock()
	if err := c.readErr; err != nil {
		c.callMu.Unlock()
		return err
	}
	if c.calls == nil {
		c.calls = map[int64]*pending{}
	}
	c.calls[id] = p
	c.ncalls.Add(1)
	if ctx.Done() != nil {
		// the context package runs it without a goroutine of its own
		// until ctx ends; set under callMu, so a completion sees it
		p.stop = context.AfterFunc(ctx, func() {
			if c.claim(id, p) {
				p.done(nil, ctx.Err())
			}
		})
	}
	c.callMu.Unlock()
	if err := c.WriteLine(line); err != nil {
		if c.claim(id, p) {
			p.unwatch()
			return err
		}
		// completed already (ctx ended or reading ended): done has its error
	}
	return nil
}

// pending is a request of Send's waiting for its response.
type pending struct {
	done func(line []byte, err error)
	stop func() bool // the watch on the request's context, if any
}

func (p *pending) unwatch() {
	if p.stop != nil {
		p.stop()
	}
}

// claim removes p, if it is still id's request: whoever claims it
// completes it, so that it completes exactly once.
func (c *Conn) claim(id int64, p *pending) bool {
	c.callMu.Lock()
	defer c.callMu.Unlock()
	if c.calls[id] != p {
		return false
	}
	delete(c.calls, id)
	c.ncalls.Add(-1)
	return true
}

// Abandon forgets the request with id that Send sent without a context:
// true when it was still waiting, and then its done is never called (a
// late response is passed on as an unknown one); false when its response
// or the end of reading has claimed it, and done has run or is running.
// The caller tells the server, if it should know.
func (c *Conn) Abandon(id int64) bool {
	_, ok := c.unpend(id)
	return ok
}

// unpend removes the request with id, whatever it is, and its watch: the
// caller completes it (or, abandoning it, does not).
func (c *Conn) unpend(id int64) (*pending, bool) {
	c.callMu.Lock()
	p, ok := c.calls[id]
	if ok {
		delete(c.calls, id)
		c.ncalls.Add(-1)
	}
	c.callMu.Unlock()
	if ok {
		p.unwatch()
	}
	return p, ok
}

// reply hands line to its request (Send) if it is the response to one.
func (c *Conn) reply(line []byte) bool {
	if line[0] != '{' {
		return false
	}
	// a response is a message with an id and no method, as go-sdk reads
	// it, even without a result or an error (the caller fails to decode
	// it then, rather than wait for another)
	var id, method []byte
	Pick(line, replyMembers, &id, &method)
	if method != nil || IsNull(id) {
		return false
	}
	n, ok := Int(id)
	if !ok {
		f, err := strconv.ParseFloat(string(id), 64)
		if err != nil || f != float64(int64(f)) {
			return false
		}
		n = int64(f)
	}
	p, ok := c.unpend(n)
	if ok {
		p.done(line, nil)
	}
	return ok
}

var replyMembers = []string{"id", "method"}

// endCalls fails the requests waiting when reading ends, and those to
// come.
func (c *Conn) endCalls(err error) {
	c.callMu.Lock()
	c.readErr = err
	left := make([]*pending, 0, len(c.calls))
	for id, p := range c.calls {
		left = append(left, p)
		delete(c.calls, id)
	}
	c.ncalls.Store(0)
	c.callMu.Unlock()
	for _, p := range left { // outside callMu: done may send again
		p.unwatch()
		p.done(nil, err)
	}
}

// WriteLine writes one whole message line (newline included), between
// go-sdk's, in one write with the lines of other writers ready at once
// (put).
func (c *Conn) WriteLine(line []byte) error {
	return c.put(line)
}

func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m.msg, m.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// addBatch notes the requests of a batch, whose responses go out as one.
func (c *Conn) addBatch(msgs []jsonrpc.Message) error {
	b := &batch{slot: map[jsonrpc.ID]int{}}
	for _, m := range msgs {
		if r, ok := m.(*jsonrpc.Request); ok && r.ID.IsValid() {
			if _, dup := b.slot[r.ID]; dup {
				return fmt.Errorf("duplicate message ID %q", r.ID)
			}
			b.slot[r.ID] = len(b.responses)
			b.responses = append(b.responses, nil)
		}
	}
	if len(b.slot) == 0 {
		return nil
	}
	c.batchMu.Lock()
	defer c.batchMu.Unlock()
	for id := range b.slot {
		if _, ok := c.batches[id]; ok {
			return fmt.Errorf("batch contains previously seen request %v", id.Raw())
		}
	}
	if c.batches == nil {
		c.batches = map[jsonrpc.ID]*batch{}
	}
	for id := range b.slot {
		c.batches[id] = b
	}
	b.left = len(b.slot)
	return nil
}

// batched holds a response to a batch's request: nil while the batch has
// others to come, else all of its responses.
func (c *Conn) batched(msg jsonrpc.Message) (all []*jsonrpc.Response, ok bool) {
	r, isResp := msg.(*jsonrpc.Response)
	if !isResp || !r.ID.IsValid() {
		return nil, false
	}
	c.batchMu.Lock()
	defer c.batchMu.Unlock()
	b := c.batches[r.ID]
	if b == nil {
		return nil, false
	}
	delete(c.batches, r.ID)
	b.responses[b.slot[r.ID]] = r
	if b.left--; b.left > 0 {
		return nil, true
	}
	return b.responses, true
}

func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var data []byte
	var err error
	if all, ok := c.batched(msg); !ok {
		data, err = jsonrpc.EncodeMessage(msg)
	} else if all == nil {
		return nil // written with the batch's last
	} else {
		data = append(data, '[')
		for i, r := range all {
			m, e := jsonrpc.EncodeMessage(r)
			if e != nil {
				err = e
				break
			}
			if i > 0 {
				data = append(data, ',')
			}
			data = append(data, m...)
		}
		data = append(data, ']')
	}
	if err != nil {
		return fmt.Errorf("marshaling message: %v", err)
	}
	return c.put(append(data, '\n'))
}

func (c *Conn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.w.Close()
		c.lines.Close()
	})
	return nil
}

func (c *Conn) SessionID() string { return "" }

// wireMembers are the members of a JSON-RPC message, matched exactly as
// go-sdk matches them (its decoder does not fold case, as encoding/json's
// struct decoding does).
var wireMembers = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// DecodeLine decodes one message, or each member of a batch.
func DecodeLine(line []byte) ([]jsonrpc.Message, error) {
	if line[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(line, &raws); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc batch: %w", err)
		}
		if len(raws) == 0 {
			return nil, errors.New("empty jsonrpc batch")
		}
		out := make([]jsonrpc.Message, 0, len(raws))
		for _, r := range raws {
			m, err := decodeMessage(r)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	m, err := decodeMessage(line)
	if err != nil {
		return nil, err
	}
	return []jsonrpc.Message{m}, nil
}

// decodeMessage reads what go-sdk's jsonrpc.DecodeMessage reads, the same
// way: a method makes a request (a notification without an id); else a
// response, which needs an id.
func decodeMessage(b []byte) (jsonrpc.Message, error) {
	if i := SkipSpace(b, 0); i >= len(b) || b[i] != '{' || !json.Valid(b) {
		var v struct{}
		err := json.Unmarshal(b, &v)
		if err == nil {
			err = errors.New("not a JSON object")
		}
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	var version, idTok, method, params, result, errTok []byte
	Pick(b, wireMembers, &version, &idTok, &method, &params, &result, &errTok)
	if !IsNull(errTok) {
		return jsonrpc.DecodeMessage(b) // an error response, rare: its members too are go-sdk's to read
	}
	var versionText, methodText string
	var rawID any
	if err := unmarshalSet(version, &versionText); err != nil {
		return nil, err
	}
	if err := unmarshalSet(method, &methodText); err != nil {
		return nil, err
	}
	if versionText != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", versionText, "2.0")
	}
	switch {
	case idTok == nil:
	case idTok[0] == '-' || idTok[0] >= '0' && idTok[0] <= '9':
		f, err := strconv.ParseFloat(string(idTok), 64)
		if err != nil {
			return nil, fmt.Errorf("invalid id %s", idTok)
		}
		rawID = f
	default:
		if err := unmarshalSet(idTok, &rawID); err != nil {
			return nil, err
		}
	}
	id, err := jsonrpc.MakeID(rawID)
	if err != nil {
		return nil, err
	}
	if method != nil {
		return &jsonrpc.Request{ID: id, Method: methodText, Params: bytes.Clone(params)}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("invalid request: a response without an id")
	}
	return &jsonrpc.Response{ID: id, Result: bytes.Clone(result)}, nil
}

// unmarshalSet decodes a member's value into v when the member is there.
func unmarshalSet(tok []byte, v any) error {
	if tok == nil {
		return nil
	}
	if err := json.Unmarshal(tok, v); err != nil {
		return fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	return nil
}
