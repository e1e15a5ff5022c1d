// Package authtest is a small OAuth 2.1 authorization server and an MCP
// server it protects, on loopback, for tests of the OAuth client
// (internal/mcpauth) and of the agents that use it.
package authtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// clock is the time of one test's world: the authorization server, the
// MCP server and the handler read it, and a test moves it forward instead
// of sleeping.
type Clock struct{ offset atomic.Int64 }

func (c *Clock) Now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *Clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// Offset is how far the clock was moved forward.
func (c *Clock) Offset() time.Duration { return time.Duration(c.offset.Load()) }

// Server is a small OAuth 2.1 authorization server on loopback:
// metadata (RFC 8414), dynamic registration (RFC 7591), an authorization
// endpoint that approves at once (the user said yes), a token endpoint
// checking PKCE, the client and the resource, refresh with rotation, and
// revocation (RFC 7009). Every value it hands out is recorded, so a test
// can look for them in logs.
type Server struct {
	t         testing.TB
	Srv       *httptest.Server
	clock     *Clock
	resources []string // what it issues tokens for
	scopes    []string
	TTL       atomic.Int64 // access token lifetime

	mu       sync.Mutex
	clients  map[string]*asClient
	codes    map[string]*asCode
	access   map[string]*asToken
	refresh  map[string]*asToken
	issued   []string // every secret value handed out
	counts   map[string]int
	authReqs []url.Values
	idpKey   *ecdsa.PrivateKey // an identity provider's signing key (enableIDP)
	trusted  *Server           // the identity provider whose ID-JAGs it takes
}

type asClient struct {
	id, secret, method string
	redirects          []string
}

type asCode struct {
	client, redirect, challenge, resource string
	scopes                                []string
}

type asToken struct {
	client, resource string
	scopes           []string
	exp              time.Time
	refresh          string // an access token's refresh token
	revoked          bool
}

func NewServer(t testing.TB, c *Clock, scopes ...string) *Server {
	as := &Server{t: t, clock: c, scopes: scopes, clients: map[string]*asClient{}, codes: map[string]*asCode{},
		access: map[string]*asToken{}, refresh: map[string]*asToken{}, counts: map[string]int{}}
	as.TTL.Store(int64(time.Hour))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", as.metadata)
	mux.HandleFunc("POST /register", as.register)
	mux.HandleFunc("GET /authorize", as.authorize)
	mux.HandleFunc("POST /token", as.token)
	mux.HandleFunc("POST /revoke", as.revoke)
	as.Srv = httptest.NewServer(mux)
	t.Cleanup(as.Srv.Close)
	return as
}

func (as *Server) Count(what string) int {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.counts[what]
}

func (as *Server) Secrets() []string {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.issued)
}

func (as *Server) newSecret(prefix string) string {
	s := prefix + "-" + rand.Text()
	as.issued = append(as.issued, s)
	return s
}

func (as *Server) metadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{
		"issuer":                   as.Srv.URL,
		"authorization_endpoint":   as.Srv.URL + "/authorize",
		"token_endpoint":           as.Srv.URL + "/token",
		"registration_endpoint":    as.Srv.URL + "/register",
		"revocation_endpoint":      as.Srv.URL + "/revoke",
		"response_types_supported": []string{"code"},
		"grant_types_supported": []string{"authorization_code", "refresh_token", "client_credentials",
			"urn:ietf:params:oauth:grant-type:jwt-bearer", "urn:ietf:params:oauth:grant-type:token-exchange"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_basic", "client_secret_post", "none"},
		"scopes_supported":                               append(slices.Clone(as.scopes), "offline_access"),
		"authorization_response_iss_parameter_supported": true,
	})
}

func (as *Server) register(w http.ResponseWriter, r *http.Request) {
	var m oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || len(m.RedirectURIs) == 0 {
		oauthError(w, 400, "invalid_client_metadata", "redirect_uris required")
		return
	}
	for _, u := range m.RedirectURIs {
		if p, err := url.Parse(u); err != nil || p.Scheme != "http" || p.Hostname() != "127.0.0.1" && p.Hostname() != "localhost" {
			oauthError(w, 400, "invalid_redirect_uri", "loopback http only")
			return
		}
	}
	as.mu.Lock()
	c := &asClient{id: "client-" + rand.Text(), secret: as.newSecret("dcr-secret"), method: "client_secret_basic", redirects: m.RedirectURIs}
	as.clients[c.id] = c
	as.counts["register"]++
	as.mu.Unlock()
	writeJSON(w, 201, map[string]any{"client_id": c.id, "client_secret": c.secret, "redirect_uris": c.redirects,
		"token_endpoint_auth_method": c.method, "grant_types": m.GrantTypes})
}

