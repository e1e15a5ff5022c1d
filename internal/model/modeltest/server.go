// Package modeltest is a scripted model server for tests: a real HTTP
// server on loopback that speaks the OpenAI Chat Completions and Anthropic
// Messages wire formats, plain and streamed, and answers each request with
// the next scripted Turn.
//
//	srv := modeltest.NewServer(t,
//		modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
//		modeltest.Turn{Text: "The file says hello."},
//	)
//	// openai:    base_url = srv.OpenAIBaseURL()     (".../v1")
//	// anthropic: base_url = srv.AnthropicBaseURL()  (the host root)
//
// Every request is decoded and recorded (Requests) for assertions. Like the
// real services it refuses malformed requests with a 400 in the provider's
// error shape: unknown top-level fields, tool results that answer no call,
// calls left unanswered, thinking blocks whose signature it did not issue,
// more than four cache breakpoints. A test therefore fails when the client
// sends what the real API would refuse, not only what this client expects.
package modeltest

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// Turn is the server's answer to one request.
type Turn struct {
	// Text is the assistant's text.
	Text string
	// ToolCalls are asked for together, in one answer (parallel calls).
	ToolCalls []Call
	// Thinking, for Anthropic, puts a signed thinking block first. The
	// server accepts it back only unchanged.
	Thinking string
	// JSON answers a structured-output request the way each API does:
	// OpenAI as the message content, Anthropic as the input of the tool
	// that tool_choice forces.
	JSON string
	// StopReason replaces the natural one (OpenAI finish_reason or
	// Anthropic stop_reason), e.g. "length" or "max_tokens".
	StopReason string
	Usage      Usage

	// Status, when set, answers with that HTTP error instead.
	Status int
	// RetryAfter is sent as the Retry-After header of an error answer.
	RetryAfter string
	// Message is the error's message; a default fits Status.
	Message string

	// Delay waits before answering.
	Delay time.Duration
	// Stall, for a stream, sends the first events and then holds the
	// response open until the client goes away (see Server.Stalled).
	Stall bool
	// Cut, for a stream, ends the body after the first events, without the
	// final ones, as a dropped connection would.
	Cut bool
	// StreamError, for a stream, sends an error event after the first
	// events (an overload in the middle of an answer).
	StreamError string
}

// Call is one tool call in a Turn. ID is generated when empty.
type Call struct {
	ID   string
	Name string
	Args string // JSON text
}

// Usage is the token count a Turn reports. Input is the uncached input;
// the OpenAI form reports Input+CacheRead+CacheWrite as prompt_tokens with
// CacheRead as cached_tokens, the Anthropic form reports each separately.
// Zero Input and Output report 10 and 5.
type Usage struct {
	Input, Output, CacheRead, CacheWrite int
}

// Server is the scripted model server.
type Server struct {
	// URL is the server's root, http://127.0.0.1:PORT.
	URL string

	t       testing.TB
	srv     *httptest.Server
	stalled chan *Request

	mu         sync.Mutex
	turns      []Turn
	respond    func(*Request) Turn
	requests   []*Request
	key        string
	seq        int
	signatures map[string]string // thinking signature → thinking text
}

