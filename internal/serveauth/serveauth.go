// Package serveauth decides who may use an agent's `serve --http`: either
// one shared bearer token (--auth-token-env NAME), or OAuth access tokens
// (JWT) an authorization server issued for this server (--auth-issuer,
// --auth-audience), checked against the issuer's published keys (JWKS),
// with the protected-resource metadata document (RFC 9728) that lets MCP
// clients find the issuer by themselves.
//
// It is HTTP middleware in front of the MCP handler, built on go-sdk's
// auth.RequireBearerToken (which also binds each MCP session to the
// token's user). The Authorization header stops here: the agent's own
// connections to upstream servers never see it.
//
// The JWT check itself (go-jose) lives in runtime/serve/jwtauth, which
// registers with RegisterJWT: an agent that does not import it links no
// JOSE code, and --auth-issuer then says what to import.
package serveauth

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// MinTokenBytes is the shortest bearer token accepted: a shorter one can
// be guessed, and would not be scrubbed from text (internal/redact).
const MinTokenBytes = 16

// Config says how requests authenticate. Set Token, or Issuer and
// Audience.
type Config struct {
	// Token is the bearer token every request must carry (the value of
	// the --auth-token-env variable).
	Token string
	// TokenName names the caller a Token authenticates (the variable's
	// name): it is on every call's event; default "bearer".
	TokenName string

	// Issuer is the authorization server whose JWT access tokens are
	// accepted (--auth-issuer); its metadata gives the JWKS URL.
	Issuer string
	// Audience is this server's URL as clients reach it (--auth-audience):
	// the resource a token must be issued for (its aud claim).
	Audience string
	// JWKSURL overrides the issuer metadata's jwks_uri.
	JWKSURL string
	// Scopes are required of every token, and advertised in the metadata.
	Scopes []string
	// AnyTokenType accepts a JWT whatever its typ header
	// (--auth-any-typ). By default only access tokens are: typ at+jwt
	// (RFC 9068 §4), so that an ID token or another JWT the issuer signs
	// for this audience is refused.
	AnyTokenType bool
	// Leeway is the clock skew allowed on exp, nbf and iat; default 30s.
	Leeway time.Duration
	// ResourceName is the server's name in the metadata (the agent's).
	ResourceName string

	HTTPClient *http.Client // fetches metadata and keys; nil: http.DefaultClient
	Logger     *slog.Logger // serve.auth_failed events; nil: discarded
}

// Auth is the middleware for one configuration.
type Auth struct {
	cfg         Config
	log         *slog.Logger
	verify      auth.TokenVerifier
	opts        *auth.RequireBearerTokenOptions
	metadata    http.Handler // nil in bearer mode
	metaPaths   []string
	metadataURL string
}

// New checks cfg and, for OAuth, reads the issuer's metadata and keys, so
// that a wrong issuer stops the server at start rather than every request.
func New(ctx context.Context, cfg Config) (*Auth, error) {
	a := &Auth{cfg: cfg, log: cfg.Logger}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	switch {
	case cfg.Token != "" && cfg.Issuer != "":
		return nil, errors.New("serve auth: use a bearer token (--auth-token-env) or an issuer (--auth-issuer), not both")
	case cfg.Token != "":
		if strings.TrimSpace(cfg.Token) == "" {
			return nil, errors.New("serve auth: the bearer token is blank (only whitespace); set it to at least 16 random bytes (openssl rand -hex 32)")
		}
		if len(cfg.Token) < MinTokenBytes {
			return nil, fmt.Errorf("serve auth: the bearer token is %d bytes; use at least %d random bytes (openssl rand -hex 32)", len(cfg.Token), MinTokenBytes)
		}
		want := sha256.Sum256([]byte(cfg.Token))
		caller := cmp.Or(cfg.TokenName, "bearer")
		a.verify = func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
			// Hashes have one length: the comparison leaks neither the
			// token's bytes nor its length.
			got := sha256.Sum256([]byte(token))
			if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
				return nil, fmt.Errorf("%w: wrong bearer token", auth.ErrInvalidToken)
			}
			return &auth.TokenInfo{UserID: caller}, nil
		}
		a.opts = &auth.RequireBearerTokenOptions{AllowMissingExpiration: true}
		return a, nil
	case cfg.Issuer != "":
		return a, a.oauth(ctx)
	}
	return nil, errors.New("serve auth: no authentication configured")
}

