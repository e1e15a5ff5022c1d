package serve

import (
	"context"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// drain keeps a stdio client's input open, as go-sdk sees it, until every
// request read from it has been answered: a client may write its requests
// and close its input at once, and go-sdk cancels what is in flight and
// refuses what is queued as soon as its reader ends. What the agent asks
// the client meanwhile (sampling, elicitation, roots) can get no answer
// any more: each such call is answered for the client with an error, so
// that the request waiting on it finishes too.
type drain struct {
	ctx  context.Context // the connection's: its end stops the wait
	lean *leanCalls      // the requests in flight (its ours and sdk)

	mu      sync.Mutex
	ended   bool
	asked   map[int64]bool // the agent's calls to the client not answered yet
	replies [][]byte       // answers made up for them, for go-sdk to read
	wake    chan struct{}
}

func newDrain(ctx context.Context, lean *leanCalls) *drain {
	return &drain{ctx: ctx, lean: lean, asked: map[int64]bool{}, wake: make(chan struct{}, 1)}
}

// wrote is told of every line written to the client: a response may have
// left nothing in flight.
func (d *drain) wrote() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// asking notes a call the agent makes to the client; after the input
// ended it is answered at once.
func (d *drain) asking(id jsonrpc.ID) {
	n, ok := id.Raw().(int64)
	if !ok {
		return
	}
	d.mu.Lock()
	if d.ended {
		d.replies = append(d.replies, noAnswer(n))
	} else {
		d.asked[n] = true
	}
	d.mu.Unlock()
	d.wrote()
}

// replied notes the client's answer to one of the agent's calls.
func (d *drain) replied(id jsonrpc.ID) {
	if n, ok := id.Raw().(int64); ok {
		d.mu.Lock()
		delete(d.asked, n)
		d.mu.Unlock()
	}
}

// next is the frame reader's at the end of the input: a made-up answer
// for go-sdk, or nil once nothing read is left unanswered (or the
// connection ends).
func (d *drain) next() []byte {
	d.mu.Lock()
	if !d.ended {
		d.ended = true
		for n := range d.asked {
			d.replies = append(d.replies, noAnswer(n))
		}
		d.asked = nil
	}
	d.mu.Unlock()
	for {
		d.mu.Lock()
		if len(d.replies) > 0 {
			r := d.replies[0]
			d.replies = d.replies[1:]
			d.mu.Unlock()
			return r
		}
		d.mu.Unlock()
		if !d.lean.busy() {
			return nil
		}
		select {
		case <-d.wake:
		case <-d.ctx.Done():
			return nil
		}
	}
}

// busy reports whether a request read from the client is still to be
// answered, here or by go-sdk.
func (lc *leanCalls) busy() bool {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return len(lc.ours) > 0 || len(lc.sdk) > 0
}

// noAnswer is the error response that stands for the client's answer to
// call n once its input has ended.
func noAnswer(n int64) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), strconv.FormatInt(n, 10)...)
	return append(b, `,"error":{"code":-32603,"message":"the client closed its input: no answer will come"}}`...)
}
