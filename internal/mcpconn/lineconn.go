package mcpconn

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

// lineTransport is a stdio server's newline-delimited JSON-RPC, read a
// line at a time from jsonLines (which has checked each is one JSON
// value) and decoded with encoding/json. go-sdk's IOTransport decodes the
// same stream with a decoder that allocates tens of KiB per message; on
// the served path that is most of the agent's work per call.
type lineTransport struct {
	lines *jsonLines
	w     io.WriteCloser
}

func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{lines: t.lines, w: t.w, incoming: make(chan lineMsg, 16), closed: make(chan struct{})}
	go c.readLoop()
	return c, nil
}

type lineMsg struct {
	msg jsonrpc.Message
	err error
}

type lineConn struct {
	lines    *jsonLines
	w        io.WriteCloser
	incoming chan lineMsg
	queue    []jsonrpc.Message // the rest of a batch
	closed   chan struct{}
	once     sync.Once
	writeMu  sync.Mutex
}

// readLoop reads on its own goroutine so that Close unblocks Read.
func (c *lineConn) readLoop() {
	for {
		line, err := c.lines.next()
		var msgs []jsonrpc.Message
		if err == nil {
			msgs, err = decodeLine(line)
		}
		if err != nil {
			select {
			case c.incoming <- lineMsg{err: err}:
			case <-c.closed:
			}
			return
		}
		for _, m := range msgs {
			select {
			case c.incoming <- lineMsg{msg: m}:
			case <-c.closed:
				return
			}
		}
	}
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m.msg, m.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
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

func (c *lineConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		c.w.Close()
		c.lines.Close()
	})
	return nil
}

func (c *lineConn) SessionID() string { return "" }

// wireMessage is one JSON-RPC message as it is written.
type wireMessage struct {
	Version string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

// decodeLine decodes one message, or each member of a batch.
func decodeLine(line []byte) ([]jsonrpc.Message, error) {
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
