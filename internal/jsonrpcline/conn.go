// Package jsonrpcline is newline-delimited JSON-RPC for go-sdk, read a
// line at a time and decoded with encoding/json. go-sdk's own IOTransport
// hands each line from a reader goroutine to a decoder that allocates
// tens of KiB per message and then decodes it twice (as a batch, then as
// one message); on an agent's served path, where every call crosses two
// such connections, that was most of the agent's work per call. Both the
// runtime's client connections to stdio servers (internal/mcpconn) and an
// agent's own stdio server (runtime/serve) use it, each with its own
// checks of the framing (Lines).
package jsonrpcline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

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
	c := &Conn{lines: lines, w: w, bad: bad, incoming: make(chan message, 16), closed: make(chan struct{})}
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
	w        io.WriteCloser
	incoming chan message
	queue    []jsonrpc.Message // the rest of a batch
	closed   chan struct{}
	once     sync.Once
	writeMu  sync.Mutex
}

// readLoop reads on its own goroutine so that Close unblocks Read.
func (c *Conn) readLoop() {
	for {
		line, err := c.lines.Next()
		var msgs []jsonrpc.Message
		if err == nil {
			msgs, err = DecodeLine(line)
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
				return
			}
		}
	}
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

func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %v", err)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.w.Write(append(data, '\n'))
	return err
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

// wireMessage is one JSON-RPC message as it is written.
type wireMessage struct {
	Version string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

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
	var w wireMessage
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&w); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
	}
	if w.Version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", w.Version, "2.0")
	}
	idv := w.ID
	if n, ok := idv.(json.Number); ok {
		f, err := n.Float64()
		if err != nil {
			return nil, fmt.Errorf("invalid id %s", n)
		}
		idv = f
	}
	id, err := jsonrpc.MakeID(idv)
	if err != nil {
		return nil, err
	}
	if w.Method != nil {
		return &jsonrpc.Request{ID: id, Method: *w.Method, Params: w.Params}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("invalid request: a response without an id")
	}
	r := &jsonrpc.Response{ID: id, Result: w.Result}
	if w.Error != nil {
		r.Error = w.Error
	}
	return r, nil
}
