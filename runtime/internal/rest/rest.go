// Package rest implements tools backed by one HTTP endpoint: the tool's arguments fill an
// RFC 6570 URL template, the arguments the template does not use become the query string (GET,
// DELETE and other body-less methods) or a JSON body (POST, PUT, PATCH), and a 2xx response body
// is the tool's result.
package rest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	scrub "github.com/toolgen-dev/toolgen/internal/redact"

	"github.com/yosida95/uritemplate/v3"
)

// Limits that apply when the Spec or the caller sets none.
const (
	DefaultMaxResponseBytes = 10 << 20 // a hard cap on what one call reads
	MaxRedirects            = 5
	errorSnippetBytes       = 1024 // how much of an error response the model sees
)

// Header is one request header, its value already resolved from the environment by the caller.
type Header struct{ Key, Value string }

// Spec describes one REST tool, as a tool block's rest { } declares it.
type Spec struct {
	Method      string // GET when empty
	URL         string // RFC 6570 template over the tool's arguments
	Headers     []Header
	InputSchema json.RawMessage // its "required" list is enforced before any request is sent

	// MaxResponseBytes caps the response body; a larger one is an error, not a truncated
	// result. Zero means DefaultMaxResponseBytes.
	MaxResponseBytes int64

	// Secrets are the resolved env() values in URL and Headers: scrubbed
	// from every error, even where they sit in a URL's path (values under
	// redact.MinLen bytes excepted). Results are scrubbed by the caller.
	Secrets []string
}

// Tool calls one REST endpoint. It is safe for concurrent use.
type Tool struct {
	method   string
	raw      string // the template for messages, without its literal query or user info
	segs     []segment
	vars     []string        // template variables, in template order
	optional map[string]bool // variables that may be left out
	required []string        // from the input schema
	fixed    *url.URL        // the template's literal scheme, user info and host, when it has them
	headers  http.Header
	hasBody  bool
	schema   json.RawMessage
	max      int64
	client   *http.Client
	secrets  *scrub.Redactor
}

// New checks the spec and parses its URL template once. client may be nil (a default client is
// used); unless it sets its own CheckRedirect, redirects are followed at most MaxRedirects times.
func New(spec Spec, client *http.Client) (*Tool, error) {
	t, err := newTool(spec, client)
	if err != nil {
		return nil, errors.New(scrub.String(err.Error(), spec.Secrets))
	}
	t.secrets = scrub.New(spec.Secrets)
	return t, nil
}

// NewFrom is New for a spec in the runtime's terms (runtime.RESTSpec,
// which cannot name this package): headers as key, value pairs.
func NewFrom(method, url string, headers [][2]string, schema json.RawMessage, secrets []string, client *http.Client) (*Tool, error) {
	spec := Spec{Method: method, URL: url, InputSchema: schema, Secrets: secrets}
	for _, h := range headers {
		spec.Headers = append(spec.Headers, Header{Key: h[0], Value: h[1]})
	}
	return New(spec, client)
}