// authorize approves at once: the "user" said yes. It checks what a real
// server checks before redirecting: the client, its redirect URI, PKCE
// S256 and the resource.
func (as *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	defer as.mu.Unlock()
	as.authReqs = append(as.authReqs, q)
	c := as.clients[q.Get("client_id")]
	if c == nil || !redirectAllowed(c.redirects, q.Get("redirect_uri")) {
		http.Error(w, "unknown client or redirect_uri", 400) // never redirect to an unchecked URI
		return
	}
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := url.Values{"state": {q.Get("state")}, "iss": {as.Srv.URL}}
	switch {
	case q.Get("response_type") != "code":
		v.Set("error", "unsupported_response_type")
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		v.Set("error", "invalid_request")
		v.Set("error_description", "PKCE S256 required")
	case len(as.resources) > 0 && !slices.Contains(as.resources, q.Get("resource")):
		v.Set("error", "invalid_target")
	default:
		code := as.newSecret("code")
		as.codes[code] = &asCode{client: c.id, redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"),
			resource: q.Get("resource"), scopes: strings.Fields(q.Get("scope"))}
		v.Set("code", code)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (as *Server) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	as.mu.Lock()
	defer as.mu.Unlock()
	c := as.authClient(r)
	if c == nil {
		oauthError(w, 401, "invalid_client", "client authentication failed")
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		code := as.codes[r.PostForm.Get("code")]
		delete(as.codes, r.PostForm.Get("code")) // one use
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		switch {
		case code == nil || code.client != c.id:
			oauthError(w, 400, "invalid_grant", "unknown code")
		case r.PostForm.Get("redirect_uri") != code.redirect:
			oauthError(w, 400, "invalid_grant", "redirect_uri differs")
		case base64.RawURLEncoding.EncodeToString(sum[:]) != code.challenge:
			oauthError(w, 400, "invalid_grant", "PKCE verifier does not match")
		case r.PostForm.Get("resource") != code.resource:
			oauthError(w, 400, "invalid_target", "resource differs")
		default:
			as.counts["code"]++
			as.issue(w, c.id, code.resource, code.scopes)
		}
	case "refresh_token":
		rt := as.refresh[r.PostForm.Get("refresh_token")]
		if rt == nil || rt.revoked || rt.client != c.id {
			oauthError(w, 400, "invalid_grant", "refresh token revoked or unknown")
			return
		}
		rt.revoked = true // rotation: a refresh token works once
		as.counts["refresh"]++
		as.issue(w, c.id, rt.resource, rt.scopes)
	case "urn:ietf:params:oauth:grant-type:token-exchange":
		as.exchange(w, r, c)
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		as.jwtBearer(w, r, c)
	case "client_credentials":
		if c.secret == "" {
			oauthError(w, 401, "unauthorized_client", "a public client has no credentials grant")
			return
		}
		if !slices.Contains(as.resources, r.PostForm.Get("resource")) {
			oauthError(w, 400, "invalid_target", "unknown resource")
			return
		}
		as.counts["client_credentials"]++
		exp := as.clock.Now().Add(time.Duration(as.TTL.Load()))
		access := as.newSecret("access")
		as.access[access] = &asToken{client: c.id, resource: r.PostForm.Get("resource"), scopes: strings.Fields(r.PostForm.Get("scope")), exp: exp}
		writeJSON(w, 200, map[string]any{"access_token": access, "token_type": "Bearer",
			"expires_in": int(time.Duration(as.TTL.Load()).Seconds()), "scope": r.PostForm.Get("scope")})
	default:
		oauthError(w, 400, "unsupported_grant_type", "")
	}
}

// preRegister adds a confidential client, as an administrator does in the
// provider's console.
func (as *Server) PreRegister(redirects ...string) (id, secret string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	c := &asClient{id: "app-" + rand.Text(), secret: as.newSecret("app-secret"), method: "client_secret_basic", redirects: redirects}
	as.clients[c.id] = c
	return c.id, c.secret
}

func (as *Server) issue(w http.ResponseWriter, client, resource string, scopes []string) {
	exp := as.clock.Now().Add(time.Duration(as.TTL.Load()))
	rt := &asToken{client: client, resource: resource, scopes: scopes}
	refresh := as.newSecret("refresh")
	as.refresh[refresh] = rt
	access := as.newSecret("access")
	as.access[access] = &asToken{client: client, resource: resource, scopes: scopes, exp: exp, refresh: refresh}
	resp := map[string]any{"access_token": access, "token_type": "Bearer", "refresh_token": refresh,
		"expires_in": int(time.Duration(as.TTL.Load()).Seconds()), "scope": strings.Join(scopes, " ")}
	if as.idpKey != nil && slices.Contains(scopes, "openid") {
		resp["id_token"] = as.sign(jwt.Claims{Issuer: as.Srv.URL, Subject: "alice", Audience: jwt.Audience{client},
			Expiry: jwt.NewNumericDate(as.clock.Now().Add(idTokenTTL)), IssuedAt: jwt.NewNumericDate(as.clock.Now())}, "JWT", nil)
	}
	writeJSON(w, 200, resp)
}

// idTokenTTL is how long the identity provider's ID tokens last: less than
// the access tokens, so that renewing an access token sometimes needs a
// new ID token.
const idTokenTTL = 30 * time.Minute

// enableIDP makes this server an enterprise identity provider: ID tokens
// with openid, and token exchange (RFC 8693) of an ID token for an ID-JAG.
func (as *Server) EnableIDP() {
	as.idpKey, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

// trust makes this authorization server take ID-JAGs the identity
// provider signed (the JWT bearer grant of SEP-990).
func (as *Server) Trust(idp *Server) { as.trusted = idp }

func (as *Server) sign(c jwt.Claims, typ string, extra map[string]any) string {
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: as.idpKey}, (&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		as.t.Fatal(err)
	}
	tok, err := jwt.Signed(sig).Claims(c).Claims(extra).Serialize()
	if err != nil {
		as.t.Fatal(err)
	}
	as.issued = append(as.issued, tok)
	return tok
}

func (as *Server) exchange(w http.ResponseWriter, r *http.Request, c *asClient) {
	f := r.PostForm
	var id jwt.Claims
	t, err := jwt.ParseSigned(f.Get("subject_token"), []jose.SignatureAlgorithm{jose.ES256})
	if err == nil {
		err = t.Claims(&as.idpKey.PublicKey, &id)
	}
	if err == nil {
		err = id.Validate(jwt.Expected{Issuer: as.Srv.URL, AnyAudience: jwt.Audience{c.id}, Time: as.clock.Now()})
	}
	switch {
	case as.idpKey == nil || f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" ||
		f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" || f.Get("resource") == "":
		oauthError(w, 400, "invalid_request", "not an ID-JAG exchange")
	case err != nil:
		oauthError(w, 400, "invalid_grant", "ID token: "+err.Error())
	default:
		as.counts["exchange"]++
		jag := as.sign(jwt.Claims{Issuer: as.Srv.URL, Subject: id.Subject, Audience: jwt.Audience{f.Get("audience")}, ID: rand.Text(),
			Expiry: jwt.NewNumericDate(as.clock.Now().Add(5 * time.Minute)), IssuedAt: jwt.NewNumericDate(as.clock.Now())}, "oauth-id-jag+jwt",
			map[string]any{"resource": f.Get("resource"), "scope": f.Get("scope")})
		writeJSON(w, 200, map[string]any{"access_token": jag, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A", "expires_in": 300})
	}
}

func (as *Server) jwtBearer(w http.ResponseWriter, r *http.Request, c *asClient) {
	var jag jwt.Claims
	var res struct {
		Resource string `json:"resource"`
		Scope    string `json:"scope"`
	}
	t, err := jwt.ParseSigned(r.PostForm.Get("assertion"), []jose.SignatureAlgorithm{jose.ES256})
	if err == nil && as.trusted != nil {
		err = t.Claims(&as.trusted.idpKey.PublicKey, &jag, &res)
	}
	if err == nil && !slices.Contains(as.resources, res.Resource) {
		err = fmt.Errorf("resource %q", res.Resource)
	}
	if err == nil {
		err = jag.Validate(jwt.Expected{Issuer: as.trusted.Srv.URL, AnyAudience: jwt.Audience{as.Srv.URL}, Time: as.clock.Now()})
	}
	if err != nil || as.trusted == nil || c.secret == "" {
		oauthError(w, 400, "invalid_grant", fmt.Sprintf("ID-JAG refused: %v", err))
		return
	}
	as.counts["jwt-bearer"]++
	exp := as.clock.Now().Add(time.Duration(as.TTL.Load()))
	access := as.newSecret("access")
	as.access[access] = &asToken{client: c.id, resource: res.Resource, scopes: strings.Fields(res.Scope), exp: exp}
	writeJSON(w, 200, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(time.Duration(as.TTL.Load()).Seconds())})
}

// redirectAllowed matches a redirect URI against the registered ones; for
// a loopback IP any port matches (RFC 8252 §7.3: a native app gets one
// when it starts).
func redirectAllowed(registered []string, uri string) bool {
	if slices.Contains(registered, uri) {
		return true
	}
	u, err := url.Parse(uri)
	if err != nil || u.Hostname() != "127.0.0.1" {
		return false
	}
	for _, r := range registered {
		if ru, err := url.Parse(r); err == nil && ru.Scheme == u.Scheme && ru.Hostname() == u.Hostname() && ru.Path == u.Path {
			return true
		}
	}
	return false
}

// authClient authenticates the client the way it registered, or a public
// client by its id alone.
func (as *Server) authClient(r *http.Request) *asClient {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	c := as.clients[id]
	if c == nil || c.secret != "" && subtle.ConstantTimeCompare([]byte(c.secret), []byte(secret)) != 1 {
		return nil
	}
	return c
}

// revoke is RFC 7009: revoking a refresh token revokes the access tokens
// issued with it.
func (as *Server) revoke(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	as.mu.Lock()
	defer as.mu.Unlock()
	tok := r.PostForm.Get("token")
	if rt := as.refresh[tok]; rt != nil {
		rt.revoked = true
		for _, at := range as.access {
			if at.refresh == tok {
				at.revoked = true
			}
		}
	}
	if at := as.access[tok]; at != nil {
		at.revoked = true
	}
	as.counts["revoke"]++
	w.WriteHeader(200)
}

// verify is the MCP server's token check: issued here, for this resource,
// not revoked, not expired.
func (as *Server) verify(_ context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
	as.mu.Lock()
	defer as.mu.Unlock()
	at := as.access[token]
	if at == nil || at.revoked || at.resource != "http://"+r.Host+r.URL.Path || !as.clock.Now().Before(at.exp) {
		return nil, auth.ErrInvalidToken
	}
	as.counts["verified"]++
	// The go-sdk middleware checks Expiration against the real clock. One
	// user, alice, approves every login (whatever client asks).
	return &auth.TokenInfo{Scopes: at.scopes, Expiration: time.Now().Add(time.Hour), UserID: "alice"}, nil
}

// Protected is a go-sdk streamable MCP server that requires the
// authorization server's tokens, with its protected-resource metadata.
func Protected(t testing.TB, as *Server, scopes ...string) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "The user the token speaks for."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, struct{}, error) {
			who := "(no token info)" // the sse handler passes none on
			if req.Extra != nil && req.Extra.TokenInfo != nil {
				who = req.Extra.TokenInfo.UserID
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "user " + who}}}, struct{}{}, nil
		})
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		// A client whose login was revoked cannot end its session (the
		// DELETE needs a token): end them here.
		for ss := range s.Sessions() {
			ss.Close()
		}
	})
	as.resources = []string{srv.URL + "/mcp", srv.URL + "/sse"}
	prmURL := srv.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: srv.URL + "/mcp", AuthorizationServers: []string{as.Srv.URL}, ScopesSupported: scopes,
	}))
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux.Handle("/mcp", auth.RequireBearerToken(as.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL, Scopes: scopes})(h))
	sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux.Handle("/sse", auth.RequireBearerToken(as.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: srv.URL + "/.well-known/oauth-protected-resource/sse"})(sse))
	mux.Handle("/.well-known/oauth-protected-resource/sse", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: srv.URL + "/sse", AuthorizationServers: []string{as.Srv.URL},
	}))
	return srv.URL + "/mcp"
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, code int, e, desc string) {
	writeJSON(w, code, map[string]string{"error": e, "error_description": desc})
}

// browse is the user's browser: it opens the URL and follows the
// authorization server's redirect to the agent's loopback listener.
func Browse(t testing.TB) func(string) error {
	return func(u string) error {
		go func() {
			resp, err := http.Get(u)
			if err != nil {
				t.Errorf("browser: %v", err)
				return
			}
			resp.Body.Close()
		}()
		return nil
	}
}
