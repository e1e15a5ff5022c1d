package mcpauth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// expiryDelta is how long before its expiry a token counts as expired: it
// must still be valid when the request carrying it arrives.
const expiryDelta = 10 * time.Second

// renewTimeout bounds one refresh or token request made on behalf of a
// request, or in the background.
const renewTimeout = 30 * time.Second

// Handler is the [auth.OAuthHandler] of one server: it gives the go-sdk
// transport the current token, renews it before it expires, and answers a
// 401 or 403 of the server. Made with [New] it never involves a user: an
// authorization that needs one fails with a [*LoginRequiredError]. Login
// makes one that does.
type Handler struct {
	cfg     Config
	key     Key
	store   TokenStore // nil: tokens live in memory only (client_credentials, id_token from the environment)
	log     *slog.Logger
	sec     secrets
	now     func() time.Time
	signer  crypto.Signer // private_key_jwt
	alg     string
	life    context.Context // ends at Close: background refreshes stop
	stop    context.CancelFunc
	refresh sync.WaitGroup

	// A login (Login, or a host with a user at hand).
	browser *browser
	code    *auth.AuthorizationCodeHandler
	force   bool // ignore the stored token until this login got a new one

	authMu sync.Mutex // one authorization at a time

	mu         sync.Mutex
	entry      *Entry
	refreshing bool
	forced     string   // an access token a refresh got because the server refused its predecessor
	challenge  []string // scopes the challenge being answered names
	authorized bool     // an authorization got a new token
	closed     bool
}

// New returns the handler serving uses: it reads the stored login, never
// asks a user. The config is checked, and a private key file read, now.
func New(cfg Config) (*Handler, error) {
	return newHandler(cfg, nil, false)
}

func newHandler(cfg Config, b *browser, force bool) (*Handler, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	h := &Handler{cfg: cfg, key: cfg.key(), log: cfg.logger(), now: time.Now, browser: b, force: force}
	h.sec.add(cfg.ClientSecret, cfg.IDPClientSecret, cfg.IDToken, cfg.PrivateKey)
	persist := true
	switch cfg.mode() {
	case ModeClientCredentials:
		persist = false // the agent can get a new one any time
		if cfg.PrivateKey != "" || cfg.PrivateKeyFile != "" {
			var err error
			if h.signer, h.alg, err = loadSigner(&cfg); err != nil {
				return nil, err
			}
		}
	case ModeEnterprise:
		persist = cfg.IDToken == ""
	}
	if persist {
		s, err := cfg.store()
		if err != nil {
			return nil, err
		}
		h.store = s
	}
	if b != nil && cfg.mode() == ModeOAuth {
		code, err := auth.NewAuthorizationCodeHandler(h.codeConfig())
		if err != nil {
			return nil, fmt.Errorf("server %q: %w", cfg.Server, err)
		}
		h.code = code
	}
	h.life, h.stop = context.WithCancel(context.Background())
	return h, nil
}

// codeConfig sets up go-sdk's authorization code flow: discovery,
// registration (client ID metadata document, pre-registered client, dynamic
// registration, in that order), PKCE, the code from the browser, and the
// exchange, whose token this handler then keeps.
func (h *Handler) codeConfig() *auth.AuthorizationCodeHandlerConfig {
	c := &h.cfg
	cc := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              h.browser.redirectURI,
		AuthorizationCodeFetcher: h.browser.fetch,
		ScopeFilter:              h.scopeFilter,
		RequestRefreshToken:      true,
		Client:                   c.httpClient(),
		NewTokenSource: func(_ context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			return h, h.saveLogin(oc, tok)
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:  []string{h.browser.redirectURI},
			GrantTypes:    []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"},
			ClientName:    c.agent() + " (toolgen)",
		}},
	}
	if c.ClientMetadataURL != "" {
		cc.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: c.ClientMetadataURL}
	}
	if c.ClientID != "" {
		cc.PreregisteredClient = &oauthex.ClientCredentials{ClientID: c.ClientID, Issuer: c.Issuer}
		if c.ClientSecret != "" {
			cc.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: c.ClientSecret}
		}
		// A pre-registered client is who the user configured: never
		// register another one behind their back.
		cc.DynamicClientRegistrationConfig = nil
	}
	return cc
}

