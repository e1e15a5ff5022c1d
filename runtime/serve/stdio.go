package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgen-dev/toolgen/internal/jsonrpcline"
)

// Limits on one message from a client.
const (
	// DefaultMaxStdioBytes caps one stdio line, as go-sdk's own stdio
	// transport does.
	DefaultMaxStdioBytes = 16 << 20
	// MaxDepth bounds the nesting of arrays and objects in one message.
	// go-sdk refuses more than 1000 by ending the connection; real
	// messages nest a few levels.
	MaxDepth = 512
)

// stdioTransport is newline-delimited JSON-RPC whose frames are checked
// before go-sdk decodes them. go-sdk ends the whole connection on one line
// it cannot decode (not JSON, too deep, too long, not JSON-RPC); here such
// a line is answered with a JSON-RPC error when its id can be found and
// dropped otherwise, and serving goes on.
type stdioTransport struct {
	in     io.ReadCloser
	out    io.WriteCloser
	max    int
	logger *slog.Logger
	server *Server
	lean   *leanCalls  // once connected
	hungUp atomic.Bool // a write to the client failed: it has gone
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	out := &lockedWriter{w: t.out}
	frames := newFrameReader(t.in, t.max, func(b badFrame) {
		answered := b.hasID && out.answer(b.id, b.code, b.msg) == nil
		t.logger.Warn("serve.bad_message", "reason", b.msg, "bytes", b.size, "answered", answered)
	})
	// Nothing more can reach a client that stopped reading (its end of our
	// output closed): stop reading its input too, and end as at EOF.
	out.failed = sync.OnceFunc(func() {
		t.hungUp.Store(true)
		frames.Close()
	})
	// jsonrpcline, not go-sdk's IOTransport: the frames are checked here
	// already, and its decoder's per-message cost was most of the served
	// path's (scripts/servedbench); tools/call does not reach go-sdk at
	// all (leanCalls).
	lean := newLeanCalls(ctx, t.server, out)
	t.lean = lean
	d := newDrain(lean.ctx, lean)
	frames.drain, out.wrote = d, d.wrote
	conn := jsonrpcline.NewConn(frames, out, jsonrpcline.Options{
		Bad: func(err error) {
			t.logger.Warn("serve.bad_message", "reason", err.Error(), "answered", false)
		},
		Take: lean.take,
	})
	return &forgivingConn{Connection: conn, frames: frames, logger: t.logger, lean: lean, drain: d}, nil
}

// forgivingConn keeps reading after go-sdk refuses one message (a batch
// with a bad member, duplicate ids): only the end of the input, a read
// error or a closed connection ends it.
type forgivingConn struct {
	mcp.Connection
	frames *frameReader
	logger *slog.Logger
	lean   *leanCalls
	drain  *drain
}

func (c *forgivingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.ID.IsValid() {
		c.lean.answered(r.ID)
	} else if r, ok := msg.(*jsonrpc.Request); ok && r.ID.IsValid() {
		c.drain.asking(r.ID)
	}
	return c.Connection.Write(ctx, msg)
}

// Close ends the calls answered here first (as go-sdk ends its own), so
// that their responses are written before the connection closes.
func (c *forgivingConn) Close() error {
	c.lean.close()
	return c.Connection.Close()
}

func (c *forgivingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if r, ok := msg.(*jsonrpc.Response); ok && err == nil {
			c.drain.replied(r.ID)
		}
		if err == nil || ctx.Err() != nil || errors.Is(err, io.EOF) || c.frames.ended.Load() {
			return msg, err
		}
		c.logger.Warn("serve.bad_message", "reason", err.Error(), "answered", false)
	}
}

// lockedWriter serializes go-sdk's messages and our error answers: each
// is one Write of one whole line.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.WriteCloser
	wrote  func() // after each line (drain)
	failed func() // after a write fails
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	n, err := w.w.Write(p)
	w.mu.Unlock()
	if err != nil && w.failed != nil {
		w.failed()
	}
	if w.wrote != nil {
		w.wrote()
	}
	return n, err
}

func (w *lockedWriter) Close() error { return w.w.Close() }

