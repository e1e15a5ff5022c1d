package serveauth_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/toolgen-dev/toolgen/internal/serveauth"
	_ "github.com/toolgen-dev/toolgen/runtime/serve/jwtauth" // the JWT tests: --auth-issuer needs it linked
)

// issuer is an authorization server as a resource server sees it: its
// metadata, and a key set it can rotate.
type issuer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	keys    map[string]*ecdsa.PrivateKey // by kid
	fetches atomic.Int32
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{keys: map[string]*ecdsa.PrivateKey{}}
	is.rotate("k1")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.fetches.Add(1)
		is.mu.Lock()
		defer is.mu.Unlock()
		var set jose.JSONWebKeySet
		for kid, k := range is.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"})
		}
		writeJSON(w, set)
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

// rotate publishes a new key under kid (and keeps the others).
func (is *issuer) rotate(kid string) {
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	is.mu.Lock()
	is.keys[kid] = k
	is.mu.Unlock()
}

type tokenSpec struct {
	kid      string
	key      *ecdsa.PrivateKey // nil: the issuer's key of kid
	iss      string            // "": the issuer
	aud      []string
	exp, nbf time.Time
	noExp    bool
	scope    string
	typ      string // "": at+jwt; "-": none
}

func (is *issuer) token(t *testing.T, s tokenSpec) string {
	t.Helper()
	if s.kid == "" {
		s.kid = "k1"
	}
	key := s.key
	if key == nil {
		is.mu.Lock()
		key = is.keys[s.kid]
		is.mu.Unlock()
	}
	opts := (&jose.SignerOptions{}).WithHeader("kid", s.kid)
	switch s.typ {
	case "":
		opts = opts.WithType("at+jwt")
	case "-":
	default:
		opts = opts.WithType(jose.ContentType(s.typ))
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := jwt.Claims{Issuer: is.srv.URL, Subject: "user-7", Audience: s.aud, IssuedAt: jwt.NewNumericDate(time.Now()), ID: rand.Text()}
	if s.iss != "" {
		c.Issuer = s.iss
	}
	if s.exp.IsZero() {
		s.exp = time.Now().Add(time.Hour)
	}
	if !s.noExp {
		c.Expiry = jwt.NewNumericDate(s.exp)
	}
	if !s.nbf.IsZero() {
		c.NotBefore = jwt.NewNumericDate(s.nbf)
	}
	tok, err := jwt.Signed(sig).Claims(c).Claims(map[string]any{"scope": s.scope, "client_id": "app"}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// agent is `serve --http` of an agent: a go-sdk MCP server behind the
// middleware, with a tool telling what headers reached it.
type agent struct {
	srv  *httptest.Server
	url  string
	logs *bytes.Buffer
	mu   *sync.Mutex
	a    *serveauth.Auth
}

func newAgent(t *testing.T, cfg func(url string) serveauth.Config) *agent {
	ag := &agent{logs: &bytes.Buffer{}, mu: &sync.Mutex{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "headers", Description: "The Authorization header the tool sees."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, struct{}, error) {
			seen := "none"
			if req.Extra != nil && req.Extra.Header.Get("Authorization") != "" {
				seen = "Authorization: " + req.Extra.Header.Get("Authorization")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: seen}}}, struct{}{}, nil
		})
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	var h http.Handler = http.NotFoundHandler()
	ag.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(ag.srv.Close)
	ag.url = ag.srv.URL + "/mcp"
	c := cfg(ag.url)
	c.Logger = slog.New(slog.NewTextHandler(lockedWriter{ag.mu, ag.logs}, nil))
	a, err := serveauth.New(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	ag.a = a
	h = a.Wrap(mcpHandler)
	return ag
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// post sends an initialize request with the token ("" none) and returns
// the status and challenge.
func (ag *agent) post(t *testing.T, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", ag.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// session connects a go-sdk MCP client carrying token and calls the
// headers tool.
func (ag *agent) session(t *testing.T, token string) string {
	t.Helper()
	client := &http.Client{Transport: bearerTransport(token)}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ag.url, HTTPClient: client}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "headers"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// noneLogged fails when a token shows up in the agent's logs.
func (ag *agent) noneLogged(t *testing.T, tokens ...string) {
	t.Helper()
	ag.mu.Lock()
	logs := ag.logs.String()
	ag.mu.Unlock()
	if !strings.Contains(logs, "serve.auth_failed") {
		t.Error("no refusal was logged: the check proves nothing")
	}
	for _, tok := range tokens {
		if len(tok) > 20 {
			tok = tok[len(tok)-20:] // the signature part is enough to spot a JWT
		}
		if strings.Contains(logs, tok) {
			t.Errorf("token %q… in the logs", tok)
		}
	}
}

func TestBearer(t *testing.T) {
	const secret = "0123456789abcdef-serve-token"
	ag := newAgent(t, func(string) serveauth.Config { return serveauth.Config{Token: secret} })
	if got := ag.session(t, secret); got != "none" {
		t.Errorf("the tool saw %q: the token passed through", got)
	}
	for _, tc := range []struct {
		token, challenge string
	}{
		{"", `Bearer realm="toolgen"`},
		{"0123456789abcdef-serve-tokeN", `Bearer realm="toolgen", error="invalid_token"`},
		{secret + "x", `Bearer realm="toolgen", error="invalid_token"`},
		{"short", `Bearer realm="toolgen", error="invalid_token"`},
	} {
		if code, ch := ag.post(t, tc.token); code != http.StatusUnauthorized || ch != tc.challenge {
			t.Errorf("token %q: %d %q; want 401 %q", tc.token, code, ch, tc.challenge)
		}
	}
	if code, _ := ag.post(t, secret); code != http.StatusOK {
		t.Errorf("good token: %d", code)
	}
	ag.noneLogged(t, secret, "0123456789abcdef-serve-tokeN")

	if _, err := serveauth.New(context.Background(), serveauth.Config{Token: "too-short"}); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("a 9-byte token: %v", err)
	}
}

func TestJWT(t *testing.T) {
	is := newIssuer(t)
	ag := newAgent(t, func(u string) serveauth.Config {
		return serveauth.Config{Issuer: is.srv.URL, Audience: u, Scopes: []string{"agent:use"}, ResourceName: "helper"}
	})
	if ag.a.Mode() != "oauth" {
		t.Fatal(ag.a.Mode())
	}
	good := is.token(t, tokenSpec{aud: []string{ag.url}, scope: "agent:use other"})
	if got := ag.session(t, good); got != "none" {
		t.Errorf("the tool saw %q: the token passed through", got)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	meta := `Bearer resource_metadata="` + ag.srv.URL + `/.well-known/oauth-protected-resource/mcp", scope="agent:use"`
	bad := map[string]string{
		"forged signature":  is.token(t, tokenSpec{aud: []string{ag.url}, scope: "agent:use", key: other}),
		"expired":           is.token(t, tokenSpec{aud: []string{ag.url}, scope: "agent:use", exp: time.Now().Add(-time.Minute)}),
		"not yet valid":     is.token(t, tokenSpec{aud: []string{ag.url}, scope: "agent:use", nbf: time.Now().Add(time.Hour)}),
		"no expiry":         is.token(t, tokenSpec{aud: []string{ag.url}, scope: "agent:use", noExp: true}),
		"wrong audience":    is.token(t, tokenSpec{aud: []string{"https://other.example/mcp"}, scope: "agent:use"}),
		"sibling path":      is.token(t, tokenSpec{aud: []string{ag.srv.URL + "/mcp2"}, scope: "agent:use"}),
		"no audience":       is.token(t, tokenSpec{scope: "agent:use"}),
		"wrong issuer":      is.token(t, tokenSpec{aud: []string{ag.url}, scope: "agent:use", iss: "https://evil.example"}),
		"unsigned (none)":   unsigned(ag.url),
		"hmac with the key": hmacToken(t, ag.url),
		"garbage":           "not.a.jwt",
		"typ JWT":           is.token(t, tokenSpec{aud: []string{ag.url}, scope: "agent:use", typ: "JWT"}),
		"no typ":            is.token(t, tokenSpec{aud: []string{ag.url}, scope: "agent:use", typ: "-"}),
	}
	for name, tok := range bad {
		if code, ch := ag.post(t, tok); code != http.StatusUnauthorized || ch != meta+`, error="invalid_token"` {
			t.Errorf("%s: %d %q", name, code, ch)
		}
	}
	// Within the leeway an expired token still works (clock skew).
	if code, _ := ag.post(t, is.token(t, tokenSpec{aud: []string{ag.url}, scope: "agent:use", exp: time.Now().Add(-10 * time.Second)})); code != http.StatusOK {
		t.Errorf("expired 10s ago (leeway 30s): %d", code)
	}
	// The audience's trailing slash does not matter (RFC 3986 §6.2.3).
	if code, _ := ag.post(t, is.token(t, tokenSpec{aud: []string{ag.url + "/"}, scope: "agent:use"})); code != http.StatusOK {
		t.Errorf("audience with a slash: %d", code)
	}
	if code, ch := ag.post(t, is.token(t, tokenSpec{aud: []string{ag.url}, scope: "other"})); code != http.StatusForbidden || ch != meta+`, error="insufficient_scope"` {
		t.Errorf("missing scope: %d %q", code, ch)
	}
	if code, ch := ag.post(t, ""); code != http.StatusUnauthorized || ch != meta {
		t.Errorf("no token: %d %q", code, ch)
	}
	var all []string
	for _, tok := range bad {
		all = append(all, tok)
	}
	ag.noneLogged(t, append(all, good)...)
}

// An ID token or any other JWT the issuer signs is no access token (RFC
// 9068 §4 wants typ at+jwt); AnyTokenType takes one anyway, for issuers
// that do not set typ. application/at+jwt is the same type.
func TestJWTType(t *testing.T) {
	is := newIssuer(t)
	strict := newAgent(t, func(u string) serveauth.Config { return serveauth.Config{Issuer: is.srv.URL, Audience: u} })
	loose := newAgent(t, func(u string) serveauth.Config {
		return serveauth.Config{Issuer: is.srv.URL, Audience: u, AnyTokenType: true}
	})
	for _, c := range []struct {
		typ           string
		strict, loose int
	}{
		{"", 200, 200},
		{"application/AT+JWT", 200, 200},
		{"JWT", 401, 200},
		{"-", 401, 200},
	} {
		if code, _ := strict.post(t, is.token(t, tokenSpec{aud: []string{strict.url}, typ: c.typ})); code != c.strict {
			t.Errorf("typ %q: %d, want %d", c.typ, code, c.strict)
		}
		if code, _ := loose.post(t, is.token(t, tokenSpec{aud: []string{loose.url}, typ: c.typ})); code != c.loose {
			t.Errorf("typ %q with AnyTokenType: %d, want %d", c.typ, code, c.loose)
		}
	}
}

// A bearer token of spaces is no token, however long.
func TestBearerBlank(t *testing.T) {
	for _, tok := range []string{strings.Repeat(" ", 20), "\t\n                  "} {
		if _, err := serveauth.New(context.Background(), serveauth.Config{Token: tok}); err == nil || !strings.Contains(err.Error(), "blank") {
			t.Errorf("token %q: %v", tok, err)
		}
	}
}

// TestJWKSRotation: a token signed with a key published after start is
// taken once the key set is fetched again; forged key IDs do not make the
// server fetch it again within jwksMissRetry.
func TestJWKSRotation(t *testing.T) {
	is := newIssuer(t)
	ag := newAgent(t, func(u string) serveauth.Config { return serveauth.Config{Issuer: is.srv.URL, Audience: u} })
	if n := is.fetches.Load(); n != 1 {
		t.Fatalf("fetches at start: %d", n)
	}
	is.rotate("k2")
	if code, _ := ag.post(t, is.token(t, tokenSpec{kid: "k2", aud: []string{ag.url}})); code != http.StatusOK {
		t.Fatalf("token of the new key: %d", code)
	}
	if n := is.fetches.Load(); n != 2 {
		t.Errorf("fetches after a new key: %d, want 2", n)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for i := range 5 {
		if code, _ := ag.post(t, is.token(t, tokenSpec{kid: "forged" + string(rune('a'+i)), key: other, aud: []string{ag.url}})); code != http.StatusUnauthorized {
			t.Errorf("forged kid: %d", code)
		}
	}
	if n := is.fetches.Load(); n != 2 {
		t.Errorf("fetches after forged key IDs: %d, want still 2", n)
	}
}

// TestProtectedResourceMetadata: the RFC 9728 document names this server
// and its issuer, at the path clients derive from the server's URL.
func TestProtectedResourceMetadata(t *testing.T) {
	is := newIssuer(t)
	ag := newAgent(t, func(u string) serveauth.Config {
		return serveauth.Config{Issuer: is.srv.URL, Audience: u, Scopes: []string{"agent:use"}, ResourceName: "helper"}
	})
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(ag.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var prm oauthex.ProtectedResourceMetadata
		json.NewDecoder(resp.Body).Decode(&prm)
		resp.Body.Close()
		if resp.StatusCode != 200 || prm.Resource != ag.url || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != is.srv.URL ||
			prm.ResourceName != "helper" || len(prm.ScopesSupported) != 1 {
			t.Errorf("%s: %d %+v", path, resp.StatusCode, prm)
		}
	}
	// What an MCP client does with it: go-sdk's discovery accepts it.
	prm, err := oauthex.GetProtectedResourceMetadata(context.Background(), ag.a.MetadataURL(), ag.url, nil)
	if err != nil || prm.AuthorizationServers[0] != is.srv.URL {
		t.Errorf("go-sdk discovery: %+v, %v", prm, err)
	}
}

func TestIssuerChecked(t *testing.T) {
	is := newIssuer(t)
	if _, err := serveauth.New(context.Background(), serveauth.Config{Issuer: is.srv.URL}); err == nil || !strings.Contains(err.Error(), "--auth-audience") {
		t.Errorf("no audience: %v", err)
	}
	if _, err := serveauth.New(context.Background(), serveauth.Config{Issuer: is.srv.URL + "/nope", Audience: "https://a.example/mcp"}); err == nil || !strings.Contains(err.Error(), "no metadata") {
		t.Errorf("wrong issuer: %v", err)
	}
	if _, err := serveauth.New(context.Background(), serveauth.Config{Token: "0123456789abcdef0", Issuer: is.srv.URL}); err == nil {
		t.Error("token and issuer both accepted")
	}
}

func TestCheckExposure(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		authed bool
		ok     bool
	}{
		{"127.0.0.1:8080", false, true},
		{"[::1]:8080", false, true},
		{"localhost:8080", false, true},
		{":8080", false, false},
		{"0.0.0.0:8080", false, false},
		{"[::]:8080", false, false},
		{"192.168.1.5:8080", false, false},
		{"agent.example.com:443", false, false},
		{"0.0.0.0:8080", true, true},
	} {
		err := serveauth.CheckExposure(tc.addr, tc.authed)
		if (err == nil) != tc.ok {
			t.Errorf("%s (auth %v): %v", tc.addr, tc.authed, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--auth-token-env") {
			t.Errorf("%s: the error does not say what to do: %v", tc.addr, err)
		}
	}
}

func unsigned(aud string) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return strings.TrimRight(base64URL(b), "=")
	}
	return enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." +
		enc(map[string]any{"iss": "x", "aud": aud, "exp": time.Now().Add(time.Hour).Unix()}) + "."
}

// hmacToken is the old algorithm-confusion trick: HS256 keyed with
// something public.
func hmacToken(t *testing.T, aud string) string {
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: []byte("public-key-bytes-used-as-secret!")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := jwt.Signed(sig).Claims(jwt.Claims{Audience: jwt.Audience{aud}, Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}).Serialize()
	return tok
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func base64URL(b []byte) string { return base64.URLEncoding.EncodeToString(b) }
