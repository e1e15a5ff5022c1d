package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/toolgen-dev/toolgen/internal/httpjson"
)

// jwtBearerGrant is RFC 7523's authorization grant by JWT.
const jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// enterpriseAuthorize answers a 401 (or a step-up 403) in mode enterprise
// (SEP-990): find the server's authorization server, then exchange the
// identity provider's ID token for an ID-JAG there and the ID-JAG for an
// access token here. go-sdk's extauth.EnterpriseHandler does the two
// exchanges, but takes the authorization server and resource as settings
// rather than discovering them, and always sends the client secret in the
// body, whatever the server supports.
func (h *Handler) enterpriseAuthorize(ctx context.Context, req *http.Request, challenges []oauthex.Challenge, cur *Entry) error {
	e, asm, err := h.grantEntry(ctx, req, challenges)
	if err != nil {
		return err
	}
	if len(asm.GrantTypesSupported) > 0 && !slices.Contains(asm.GrantTypesSupported, jwtBearerGrant) {
		return fmt.Errorf("server %q: its authorization server does not take the JWT bearer grant that enterprise-managed authorization needs", h.cfg.Server)
	}
	if cur != nil {
		e.Scopes = union(cur.Scopes, e.Scopes)
		e.IDP = cur.IDP
	}
	if h.store != nil {
		unlock, err := h.store.Lock(h.key)
		if err != nil {
			return err
		}
		defer unlock()
	}
	ne, err := h.enterpriseRenew(ctx, e)
	if err != nil {
		if errors.Is(err, ErrLoginRequired) {
			return err
		}
		return fmt.Errorf("server %q: enterprise authorization: %w", h.cfg.Server, err)
	}
	return h.loggedIn(ne)
}

// enterpriseRenew gets a new access token: an ID token (the environment's,
// the stored one while it lasts, a refreshed one, or a new login when a
// user is at hand), exchanged for an ID-JAG at the identity provider
// (RFC 8693), exchanged for an access token at the server's authorization
// server (RFC 7523).
func (h *Handler) enterpriseRenew(ctx context.Context, e *Entry) (*Entry, error) {
	idp, err := h.idToken(ctx, e.IDP)
	if err != nil {
		return nil, err
	}
	creds := &oauthex.ClientCredentials{ClientID: h.cfg.IDPClientID}
	if h.cfg.IDPClientSecret != "" {
		creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: h.cfg.IDPClientSecret}
	}
	jag, err := oauthex.ExchangeToken(ctx, idp.TokenURL, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG,
		Audience:           e.Issuer,
		Resource:           e.Resource,
		Scope:              e.Scopes,
		SubjectToken:       idp.IDToken,
		SubjectTokenType:   oauthex.TokenTypeIDToken,
	}, creds, h.cfg.httpClient())
	if err != nil {
		return nil, fmt.Errorf("identity provider: %w", err)
	}
	h.sec.add(jag.AccessToken)
	oc := &oauth2.Config{ClientID: h.cfg.ClientID, ClientSecret: h.cfg.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: e.TokenURL, AuthStyle: e.AuthStyle}}
	// Exchange sends an empty code, which RFC 6749 §3.2 says to ignore
	// (go-sdk makes its grants the same way).
	tok, err := oc.Exchange(context.WithValue(ctx, oauth2.HTTPClient, h.cfg.httpClient()), "",
		oauth2.SetAuthURLParam("grant_type", jwtBearerGrant), oauth2.SetAuthURLParam("assertion", jag.AccessToken))
	if err != nil {
		return nil, err
	}
	h.sec.add(tok.AccessToken, tok.RefreshToken)
	ne := *e
	ne.Token = h.tokenFrom(tok)
	ne.IDP = idp
	if s := grantedScopes(tok); s != nil {
		ne.Scopes = s
	}
	if h.store == nil {
		ne.IDP = nil // from the environment: nothing of it to keep
	}
	return &ne, nil
}

// idToken returns a usable ID token and where to exchange it.
func (h *Handler) idToken(ctx context.Context, cur *IDPLogin) (*IDPLogin, error) {
	if h.cfg.IDToken != "" {
		tokenURL, err := h.idpTokenURL(ctx)
		if err != nil {
			return nil, err
		}
		return &IDPLogin{TokenURL: tokenURL, IDToken: h.cfg.IDToken}, nil
	}
	if cur != nil && idTokenFresh(cur.IDToken, h.now()) {
		return cur, nil
	}
	if cur != nil && cur.RefreshToken != "" {
		oc := &oauth2.Config{ClientID: h.cfg.IDPClientID, ClientSecret: h.cfg.IDPClientSecret, Endpoint: oauth2.Endpoint{TokenURL: cur.TokenURL}}
		tok, err := oc.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, h.cfg.httpClient()), &oauth2.Token{RefreshToken: cur.RefreshToken, Expiry: time.Unix(1, 0)}).Token()
		if err == nil {
			if id, _ := tok.Extra("id_token").(string); id != "" {
				h.sec.add(id, tok.RefreshToken)
				return &IDPLogin{TokenURL: cur.TokenURL, IDToken: id, RefreshToken: tok.RefreshToken}, nil
			}
		} else if !invalidGrant(err) {
			return nil, fmt.Errorf("identity provider: refreshing the ID token: %w", err)
		}
	}
	if h.browser == nil {
		return nil, h.loginRequired("the identity provider's login expired", nil, nil)
	}
	return h.idpLogin(ctx)
}