func (w *lockedWriter) answer(id jsonrpc.ID, code int64, msg string) error {
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// badFrame is a line that never reaches go-sdk.
type badFrame struct {
	id    jsonrpc.ID
	hasID bool
	code  int64
	msg   string
	size  int
}

// frameReader reads lines from a client and passes on only those go-sdk
// can take: one JSON value each, at most max bytes and MaxDepth deep, and
// a well-formed JSON-RPC message if it is an object. An oversized line is
// discarded as it streams past, never held whole.
type frameReader struct {
	in    io.Closer
	src   *bufio.Reader
	max   int
	bad   func(badFrame)
	line  []byte // the line being read (its first max bytes)
	err   error  // the input's end or failure, returned after the last frame
	ended atomic.Bool
	drain *drain // at the end: answers still owed (drain.go)
}

func newFrameReader(in io.ReadCloser, max int, bad func(badFrame)) *frameReader {
	if max <= 0 {
		max = DefaultMaxStdioBytes
	}
	return &frameReader{in: in, src: bufio.NewReaderSize(in, 64<<10), max: max, bad: bad}
}

func (r *frameReader) Close() error { return r.in.Close() }

// Next returns the next checked frame, for jsonrpcline; valid until the
// following call.
func (r *frameReader) Next() ([]byte, error) {
	for {
		if r.err != nil {
			if r.drain != nil {
				if frame := r.drain.next(); frame != nil {
					return frame, nil
				}
			}
			r.ended.Store(true)
			return nil, r.err
		}
		line, size, err := r.next()
		r.err = err
		if frame := r.check(line, size); frame != nil {
			return frame, nil
		}
	}
}

// next reads one line. It keeps at most max+1 bytes of it (so a line over
// max is known to be one, and its start can be searched for an id) and
// returns the size of its content without the newline.
func (r *frameReader) next() ([]byte, int, error) {
	r.line = r.line[:0]
	size := 0
	for {
		chunk, err := r.src.ReadSlice('\n')
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		size += len(chunk)
		if room := r.max + 1 - len(r.line); room > 0 {
			r.line = append(r.line, chunk[:min(len(chunk), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return r.line, size, err
	}
}

// check returns the frame to pass on, or nil after reporting why not.
func (r *frameReader) check(line []byte, size int) []byte {
	if size > r.max {
		r.reject(line, size, jsonrpc.CodeParseError, fmt.Sprintf("parse error: message of %d bytes is over the %d-byte limit", size, r.max))
		return nil
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if deeperThan(line, MaxDepth) {
		r.reject(line, size, jsonrpc.CodeParseError, fmt.Sprintf("parse error: message nested deeper than %d levels", MaxDepth))
		return nil
	}
	if !json.Valid(line) {
		r.reject(line, size, jsonrpc.CodeParseError, "parse error: not a JSON value")
		return nil
	}
	switch line[0] {
	case '[':
		return line // a batch: go-sdk checks its members (forgivingConn)
	case '{':
		if err := checkEnvelope(line); err != nil {
			r.reject(line, size, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
			return nil
		}
		return line
	}
	r.reject(line, size, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC message")
	return nil
}

func (r *frameReader) reject(line []byte, size int, code int64, msg string) {
	id, ok := requestID(line)
	r.bad(badFrame{id: id, hasID: ok, code: code, msg: msg, size: size})
}

// deeperThan reports whether arrays and objects in b nest deeper than max,
// skipping strings. b need not be valid JSON.
func deeperThan(b []byte, max int) bool {
	depth := 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > max {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

// requestID finds the "id" member of the top-level object in b, which may
// be cut short or broken elsewhere, so that a refused request can still be
// answered. Only a string or an integer is an id worth answering.
func requestID(b []byte) (jsonrpc.ID, bool) {
	i := jsonrpcline.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return jsonrpc.ID{}, false
	}
	depth := 0
	expectKey := false
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			end := jsonrpcline.StringEnd(b, i)
			if end < 0 {
				return jsonrpc.ID{}, false
			}
			if depth == 1 && expectKey {
				expectKey = false
				if string(b[i:end]) == `"id"` {
					if j := jsonrpcline.SkipSpace(b, end); j < len(b) && b[j] == ':' {
						return idValue(b, jsonrpcline.SkipSpace(b, j+1))
					}
				}
			}
			i = end
			continue
		case c == '{' || c == '[':
			depth++
			expectKey = depth == 1 // only the top-level object's keys
		case c == '}' || c == ']':
			depth--
		case c == ',':
			expectKey = depth == 1
		}
		i++
	}
	return jsonrpc.ID{}, false
}

// idValue reads a string or number id at b[i:].
func idValue(b []byte, i int) (jsonrpc.ID, bool) {
	if i >= len(b) {
		return jsonrpc.ID{}, false
	}
	end := i
	if b[i] == '"' {
		if end = jsonrpcline.StringEnd(b, i); end < 0 {
			return jsonrpc.ID{}, false
		}
	} else {
		for end < len(b) && bytes.IndexByte([]byte("-+.0123456789eE"), b[end]) >= 0 {
			end++
		}
	}
	var v any
	if json.Unmarshal(b[i:end], &v) != nil {
		return jsonrpc.ID{}, false
	}
	switch v := v.(type) {
	case string:
	case float64:
		if v != float64(int64(v)) {
			return jsonrpc.ID{}, false
		}
	default:
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil && id.IsValid()
}

var envelopeMembers = []string{"jsonrpc", "id", "method", "error"}

// checkEnvelope refuses the JSON object b (valid JSON) where go-sdk's
// jsonrpc.DecodeMessage would, without decoding the params: that costs a
// pass and a buffer of tens of KiB per message. A message with an error
// member (a client's answer to a server request, rare) is checked by
// DecodeMessage itself.
func checkEnvelope(b []byte) error {
	var version, id, method, errMember []byte
	jsonrpcline.Pick(b, envelopeMembers, &version, &id, &method, &errMember)
	if errMember != nil && string(errMember) != "null" {
		_, err := jsonrpc.DecodeMessage(b)
		return err
	}
	if version == nil || jsonrpcline.Unquote(version) != "2.0" || version[0] != '"' {
		return errors.New(`"jsonrpc" is not "2.0"`)
	}
	hasID := false
	switch {
	case id == nil || string(id) == "null":
	case id[0] == '"':
		hasID = true
	case id[0] == '-' || id[0] >= '0' && id[0] <= '9':
		if _, err := strconv.ParseFloat(string(id), 64); err != nil {
			return errors.New(`"id" is out of range`)
		}
		hasID = true
	default:
		return errors.New(`"id" is not a string or a number`)
	}
	switch {
	case method == nil:
		if !hasID {
			return errors.New(`neither "method" nor "id"`)
		}
	case string(method) != "null" && method[0] != '"':
		return errors.New(`"method" is not a string`)
	}
	return nil
}