func newTool(spec Spec, client *http.Client) (t *Tool, err error) {
	defer func() {
		if r := recover(); r != nil { // the template parser panics on states it did not foresee
			t, err = nil, fmt.Errorf("rest: invalid URL template %q", redactTemplate(spec.URL))
		}
	}()
	method := strings.ToUpper(strings.TrimSpace(spec.Method))
	if method == "" {
		method = http.MethodGet
	}
	if !isToken(method) {
		return nil, fmt.Errorf("rest: invalid method %q", spec.Method)
	}
	if !strings.HasPrefix(spec.URL, "http://") && !strings.HasPrefix(spec.URL, "https://") {
		return nil, fmt.Errorf("rest: URL template %q must start with http:// or https://", redactTemplate(spec.URL))
	}
	if _, err := uritemplate.New(spec.URL); err != nil {
		return nil, fmt.Errorf("rest: invalid URL template %q: %s", redactTemplate(spec.URL), templateProblem(spec.URL, err))
	}
	t = &Tool{
		method:  method,
		raw:     redactTemplate(spec.URL),
		segs:    compileTemplate(spec.URL),
		headers: http.Header{},
		hasBody: method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch,
		schema:  spec.InputSchema,
		max:     spec.MaxResponseBytes,
	}
	t.vars, t.optional = templateVars(t.segs)
	if t.max <= 0 {
		t.max = DefaultMaxResponseBytes
	}
	t.fixed = literalOrigin(spec.URL)
	if len(spec.InputSchema) > 0 {
		var schema struct {
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(spec.InputSchema, &schema); err != nil {
			return nil, fmt.Errorf("rest: input schema: %v", err)
		}
		t.required = schema.Required
	}
	for _, h := range spec.Headers {
		if !isToken(h.Key) {
			return nil, fmt.Errorf("rest: invalid header name %q", h.Key)
		}
		// The value may be a secret: never print it.
		if strings.ContainsAny(h.Value, "\r\n\x00") {
			return nil, fmt.Errorf("rest: header %q has a value with a line break or NUL byte", h.Key)
		}
		t.headers.Add(h.Key, h.Value)
	}
	if client == nil {
		client = &http.Client{}
	}
	c := *client
	if c.CheckRedirect == nil {
		c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return fmt.Errorf("stopped after %d redirects", MaxRedirects)
			}
			// http.Client forwards custom headers (API keys) on redirect:
			// never to another origin.
			if first := via[0].URL; req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
				return fmt.Errorf("refused a redirect to another origin (%s://%s)", req.URL.Scheme, req.URL.Host)
			}
			return nil
		}
	}
	t.client = &c
	return t, nil
}

// Schema returns the input schema the spec declared.
func (t *Tool) Schema() json.RawMessage { return t.schema }

// Call sends one request built from args and returns the response body.
func (t *Tool) Call(ctx context.Context, args json.RawMessage) (string, error) {
	out, err := t.call(ctx, args)
	if err != nil && t.secrets != nil {
		return "", errors.New(t.secrets.String(err.Error()))
	}
	return out, err
}

func (t *Tool) call(ctx context.Context, args json.RawMessage) (string, error) {
	req, err := t.request(ctx, args)
	if err != nil {
		return "", err
	}
	where := req.Method + " " + redact(req.URL)
	resp, err := t.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("%s: %s", where, describeTransportError(ctx, err))
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, errorSnippetBytes+1))
		return "", fmt.Errorf("%s: HTTP %s%s", where, resp.Status, formatSnippet(snippet))
	}
	if resp.ContentLength > t.max {
		return "", fmt.Errorf("%s: the response is %d bytes, over the %d-byte limit", where, resp.ContentLength, t.max)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, t.max+1))
	if err != nil {
		return "", fmt.Errorf("%s: reading the response: %s", where, describeTransportError(ctx, err))
	}
	if int64(len(body)) > t.max {
		return "", fmt.Errorf("%s: the response is larger than the %d-byte limit", where, t.max)
	}
	if len(body) == 0 {
		return fmt.Sprintf("(empty response, HTTP %s)", resp.Status), nil
	}
	if !utf8.Valid(body) {
		ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		return "", fmt.Errorf("%s: the response is not text (%d bytes of %s)", where, len(body), cmp.Or(ctype, "unknown type"))
	}
	return string(body), nil
}

// redactTemplate drops what may hold a secret from a template shown in messages: the URL may
// have been built from env() values, and an API key usually sits in the user info or the query.
func redactTemplate(raw string) string {
	if scheme, rest, ok := strings.Cut(raw, "://"); ok {
		end := strings.IndexAny(rest, "/?#{")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			rest = "…" + rest[at:]
		}
		raw = scheme + "://" + rest
	}
	depth := 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{':
			depth++
		case '}':
			depth--
		case '?', '#':
			if depth == 0 {
				return raw[:i] + string(raw[i]) + "…"
			}
		}
	}
	return raw
}