// Close stops background refreshes and the login's redirect listener.
func (h *Handler) Close() error {
	h.mu.Lock()
	h.closed = true // no new background refresh
	h.mu.Unlock()
	h.stop()
	h.refresh.Wait()
	if h.browser != nil {
		return h.browser.close()
	}
	return nil
}

// TokenSource implements auth.OAuthHandler: the handler itself, once there
// is a token to give (nil before, so that the server's 401 starts the
// authorization).
func (h *Handler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.force {
		return nil, nil
	}
	e, err := h.currentLocked()
	if err != nil {
		return nil, h.sec.scrub(err)
	}
	if e == nil {
		if h.cfg.mode() == ModeOAuth && h.browser == nil {
			return h, nil // Token says to log in, without a round trip
		}
		return nil, nil
	}
	if !fresh(e.Token, h.now()) && !h.canRenew(e) && h.browser != nil {
		return nil, nil // let the 401 start a login
	}
	return h, nil
}

// Token implements oauth2.TokenSource: the current token; an expired one
// is renewed first, one close to its expiry in the background.
func (h *Handler) Token() (*oauth2.Token, error) {
	h.mu.Lock()
	e, err := h.currentLocked()
	if err != nil {
		h.mu.Unlock()
		return nil, h.sec.scrub(err)
	}
	if e == nil {
		h.mu.Unlock()
		return nil, h.loginRequired("not logged in", nil, nil)
	}
	now := h.now()
	if fresh(e.Token, now) {
		if due(e, now) && !h.refreshing && !h.closed && h.canRenew(e) {
			h.refreshing = true
			h.refresh.Add(1)
			go h.renewInBackground(e.Token.AccessToken)
		}
		h.mu.Unlock()
		return e.Token.oauth2(), nil
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(h.life, renewTimeout)
	defer cancel()
	e, err = h.renew(ctx, e.Token.AccessToken, false)
	if err != nil {
		return nil, err
	}
	return e.Token.oauth2(), nil
}

func (h *Handler) renewInBackground(stale string) {
	defer h.refresh.Done()
	ctx, cancel := context.WithTimeout(h.life, renewTimeout)
	defer cancel()
	_, err := h.renew(ctx, stale, false)
	h.mu.Lock()
	h.refreshing = false
	h.mu.Unlock()
	if err != nil && h.life.Err() == nil {
		h.log.Warn("auth.refresh_failed", "server", h.cfg.Server, "reason", err.Error())
	}
}

// reload reads the stored entry again (a login in another process may
// have replaced it) and returns the entry in use.
func (h *Handler) reload() (*Entry, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.store == nil {
		return h.entry, nil
	}
	e, err := h.store.Load(h.key)
	if err != nil {
		return nil, err
	}
	if e == nil {
		h.entry = nil // logged out
	} else {
		h.adoptLocked(e)
	}
	return h.entry, nil
}

// currentLocked is the entry in use; without one it looks in the store
// (again: a login may have happened since).
func (h *Handler) currentLocked() (*Entry, error) {
	if h.entry == nil && h.store != nil {
		e, err := h.store.Load(h.key)
		if err != nil {
			return nil, err
		}
		if e != nil {
			h.adoptLocked(e)
		}
	}
	return h.entry, nil
}

func (h *Handler) adoptLocked(e *Entry) {
	h.entry = e
	h.sec.add(e.Token.AccessToken, e.Token.RefreshToken, e.ClientSecret)
	if e.IDP != nil {
		h.sec.add(e.IDP.IDToken, e.IDP.RefreshToken)
	}
}

// fresh reports whether a token can be sent now.
func fresh(t Token, now time.Time) bool {
	return t.AccessToken != "" && (t.Expiry.IsZero() || now.Add(expiryDelta).Before(t.Expiry))
}

// due reports whether a fresh token is in the last quarter of its life (at
// least the last 30 seconds): time to renew it before anyone waits for it.
func due(e *Entry, now time.Time) bool {
	if e.Token.Expiry.IsZero() {
		return false
	}
	margin := max(e.Token.Expiry.Sub(e.SavedAt)/4, 30*time.Second)
	return e.Token.Expiry.Sub(now) < margin
}

// canRenew reports whether e can be renewed without a user.
func (h *Handler) canRenew(e *Entry) bool {
	switch h.cfg.mode() {
	case ModeClientCredentials:
		return e.TokenURL != ""
	case ModeEnterprise:
		return e.TokenURL != "" && (h.cfg.IDToken != "" || e.IDP != nil && (e.IDP.RefreshToken != "" || idTokenFresh(e.IDP.IDToken, h.now())))
	}
	return e.Token.RefreshToken != ""
}

// renew replaces the token stale with a new one, under the store's lock:
// first it looks whether another process (or a new login) already did.
// after401 says the server refused stale: a token got that way and refused
// again means the login itself is no good.
func (h *Handler) renew(ctx context.Context, stale string, after401 bool) (*Entry, error) {
	if h.store != nil {
		unlock, err := h.store.Lock(h.key)
		if err != nil {
			return nil, h.sec.scrub(err)
		}
		defer unlock()
	}
	h.mu.Lock()
	e := h.entry
	forced := h.forced
	h.mu.Unlock()
	if h.store != nil {
		cur, err := h.store.Load(h.key)
		if err != nil {
			return nil, h.sec.scrub(err)
		}
		if cur == nil {
			return nil, h.loginRequired("not logged in", nil, nil)
		}
		if cur.Token.AccessToken != stale && fresh(cur.Token, h.now()) {
			h.mu.Lock()
			h.adoptLocked(cur)
			h.mu.Unlock()
			return cur, nil
		}
		e = cur
	}
	if e == nil {
		return nil, h.loginRequired("not logged in", nil, nil)
	}
	if after401 && forced != "" && forced == stale {
		return nil, h.loginRequired("the server refuses a token just refreshed", nil, nil)
	}
	if !h.canRenew(e) {
		reason := "the token expired and there is no refresh token"
		if after401 {
			reason = "the server refused the token and there is no refresh token"
		}
		return nil, h.loginRequired(reason, nil, nil)
	}
	var ne *Entry
	var err error
	switch h.cfg.mode() {
	case ModeClientCredentials:
		ne, err = h.clientCredentials(ctx, e)
	case ModeEnterprise:
		ne, err = h.enterpriseRenew(ctx, e)
	default:
		ne, err = h.refreshToken(ctx, e)
	}
	if err != nil {
		if errors.Is(err, ErrLoginRequired) {
			return nil, err
		}
		if invalidGrant(err) {
			return nil, h.loginRequired("the authorization server refused to renew the token: revoked or expired", nil, err)
		}
		return nil, h.sec.scrub(fmt.Errorf("server %q: renewing the token: %w", h.cfg.Server, err))
	}
	if err := h.keep(ne); err != nil {
		return nil, err
	}
	h.mu.Lock()
	if after401 {
		h.forced = ne.Token.AccessToken
	}
	h.mu.Unlock()
	h.log.Info("auth.refresh", "server", h.cfg.Server, "expires_in_s", expiresIn(ne.Token, h.now()))
	return ne, nil
}

// keep makes e the entry in use and stores it (the caller holds the
// store's lock, or there is no store).
func (h *Handler) keep(e *Entry) error {
	e.SavedAt = h.now()
	h.mu.Lock()
	h.adoptLocked(e)
	h.mu.Unlock()
	if h.store != nil {
		if err := h.store.Save(h.key, e); err != nil {
			return h.sec.scrub(err)
		}
	}
	return nil
}

// refreshToken uses the refresh token (mode oauth).
func (h *Handler) refreshToken(ctx context.Context, e *Entry) (*Entry, error) {
	secret := e.ClientSecret
	if h.cfg.ClientSecret != "" {
		secret = h.cfg.ClientSecret
	}
	oc := &oauth2.Config{ClientID: e.ClientID, ClientSecret: secret, Endpoint: oauth2.Endpoint{TokenURL: e.TokenURL, AuthStyle: e.AuthStyle}}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, h.cfg.httpClient())
	old := e.Token.oauth2()
	old.AccessToken, old.Expiry = "", time.Unix(1, 0) // refresh now
	tok, err := oc.TokenSource(ctx, old).Token()
	if err != nil {
		return nil, err
	}
	ne := *e
	ne.Token = h.tokenFrom(tok)
	if s := grantedScopes(tok); s != nil {
		ne.Scopes = s
	}
	return &ne, nil
}