// idpLogin is the user's OIDC login at the identity provider (go-sdk's
// extauth.PerformOIDCLogin, through this login's browser).
func (h *Handler) idpLogin(ctx context.Context) (*IDPLogin, error) {
	meta, err := auth.GetAuthServerMetadata(ctx, h.cfg.IDPIssuer, h.cfg.httpClient())
	if err != nil || meta == nil {
		return nil, fmt.Errorf("identity provider %q: no metadata: %v", h.cfg.IDPIssuer, err)
	}
	scopes := []string{"openid"}
	if slices.Contains(meta.ScopesSupported, "offline_access") {
		scopes = append(scopes, "offline_access") // a refresh token: no new login every hour
	}
	creds := &oauthex.ClientCredentials{ClientID: h.cfg.IDPClientID}
	if h.cfg.IDPClientSecret != "" {
		creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: h.cfg.IDPClientSecret}
	}
	tok, err := extauth.PerformOIDCLogin(ctx, &extauth.OIDCLoginConfig{
		IssuerURL:   h.cfg.IDPIssuer,
		Credentials: creds,
		RedirectURL: h.browser.redirectURI,
		Scopes:      scopes,
		HTTPClient:  h.cfg.httpClient(),
	}, h.browser.fetch)
	if err != nil {
		return nil, fmt.Errorf("identity provider login: %w", err)
	}
	id, _ := tok.Extra("id_token").(string)
	h.sec.add(id, tok.AccessToken, tok.RefreshToken)
	return &IDPLogin{TokenURL: meta.TokenEndpoint, IDToken: id, RefreshToken: tok.RefreshToken}, nil
}

// idpTokenURL finds the identity provider's token endpoint in its
// metadata (OIDC discovery, then RFC 8414). Only the token exchange needs
// it here, so unlike go-sdk's GetAuthServerMetadata it asks nothing about
// PKCE, which an exchange does not use.
func (h *Handler) idpTokenURL(ctx context.Context) (string, error) {
	issuer := strings.TrimSuffix(h.cfg.IDPIssuer, "/")
	u, err := url.Parse(issuer)
	if err != nil {
		return "", fmt.Errorf("identity provider %q: %w", h.cfg.IDPIssuer, err)
	}
	path := strings.TrimPrefix(u.Path, "/")
	var tries []string
	for _, wk := range []string{"openid-configuration", "oauth-authorization-server"} {
		v := *u
		if path == "" {
			v.Path = "/.well-known/" + wk
		} else if wk == "openid-configuration" {
			v.Path = "/" + path + "/.well-known/" + wk
		} else {
			v.Path = "/.well-known/" + wk + "/" + path
		}
		tries = append(tries, v.String())
	}
	for _, t := range tries {
		var meta struct {
			Issuer        string `json:"issuer"`
			TokenEndpoint string `json:"token_endpoint"`
		}
		if err := httpjson.Get(ctx, h.cfg.httpClient(), t, &meta); err != nil {
			continue
		}
		if strings.TrimSuffix(meta.Issuer, "/") != issuer {
			return "", fmt.Errorf("identity provider metadata at %s names issuer %q, not %q", t, meta.Issuer, h.cfg.IDPIssuer)
		}
		if err := httpsOrLoopback(meta.TokenEndpoint); err != nil {
			return "", fmt.Errorf("identity provider token endpoint: %w", err)
		}
		return meta.TokenEndpoint, nil
	}
	return "", fmt.Errorf("identity provider %q publishes no metadata (tried %s)", h.cfg.IDPIssuer, strings.Join(tries, ", "))
}

// idTokenFresh reads an ID token's expiry (the client only reads it: the
// identity provider checks the signature when the token comes back).
func idTokenFresh(token string, now time.Time) bool {
	if token == "" {
		return false
	}
	t, err := jwt.ParseSigned(token, allAlgs)
	if err != nil {
		return false
	}
	var c jwt.Claims
	if err := t.UnsafeClaimsWithoutVerification(&c); err != nil || c.Expiry == nil {
		return false
	}
	return now.Add(expiryDelta).Before(c.Expiry.Time())
}

var allAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

// loggedIn keeps a login's new entry and marks the end of its
// authorization.
func (h *Handler) loggedIn(e *Entry) error {
	if err := h.keep(e); err != nil {
		return err
	}
	h.mu.Lock()
	h.force, h.authorized, h.forced = false, true, ""
	h.mu.Unlock()
	return nil
}