// NewServer starts a server that answers with turns, in order. It is closed
// when the test ends.
func NewServer(t testing.TB, turns ...Turn) *Server {
	s := &Server{t: t, turns: turns, stalled: make(chan *Request, 16), signatures: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	t.Cleanup(s.Close)
	return s
}

// OpenAIBaseURL is what a user sets as base_url for the openai provider.
func (s *Server) OpenAIBaseURL() string { return s.URL + "/v1" }

// AnthropicBaseURL is what a user sets as base_url for the anthropic provider.
func (s *Server) AnthropicBaseURL() string { return s.URL }

// Close stops the server, cutting any stalled response.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Push adds turns to the end of the script.
func (s *Server) Push(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Respond answers with fn once the scripted turns are used up.
func (s *Server) Respond(fn func(*Request) Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = fn
}

// RequireKey makes requests without this key fail with 401, as the real
// services do. The 401 message quotes the key the client sent, the worst a
// server could do, so tests prove the client scrubs it.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// Requests returns every request so far, in arrival order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// Stalled delivers each request whose Turn stalled, once its first events
// are on the wire.
func (s *Server) Stalled() <-chan *Request { return s.stalled }

// Request is one recorded request, decoded. The key it carried is not kept
// in Header; check it with HasKey.
type Request struct {
	// Format is "openai" or "anthropic".
	Format string
	Path   string
	Header http.Header
	// Body is the request body as sent.
	Body     json.RawMessage
	Model    string
	Stream   bool
	Received time.Time

	// IncludeUsage is OpenAI's stream_options.include_usage.
	IncludeUsage bool
	// MaxTokens is max_tokens (Anthropic) or max_completion_tokens, else
	// max_tokens (OpenAI); 0 when absent.
	MaxTokens   int
	Temperature *float64
	System      string
	Messages    []Message
	Tools       []Tool
	// ToolChoice is the tool_choice field as sent.
	ToolChoice json.RawMessage
	// JSONSchema and JSONName are the structured output asked for: OpenAI's
	// response_format json_schema, or Anthropic's forced tool.
	JSONSchema json.RawMessage
	JSONName   string
	// CacheBreakpoints counts Anthropic cache_control markers.
	CacheBreakpoints int

	key  string
	done <-chan struct{}
	gone atomic.Bool
}

// HasKey reports whether the request carried key (Authorization: Bearer
// for OpenAI, x-api-key for Anthropic).
func (r *Request) HasKey(key string) bool {
	return key != "" && subtle.ConstantTimeCompare([]byte(r.key), []byte(key)) == 1
}

// ClientGone reports whether the client went away before the answer ended.
func (r *Request) ClientGone() bool { return r.gone.Load() }

// Message is one message of a recorded conversation, in either format.
type Message struct {
	Role string // system is in Request.System; "tool" is OpenAI's tool role
	Text string
	// ToolCalls are an assistant's calls (OpenAI tool_calls, Anthropic tool_use).
	ToolCalls []Call
	// Results are tool results: OpenAI's one per tool message, Anthropic's
	// tool_result blocks of a user message.
	Results []Result
	// Blocks are Anthropic's content blocks as sent.
	Blocks []json.RawMessage
}

// Result is one tool result sent back to the model.
type Result struct {
	CallID  string
	Text    string
	IsError bool
}

// Tool is one declared tool.
type Tool struct {
	Name        string
	Description string
	Schema      json.RawMessage
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	format := "openai"
	if r.Header.Get("Anthropic-Version") != "" || r.Header.Get("X-Api-Key") != "" {
		format = "anthropic"
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.serveOpenAI(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.serveAnthropic(w, r)
	default:
		writeError(w, format, http.StatusNotFound, "", fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path))
	}
}

// record stores req and answers what comes before the turn: a missing or
// wrong key (401), a request the real API would refuse (400), a scripted
// delay or error. It returns the turn, or false when the answer is written.
func (s *Server) record(w http.ResponseWriter, req *Request, key, invalid string) (Turn, bool) {
	req.key = key
	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	want := s.key
	s.mu.Unlock()

	if want != "" && !req.HasKey(want) {
		writeError(w, req.Format, http.StatusUnauthorized, "", "Incorrect API key provided: "+key)
		return Turn{}, false
	}
	if invalid != "" {
		writeError(w, req.Format, http.StatusBadRequest, "", invalid)
		return Turn{}, false
	}

	s.mu.Lock()
	var turn Turn
	ok := len(s.turns) > 0
	if ok {
		turn = s.turns[0]
		s.turns = s.turns[1:]
	}
	respond := s.respond
	s.mu.Unlock()
	if !ok && respond != nil {
		turn, ok = respond(req), true
	}
	if !ok {
		s.t.Errorf("modeltest: request %d (%s) has no scripted turn", n, req.Format)
		w.Header().Set("X-Should-Retry", "false")
		writeError(w, req.Format, http.StatusBadRequest, "", "modeltest: no turn scripted for this request")
		return Turn{}, false
	}
	if turn.Delay > 0 {
		select {
		case <-time.After(turn.Delay):
		case <-req.done:
			return Turn{}, false
		}
	}
	if turn.Status != 0 {
		if turn.RetryAfter != "" {
			w.Header().Set("Retry-After", turn.RetryAfter)
		}
		writeError(w, req.Format, turn.Status, "", turn.Message)
		return Turn{}, false
	}
	return turn, true
}

// nextID numbers answers, so IDs differ across the whole script.
func (s *Server) nextID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return s.seq
}

// received is an HTTP request to a model's API as the test sees it; the
// handler defers finish.
func received(format string, r *http.Request) *Request {
	body, _ := io.ReadAll(r.Body)
	return &Request{Format: format, Path: r.URL.Path, Header: maskHeader(r.Header), Body: body,
		Received: time.Now(), done: r.Context().Done()}
}

// finish marks the request when its client left before the answer ended.
func finish(req *Request, r *http.Request) {
	if r.Context().Err() != nil {
		req.gone.Store(true)
	}
}

// maskHeader keeps the header for assertions without the credentials.
func maskHeader(h http.Header) http.Header {
	h = h.Clone()
	for _, k := range []string{"Authorization", "X-Api-Key", "Api-Key"} {
		if h.Get(k) != "" {
			h.Set(k, "[masked]")
		}
	}
	return h
}

// writeError answers in the provider's error shape.
func writeError(w http.ResponseWriter, format string, status int, errType, message string) {
	if message == "" {
		message = http.StatusText(status)
	}
	w.Header().Set("Content-Type", "application/json")
	var body any
	if format == "anthropic" {
		if errType == "" {
			errType = anthropicErrorType(status)
		}
		w.Header().Set("Request-Id", "req_modeltest")
		body = map[string]any{
			"type":       "error",
			"error":      map[string]any{"type": errType, "message": message},
			"request_id": "req_modeltest",
		}
	} else {
		if errType == "" {
			errType = openAIErrorType(status)
		}
		var code any
		switch status {
		case http.StatusUnauthorized:
			code = "invalid_api_key"
		case http.StatusTooManyRequests:
			code = "rate_limit_exceeded"
		}
		w.Header().Set("X-Request-Id", "req_modeltest")
		body = map[string]any{"error": map[string]any{"message": message, "type": errType, "param": nil, "code": code}}
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

func anthropicErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}

func openAIErrorType(status int) string {
	switch {
	case status == 429:
		return "requests"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}

// sse writes server-sent events, flushing each so the client sees it at once.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes one event; name is empty for OpenAI, which sends data only.
func (e *sse) event(name string, data any) {
	b, ok := data.([]byte)
	if !ok {
		b, _ = json.Marshal(data)
	}
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", b)
	if e.f != nil {
		e.f.Flush()
	}
}

// stall holds a stream open until the client leaves (or a minute passes,
// so a client that never cancels makes its test fail, not hang).
func (s *Server) stall(req *Request) {
	s.stalled <- req
	select {
	case <-req.done:
	case <-time.After(time.Minute):
	}
}

// pieces splits s into short runs on rune boundaries, as a stream does.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for count := 0; i < len(s) && count < n; count++ {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func (u Usage) orDefault() Usage {
	if u.Input == 0 && u.Output == 0 {
		u.Input, u.Output = 10, 5
	}
	return u
}

// decodeStrict decodes a request body refusing unknown top-level fields,
// as both services do.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// with returns a copy of base with more fields.
func with(base, more map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(more))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

func isObject(raw json.RawMessage) bool {
	var v struct {
		Type any `json:"type"`
	}
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	return len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &v) == nil && v.Type == "object"
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}