// Authorize implements auth.OAuthHandler: the server answered 401 or 403.
// A 401 renews the token (a refresh, or a new client-credentials or
// enterprise token); a 403 for insufficient scope asks for the scopes the
// challenge names. What needs a user is a LoginRequiredError unless this
// handler is a login's.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusForbidden && challengeParam(challenges, "error") != "insufficient_scope" {
		io.Copy(io.Discard, resp.Body)
		return nil // a plain refusal: the caller sees it
	}
	h.authMu.Lock()
	defer h.authMu.Unlock()
	err := h.authorize(ctx, req, resp, challenges)
	return h.sec.scrub(err)
}

func (h *Handler) authorize(ctx context.Context, req *http.Request, resp *http.Response, challenges []oauthex.Challenge) error {
	rejected := bearer(req)
	scopes := strings.Fields(challengeParam(challenges, "scope"))
	cur, err := h.reload()
	if err != nil {
		return err
	}
	h.mu.Lock()
	force := h.force
	h.mu.Unlock()
	if cur != nil && !force && cur.Token.AccessToken != rejected && fresh(cur.Token, h.now()) {
		return nil // another request, process or login already got a new token
	}
	if force {
		cur = nil // a login starts afresh
	}
	stepUp := resp.StatusCode == http.StatusForbidden
	if stepUp && cur != nil && len(scopes) > 0 && subset(scopes, cur.Scopes) {
		// Asking again for scopes already granted would loop.
		return fmt.Errorf("server %q refuses the token for insufficient scope although it grants %q", h.cfg.Server, strings.Join(cur.Scopes, " "))
	}
	switch h.cfg.mode() {
	case ModeClientCredentials:
		return h.clientCredentialsAuthorize(ctx, req, challenges, cur)
	case ModeEnterprise:
		return h.enterpriseAuthorize(ctx, req, challenges, cur)
	}
	if stepUp {
		if h.code == nil {
			h.wantScopes(scopes)
			return h.loginRequired("the server asks for more scope", scopes, nil)
		}
	} else if cur != nil && !force {
		_, err := h.renew(ctx, rejected, true)
		if err == nil || h.code == nil || !errors.Is(err, ErrLoginRequired) {
			return err
		}
	}
	if h.code == nil {
		return h.loginRequired("not logged in", nil, nil)
	}
	h.mu.Lock()
	h.challenge = scopes
	h.mu.Unlock()
	return h.code.Authorize(ctx, req, resp)
}