// templateProblem rewords a uritemplate parse error, which ends with the template up to the
// problem, as the problem and its position, so the template text (and any secret in it) is
// not repeated.
func templateProblem(raw string, err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "+raw[:min(len(raw), len("http://"))]); i >= 0 {
		return fmt.Sprintf("%s at character %d", msg[:i], len(msg)-i-len(": "))
	}
	return "syntax error"
}

// literalOrigin returns the scheme, user info and host the template spells out literally, or nil
// when an expression is part of the host (as in "https://{region}.api.example"). An expression
// right after the host that starts a path, query or fragment ({/p}, {+p}, {?q}, {&q}, {#f})
// leaves the host literal.
func literalOrigin(tmpl string) *url.URL {
	scheme, rest, _ := strings.Cut(tmpl, "://")
	end := strings.IndexAny(rest, "/?#{")
	if end < 0 {
		end = len(rest)
	}
	if end < len(rest) && rest[end] == '{' && (end+1 >= len(rest) || !strings.ContainsRune("/+?&#", rune(rest[end+1]))) {
		return nil
	}
	u, err := url.Parse(scheme + "://" + rest[:end])
	if err != nil || u.Host == "" {
		return nil
	}
	return u
}

// sameOrigin reports whether an expanded URL still goes where the template says: an argument
// like "@evil.example/x" in "{+path}" must not turn the host into user info.
func (t *Tool) sameOrigin(u *url.URL) bool {
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return false
	}
	if t.fixed == nil {
		return u.User == nil
	}
	return u.Scheme == t.fixed.Scheme && u.Host == t.fixed.Host && u.User.String() == t.fixed.User.String()
}

// request builds the HTTP request: template variables from the arguments, the rest as query
// or body.
func (t *Tool) request(ctx context.Context, args json.RawMessage) (*http.Request, error) {
	var fields map[string]json.RawMessage
	if len(bytes.TrimSpace(args)) > 0 {
		if err := json.Unmarshal(args, &fields); err != nil {
			return nil, fmt.Errorf("invalid arguments: %s", describeJSONError(err))
		}
	}
	for _, name := range t.required {
		if v, ok := fields[name]; !ok || string(v) == "null" {
			return nil, fmt.Errorf("missing required argument %q", name)
		}
	}

	values := uritemplate.Values{}
	for _, name := range t.vars {
		raw, given := fields[name]
		if !given {
			if !t.optional[name] {
				return nil, fmt.Errorf("missing required argument %q: the URL %s needs it", name, t.raw)
			}
			continue
		}
		v, ok, err := templateValue(name, raw)
		switch {
		case err != nil:
			return nil, err
		case t.optional[name] && !ok:
			continue
		case !ok:
			return nil, fmt.Errorf("missing required argument %q: the URL %s needs it (null and empty values do not count)", name, t.raw)
		case !t.optional[name] && v.T == uritemplate.ValueTypeString && v.String() == "":
			return nil, fmt.Errorf("argument %q is empty, but the URL %s needs a value for it", name, t.raw)
		}
		values.Set(name, v)
	}
	u, err := url.Parse(expandTemplate(t.segs, values))
	if err != nil {
		return nil, fmt.Errorf("the arguments make an invalid URL: %v", err)
	}
	if !t.sameOrigin(u) {
		return nil, fmt.Errorf("the arguments change the URL's host (%s); they may only fill in the path and query", redact(u))
	}
	if seg, ok := dotSegment(u.EscapedPath()); ok {
		return nil, fmt.Errorf("the arguments put the dot segment %q into the URL's path, which would move the request elsewhere on the server", seg)
	}

	var leftover []string
	for name := range fields {
		if !slices.Contains(t.vars, name) {
			leftover = append(leftover, name)
		}
	}
	slices.Sort(leftover)

	var body io.Reader
	if t.hasBody {
		rest := make(map[string]json.RawMessage, len(leftover))
		for _, name := range leftover {
			rest[name] = fields[name]
		}
		b, err := json.Marshal(rest)
		if err != nil {
			return nil, fmt.Errorf("encoding the request body: %v", err)
		}
		body = bytes.NewReader(b)
	} else if len(leftover) > 0 {
		q := url.Values{}
		for _, name := range leftover {
			if err := addQuery(q, name, fields[name]); err != nil {
				return nil, err
			}
		}
		if enc := q.Encode(); enc != "" {
			if u.RawQuery != "" {
				u.RawQuery += "&"
			}
			u.RawQuery += enc
		}
	}

	req, err := http.NewRequestWithContext(ctx, t.method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("building the request: %v", err)
	}
	for k, v := range t.headers {
		req.Header[k] = v
	}
	if host := t.headers.Get("Host"); host != "" {
		req.Host = host
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json, text/*;q=0.9, */*;q=0.5")
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "toolgen-rest")
	}
	return req, nil
}

