package mcpauth_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// clock is the time of one test's world: the authorization server, the
// MCP server and the handler read it, and a test moves it forward instead
// of sleeping.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// authServer is a small OAuth 2.1 authorization server on loopback:
// metadata (RFC 8414), dynamic registration (RFC 7591), an authorization
// endpoint that approves at once (the user said yes), a token endpoint
// checking PKCE, the client and the resource, refresh with rotation, and
// revocation (RFC 7009). Every value it hands out is recorded, so a test
// can look for them in logs.
type authServer struct {
	t         *testing.T
	srv       *httptest.Server
	clock     *clock
	resources []string // what it issues tokens for
	scopes    []string
	ttl       atomic.Int64 // access token lifetime

	mu       sync.Mutex
	clients  map[string]*asClient
	codes    map[string]*asCode
	access   map[string]*asToken
	refresh  map[string]*asToken
	issued   []string // every secret value handed out
	counts   map[string]int
	authReqs []url.Values
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

func newAuthServer(t *testing.T, c *clock, scopes ...string) *authServer {
	as := &authServer{t: t, clock: c, scopes: scopes, clients: map[string]*asClient{}, codes: map[string]*asCode{},
		access: map[string]*asToken{}, refresh: map[string]*asToken{}, counts: map[string]int{}}
	as.ttl.Store(int64(time.Hour))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", as.metadata)
	mux.HandleFunc("POST /register", as.register)
	mux.HandleFunc("GET /authorize", as.authorize)
	mux.HandleFunc("POST /token", as.token)
	mux.HandleFunc("POST /revoke", as.revoke)
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

func (as *authServer) count(what string) int {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.counts[what]
}

func (as *authServer) secrets() []string {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.issued)
}

func (as *authServer) newSecret(prefix string) string {
	s := prefix + "-" + rand.Text()
	as.issued = append(as.issued, s)
	return s
}

func (as *authServer) metadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{
		"issuer":                                         as.srv.URL,
		"authorization_endpoint":                         as.srv.URL + "/authorize",
		"token_endpoint":                                 as.srv.URL + "/token",
		"registration_endpoint":                          as.srv.URL + "/register",
		"revocation_endpoint":                            as.srv.URL + "/revoke",
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_basic", "client_secret_post", "none"},
		"scopes_supported":                               append(slices.Clone(as.scopes), "offline_access"),
		"authorization_response_iss_parameter_supported": true,
	})
}

func (as *authServer) register(w http.ResponseWriter, r *http.Request) {
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
func (as *authServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	defer as.mu.Unlock()
	as.authReqs = append(as.authReqs, q)
	c := as.clients[q.Get("client_id")]
	if c == nil || !slices.Contains(c.redirects, q.Get("redirect_uri")) {
		http.Error(w, "unknown client or redirect_uri", 400) // never redirect to an unchecked URI
		return
	}
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := url.Values{"state": {q.Get("state")}, "iss": {as.srv.URL}}
	switch {
	case q.Get("response_type") != "code":
		v.Set("error", "unsupported_response_type")
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		v.Set("error", "invalid_request")
		v.Set("error_description", "PKCE S256 required")
	case !slices.Contains(as.resources, q.Get("resource")):
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

func (as *authServer) token(w http.ResponseWriter, r *http.Request) {
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
		exp := as.clock.now().Add(time.Duration(as.ttl.Load()))
		access := as.newSecret("access")
		as.access[access] = &asToken{client: c.id, resource: r.PostForm.Get("resource"), scopes: strings.Fields(r.PostForm.Get("scope")), exp: exp}
		writeJSON(w, 200, map[string]any{"access_token": access, "token_type": "Bearer",
			"expires_in": int(time.Duration(as.ttl.Load()).Seconds()), "scope": r.PostForm.Get("scope")})
	default:
		oauthError(w, 400, "unsupported_grant_type", "")
	}
}

// preRegister adds a confidential client, as an administrator does in the
// provider's console.
func (as *authServer) preRegister(redirects ...string) (id, secret string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	c := &asClient{id: "app-" + rand.Text(), secret: as.newSecret("app-secret"), method: "client_secret_basic", redirects: redirects}
	as.clients[c.id] = c
	return c.id, c.secret
}

func (as *authServer) issue(w http.ResponseWriter, client, resource string, scopes []string) {
	exp := as.clock.now().Add(time.Duration(as.ttl.Load()))
	rt := &asToken{client: client, resource: resource, scopes: scopes}
	refresh := as.newSecret("refresh")
	as.refresh[refresh] = rt
	access := as.newSecret("access")
	as.access[access] = &asToken{client: client, resource: resource, scopes: scopes, exp: exp, refresh: refresh}
	writeJSON(w, 200, map[string]any{"access_token": access, "token_type": "Bearer", "refresh_token": refresh,
		"expires_in": int(time.Duration(as.ttl.Load()).Seconds()), "scope": strings.Join(scopes, " ")})
}

// authClient authenticates the client the way it registered, or a public
// client by its id alone.
func (as *authServer) authClient(r *http.Request) *asClient {
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
func (as *authServer) revoke(w http.ResponseWriter, r *http.Request) {
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
func (as *authServer) verify(_ context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
	as.mu.Lock()
	defer as.mu.Unlock()
	at := as.access[token]
	if at == nil || at.revoked || at.resource != "http://"+r.Host+r.URL.Path || !as.clock.now().Before(at.exp) {
		return nil, auth.ErrInvalidToken
	}
	as.counts["verified"]++
	// The go-sdk middleware checks Expiration against the real clock. One
	// user, alice, approves every login (whatever client asks).
	return &auth.TokenInfo{Scopes: at.scopes, Expiration: time.Now().Add(time.Hour), UserID: "alice"}, nil
}

// protectedServer is a go-sdk streamable MCP server that requires the
// authorization server's tokens, with its protected-resource metadata.
func protectedServer(t *testing.T, as *authServer, scopes ...string) string {
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
	as.resources = []string{srv.URL + "/mcp", srv.URL + "/sse"}
	prmURL := srv.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: srv.URL + "/mcp", AuthorizationServers: []string{as.srv.URL}, ScopesSupported: scopes,
	}))
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux.Handle("/mcp", auth.RequireBearerToken(as.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL, Scopes: scopes})(h))
	sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	mux.Handle("/sse", auth.RequireBearerToken(as.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: srv.URL + "/.well-known/oauth-protected-resource/sse"})(sse))
	mux.Handle("/.well-known/oauth-protected-resource/sse", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: srv.URL + "/sse", AuthorizationServers: []string{as.srv.URL},
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
func browse(t *testing.T) func(string) error {
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