// scopeFilter picks the scopes a login asks for: the configured ones (plus
// what a challenge names), else what the server advertises; plus what the
// server asked for while serving.
func (h *Handler) scopeFilter(discovered []string) []string {
	h.mu.Lock()
	chal := h.challenge
	h.mu.Unlock()
	base := discovered
	if len(h.cfg.Scopes) > 0 {
		base = union(h.cfg.Scopes, chal)
	}
	var want []string
	if h.store != nil {
		if e, err := h.store.Load(h.key); err == nil && e != nil {
			want = e.WantScopes
		}
	}
	return union(base, want)
}

// wantScopes records scopes a server asked for while serving, for the next
// login to request.
func (h *Handler) wantScopes(scopes []string) {
	if h.store == nil || len(scopes) == 0 {
		return
	}
	unlock, err := h.store.Lock(h.key)
	if err != nil {
		return
	}
	defer unlock()
	if e, err := h.store.Load(h.key); err == nil && e != nil && !subset(scopes, e.WantScopes) {
		e.WantScopes = union(e.WantScopes, scopes)
		h.store.Save(h.key, e)
	}
}

// saveLogin keeps what go-sdk's code flow obtained.
func (h *Handler) saveLogin(oc *oauth2.Config, tok *oauth2.Token) error {
	h.sec.add(tok.AccessToken, tok.RefreshToken, oc.ClientSecret)
	e := &Entry{
		TokenURL:  oc.Endpoint.TokenURL,
		ClientID:  oc.ClientID,
		AuthStyle: oc.Endpoint.AuthStyle,
		Scopes:    oc.Scopes,
		Token:     h.tokenFrom(tok),
	}
	if oc.ClientSecret != h.cfg.ClientSecret { // issued by dynamic registration
		e.ClientSecret = oc.ClientSecret
	}
	if s := grantedScopes(tok); s != nil {
		e.Scopes = s
	}
	unlock, err := h.store.Lock(h.key)
	if err != nil {
		return h.sec.scrub(err)
	}
	defer unlock()
	if err := h.loggedIn(e); err != nil {
		return err
	}
	h.log.Info("auth.login", "server", h.cfg.Server, "scopes", strings.Join(e.Scopes, " "), "refresh_token", e.Token.RefreshToken != "",
		"expires_in_s", expiresIn(e.Token, h.now()))
	return nil
}

