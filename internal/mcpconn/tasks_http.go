package mcpconn

import (
	"bytes"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Task calls over streamable HTTP. go-sdk's connection of that transport
// cannot be wrapped (go-sdk asks it for unexported session state), but
// its HTTP client can: taskTripper unmarks a task call's POST body and
// keeps the raw answer as go-sdk reads it, from a JSON body or from the
// SSE stream that carries it.

// watchHTTPTasks is t with an HTTP client that sees task calls.
func watchHTTPTasks(t *mcp.StreamableClientTransport) (mcp.Transport, *taskAnswers) {
	a := &taskAnswers{}
	client := t.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c := *client
	c.Transport = &taskTripper{base: base, ans: a}
	nt := *t
	nt.HTTPClient = &c
	return &nt, a
}

// taskTripper is the HTTP side of taskConn.
type taskTripper struct {
	base http.RoundTripper
	ans  *taskAnswers
}

func (t *taskTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil || req.GetBody == nil {
		return t.base.RoundTrip(req)
	}
	body, err := req.GetBody() // a copy: go-sdk's body stays for the base
	if err != nil {
		return t.base.RoundTrip(req)
	}
	raw, err := io.ReadAll(body)
	body.Close()
	if err != nil || !bytes.Contains(raw, []byte(taskMark)) {
		return t.base.RoundTrip(req)
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	call, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok || call.Method != "tools/call" {
		return t.base.RoundTrip(req)
	}
	mark, params, ok := unmark(call.Params)
	if !ok {
		return t.base.RoundTrip(req)
	}
	out := *call
	out.Params = params
	if raw, err = jsonrpc.EncodeMessage(&out); err != nil {
		return nil, err
	}
	t.ans.mark(call.ID, mark)
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(raw))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }
	req.ContentLength = int64(len(raw))
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	resp.Body = &answerReader{ReadCloser: resp.Body, ans: t.ans, sse: sse}
	return resp, nil
}

// answerReader passes a response body on and keeps the answers of marked
// calls it carries: the whole body (JSON) or each SSE data line.
type answerReader struct {
	io.ReadCloser
	ans  *taskAnswers
	sse  bool
	line []byte // an SSE line not yet ended, or the JSON body so far
}

// maxAnswerBytes bounds what answerReader holds of one message.
const maxAnswerBytes = 16 << 20

func (r *answerReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if len(r.line)+n <= maxAnswerBytes {
		r.line = append(r.line, p[:n]...)
	} else {
		r.line = r.line[:0] // too large to keep: go-sdk still reads it
	}
	if r.sse {
		for {
			i := bytes.IndexByte(r.line, '\n')
			if i < 0 {
				break
			}
			if d, ok := bytes.CutPrefix(bytes.TrimRight(r.line[:i], "\r"), []byte("data:")); ok {
				r.keep(bytes.TrimSpace(d))
			}
			r.line = r.line[i+1:]
		}
	} else if err == io.EOF {
		r.keep(r.line)
	}
	return n, err
}

func (r *answerReader) keep(data []byte) {
	if len(data) == 0 || !bytes.Contains(data, []byte(`"result"`)) {
		return
	}
	if msg, err := jsonrpc.DecodeMessage(data); err == nil {
		if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil {
			r.ans.got1(resp.ID, resp.Result)
		}
	}
}
