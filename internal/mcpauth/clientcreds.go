package mcpauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// clientCredentialsAuthorize answers a 401 (or a step-up 403) in mode
// client_credentials: find the token endpoint, get a token. go-sdk's
// extauth.ClientCredentialsHandler does this for a client secret, but binds
// its token source to the failed request's context (so the token it later
// fetches on expiry fails once that request is over) and knows no
// private_key_jwt.
func (h *Handler) clientCredentialsAuthorize(ctx context.Context, req *http.Request, challenges []oauthex.Challenge, cur *Entry) error {
	e, asm, err := h.grantEntry(ctx, req, challenges)
	if err != nil {
		return err
	}
	if h.signer != nil && len(asm.TokenEndpointAuthSigningAlgValuesSupported) > 0 &&
		!slices.Contains(asm.TokenEndpointAuthSigningAlgValuesSupported, h.alg) {
		return fmt.Errorf("server %q: its authorization server takes client assertions signed with %s, not %s (auth.signing_alg)",
			h.cfg.Server, strings.Join(asm.TokenEndpointAuthSigningAlgValuesSupported, ", "), h.alg)
	}
	if cur != nil {
		e.Scopes = union(cur.Scopes, e.Scopes) // step-up keeps what was granted
	}
	ne, err := h.clientCredentials(ctx, e)
	if err != nil {
		return fmt.Errorf("server %q: client credentials: %w", h.cfg.Server, err)
	}
	return h.loggedIn(ne)
}

// grantEntry starts the entry of a grant with no user at hand (modes
// client_credentials and enterprise): the server's authorization server,
// which must be auth.issuer when that is set, and the scopes to ask for.
func (h *Handler) grantEntry(ctx context.Context, req *http.Request, challenges []oauthex.Challenge) (*Entry, *oauthex.AuthServerMeta, error) {
	prm, asm, err := discover(ctx, h.cfg.httpClient(), req.URL.String(), challenges)
	if err != nil {
		return nil, nil, fmt.Errorf("server %q: %w", h.cfg.Server, err)
	}
	if h.cfg.Issuer != "" && strings.TrimSuffix(h.cfg.Issuer, "/") != strings.TrimSuffix(asm.Issuer, "/") {
		return nil, nil, fmt.Errorf("server %q: its authorization server %q is not the configured issuer %q", h.cfg.Server, asm.Issuer, h.cfg.Issuer)
	}
	return &Entry{
		Issuer:    asm.Issuer,
		TokenURL:  asm.TokenEndpoint,
		ClientID:  h.cfg.ClientID,
		AuthStyle: authStyle(asm.TokenEndpointAuthMethodsSupported),
		Scopes:    requestScopes(h.cfg.Scopes, strings.Fields(challengeParam(challenges, "scope")), prm.ScopesSupported),
		Resource:  prm.Resource,
	}, asm, nil
}

// clientCredentials gets a token for the client itself at e's token
// endpoint, authenticating with the secret or a fresh signed assertion.
func (h *Handler) clientCredentials(ctx context.Context, e *Entry) (*Entry, error) {
	cc := &clientcredentials.Config{
		ClientID:     h.cfg.ClientID,
		ClientSecret: h.cfg.ClientSecret,
		TokenURL:     e.TokenURL,
		Scopes:       e.Scopes,
		AuthStyle:    e.AuthStyle,
	}
	if e.Resource != "" {
		cc.EndpointParams = url.Values{"resource": {e.Resource}}
	}
	if h.signer != nil {
		a, err := assertion(h.signer, h.alg, h.cfg.ClientID, e.Issuer, h.now())
		if err != nil {
			return nil, fmt.Errorf("signing the client assertion: %w", err)
		}
		h.sec.add(a)
		if cc.EndpointParams == nil {
			cc.EndpointParams = url.Values{}
		}
		cc.EndpointParams.Set("client_assertion_type", clientAssertionType)
		cc.EndpointParams.Set("client_assertion", a)
		cc.AuthStyle = oauth2.AuthStyleInParams // client_id in the body, no secret
	}
	tok, err := cc.Token(context.WithValue(ctx, oauth2.HTTPClient, h.cfg.httpClient()))
	if err != nil {
		return nil, err
	}
	h.sec.add(tok.AccessToken, tok.RefreshToken)
	ne := *e
	ne.Token = h.tokenFrom(tok)
	if s := grantedScopes(tok); s != nil {
		ne.Scopes = s
	}
	return &ne, nil
}