func (h *Handler) loginRequired(reason string, scopes []string, err error) error {
	return &LoginRequiredError{Server: h.cfg.Server, Agent: h.cfg.agent(), Reason: reason, Scopes: scopes, Err: h.sec.scrub(err)}
}

// Secrets returns the values this handler must keep out of text so far:
// the configured secrets and every token it has held. Tokens change, so a
// caller scrubbing with them asks again.
func (h *Handler) Secrets() []string {
	h.sec.mu.Lock()
	defer h.sec.mu.Unlock()
	return slices.Clone(h.sec.all)
}

// Scrub replaces every secret the handler knows in text.
func (h *Handler) Scrub(text string) string { return h.sec.string(text) }

func bearer(req *http.Request) string {
	if req == nil {
		return ""
	}
	v := req.Header.Get("Authorization")
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		return strings.TrimSpace(v[7:])
	}
	return ""
}

func challengeParam(cs []oauthex.Challenge, name string) string {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params[name] != "" {
			return c.Params[name]
		}
	}
	return ""
}

// tokenFrom is the token as stored. The expiry counts from the handler's
// clock (oauth2 counts expires_in from time.Now), so that every decision
// about one token reads one clock.
func (h *Handler) tokenFrom(t *oauth2.Token) Token {
	exp := t.Expiry
	if t.ExpiresIn > 0 {
		exp = h.now().Add(time.Duration(t.ExpiresIn) * time.Second)
	}
	return Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, Expiry: exp}
}

// grantedScopes is the scope a token response names, or nil when it names
// none (then the requested scopes were granted, RFC 6749 §5.1).
func grantedScopes(tok *oauth2.Token) []string {
	if s, ok := tok.Extra("scope").(string); ok {
		return strings.Fields(s)
	}
	return nil
}

func expiresIn(t Token, now time.Time) int64 {
	if t.Expiry.IsZero() {
		return -1
	}
	return int64(t.Expiry.Sub(now).Seconds())
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}