func (a *Auth) oauth(ctx context.Context) error {
	cfg := &a.cfg
	if cfg.Audience == "" {
		return errors.New("serve auth: --auth-issuer needs --auth-audience, this server's URL as clients reach it (like https://agent.example.com/mcp): tokens must be issued for it")
	}
	au, err := url.Parse(cfg.Audience)
	if err != nil || au.Host == "" || (au.Scheme != "https" && au.Scheme != "http") {
		return fmt.Errorf("serve auth: audience %q is not an http(s) URL", cfg.Audience)
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = 30 * time.Second
	}
	newVerifier := linkedJWT()
	if newVerifier == nil {
		return fmt.Errorf("serve --auth-issuer: %w into this agent; add import _ %q to the agent's main package, or require a token with --auth-token-env, which needs nothing linked",
			ErrJWTNotLinked, JWTPackage)
	}
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	verify, err := newVerifier(ctx, JWTSettings{Issuer: cfg.Issuer, Audience: cfg.Audience, JWKSURL: cfg.JWKSURL,
		AnyTokenType: cfg.AnyTokenType, Leeway: cfg.Leeway, Client: client})
	if err != nil {
		return fmt.Errorf("serve auth: issuer %q: %w", cfg.Issuer, err)
	}
	a.verify = verify
	// RFC 9728 §3.1: the metadata lives at the well-known path with the
	// resource's path appended; the root form is served too for clients
	// that look there.
	meta := *au
	meta.Path = "/.well-known/oauth-protected-resource" + strings.TrimSuffix(au.Path, "/")
	meta.RawQuery, meta.Fragment = "", ""
	a.metadataURL = meta.String()
	a.metaPaths = []string{meta.Path}
	if meta.Path != "/.well-known/oauth-protected-resource" {
		a.metaPaths = append(a.metaPaths, "/.well-known/oauth-protected-resource")
	}
	a.metadata = auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               cfg.Audience,
		AuthorizationServers:   []string{cfg.Issuer},
		ScopesSupported:        cfg.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           cfg.ResourceName,
	})
	a.opts = &auth.RequireBearerTokenOptions{ResourceMetadataURL: a.metadataURL, Scopes: cfg.Scopes, ClockSkew: cfg.Leeway}
	return nil
}

// Mode is "bearer" or "oauth".
func (a *Auth) Mode() string {
	if a.metadata != nil {
		return "oauth"
	}
	return "bearer"
}

// MetadataURL is the protected-resource metadata document's URL ("" in
// bearer mode).
func (a *Auth) MetadataURL() string { return a.metadataURL }

// Wrap puts authentication in front of next: the metadata document is
// public; every other request needs a valid token (401, or 403 for a
// missing scope, with a WWW-Authenticate challenge). next never sees the
// Authorization header.
func (a *Auth) Wrap(next http.Handler) http.Handler {
	strip := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("Authorization") // no pass-through, whatever next does with headers
		next.ServeHTTP(w, r)
	})
	guarded := auth.RequireBearerToken(a.verify, a.opts)(strip)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.metadata != nil && (r.Method == http.MethodGet || r.Method == http.MethodOptions) {
			for _, p := range a.metaPaths {
				if r.URL.Path == p {
					a.metadata.ServeHTTP(w, r)
					return
				}
			}
		}
		guarded.ServeHTTP(&challenger{ResponseWriter: w, r: r, a: a}, r)
	})
}

// challenger completes go-sdk's challenge (RFC 6750 §3): a realm when
// there is nothing else to say, and the error code when a token was
// presented; and logs the refusal, never the token.
type challenger struct {
	http.ResponseWriter
	r    *http.Request
	a    *Auth
	done bool
}

func (c *challenger) WriteHeader(code int) {
	if !c.done && (code == http.StatusUnauthorized || code == http.StatusForbidden) {
		c.done = true
		h := c.Header()
		ch := h.Get("WWW-Authenticate")
		if ch == "" {
			ch = `Bearer realm="toolgen"`
		}
		presented := c.r.Header.Get("Authorization") != ""
		switch {
		case code == http.StatusForbidden:
			ch += `, error="insufficient_scope"`
		case presented:
			ch += `, error="invalid_token"`
		}
		h.Set("WWW-Authenticate", ch)
		reason := "no bearer token"
		if presented {
			reason = "token refused"
			if code == http.StatusForbidden {
				reason = "insufficient scope"
			}
		}
		c.a.log.Warn("serve.auth_failed", "remote", c.r.RemoteAddr, "path", c.r.URL.Path, "status", code, "reason", reason)
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *challenger) Write(b []byte) (int, error) {
	c.done = true
	return c.ResponseWriter.Write(b)
}

// Flush keeps SSE streams flowing through the wrapper.
func (c *challenger) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *challenger) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// CheckExposure is the rule `serve --http` applies before it listens: an
// address other machines can reach needs authentication.
func CheckExposure(addr string, authenticated bool) error {
	if authenticated {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil && ip.IsLoopback() {
		return nil
	}
	where := host
	if where == "" {
		where = "every interface"
	}
	return fmt.Errorf("serve --http %s: %s is reachable from other machines and no authentication is set, so anyone who can reach it could call this agent's tools; "+
		"require a token (--auth-token-env NAME) or OAuth access tokens (--auth-issuer URL --auth-audience URL), or listen on 127.0.0.1", addr, where)
}