// addQuery adds one argument to the query: scalars as name=value, arrays as repeated names,
// objects (and arrays of objects) as their JSON text.
func addQuery(q url.Values, name string, raw json.RawMessage) error {
	val, err := decodeValue(raw)
	if err != nil {
		return fmt.Errorf("argument %q: %v", name, err)
	}
	if val == nil {
		return nil
	}
	if s, ok := scalarText(val); ok {
		q.Add(name, s)
		return nil
	}
	if items, ok := val.([]any); ok {
		for _, item := range items {
			if s, ok := scalarText(item); ok {
				q.Add(name, s)
				continue
			}
			b, _ := json.Marshal(item)
			q.Add(name, string(b))
		}
		return nil
	}
	var compact bytes.Buffer
	json.Compact(&compact, raw)
	q.Add(name, compact.String())
	return nil
}

func decodeValue(raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, errors.New("no value")
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case c == '-' || '0' <= c && c <= '9':
		if !json.Valid(raw) {
			return nil, fmt.Errorf("invalid number %s", raw)
		}
		return json.Number(raw), nil // as written: 12345678901234567890 stays exact
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep 12345678901234567890 as written
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// describeTransportError says why no response arrived, in the caller's terms when the
// context ended.
func describeTransportError(ctx context.Context, err error) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return "timed out (context deadline exceeded)"
	case ctx.Err() != nil:
		return "cancelled: " + context.Cause(ctx).Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // its message repeats the URL, query and all
	}
	return err.Error()
}

// redact drops the query and user info from a URL for messages: either may carry a key.
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	c.ForceQuery = false
	c.Fragment = ""
	return c.String()
}

func formatSnippet(b []byte) string {
	cut := len(b) > errorSnippetBytes
	if cut {
		b = b[:errorSnippetBytes]
		for len(b) > 0 && !utf8.RuneStart(b[len(b)-1]) {
			b = b[:len(b)-1]
		}
		if len(b) > 0 {
			b = b[:len(b)-1]
		}
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD"))
	if s == "" {
		return ""
	}
	if cut {
		s += " …"
	}
	return ": " + s
}

func describeJSONError(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return fmt.Sprintf("expected a JSON object, got %s", typeErr.Value)
	case errors.As(err, &syntaxErr) && syntaxErr.Error() == "unexpected end of JSON input":
		return "truncated JSON"
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("malformed JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated JSON"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// isToken reports whether s is an HTTP token (RFC 9110), as method and header names must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c <= ' ' || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 || c == 0x7f {
			return false
		}
	}
	return true
}

// dotSegment finds a "." or ".." segment in an escaped path, also written
// percent-encoded (%2e): a server or proxy resolves them (RFC 3986 §5.2.4),
// so an argument "..", which the template's escaping leaves as it is,
// would reach another endpoint with the tool's credentials. One written
// into the spec's URL is refused as well: no API needs one.
func dotSegment(path string) (string, bool) {
	for _, seg := range strings.Split(path, "/") {
		if un, err := url.PathUnescape(seg); err == nil && (un == "." || un == "..") {
			return seg, true
		}
	}
	return "", false
}
