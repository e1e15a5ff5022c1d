package mcpconn

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// OAuthTransport gives OAuth to a transport that takes an http.Client rather
// than an OAuthHandler (go-sdk's SSE client): requests to the server's
// origin carry the handler's token, and a 401 or 403 is answered by
// Authorize and the request sent once more, as StreamableClientTransport
// does. Requests elsewhere get no token.
func OAuthTransport(h auth.OAuthHandler, serverURL string, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	t := &oauthRoundTripper{h: h, base: base}
	if u, err := url.Parse(serverURL); err == nil {
		t.scheme, t.host = u.Scheme, u.Host
	}
	return t
}

type oauthRoundTripper struct {
	h            auth.OAuthHandler
	base         http.RoundTripper
	scheme, host string
}

func (t *oauthRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.EqualFold(req.URL.Scheme, t.scheme) || !strings.EqualFold(req.URL.Host, t.host) {
		return t.base.RoundTrip(req)
	}
	first, err := t.withToken(req)
	if err != nil {
		return nil, err
	}
	resp, err := t.base.RoundTrip(first)
	if err != nil || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return resp, err
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return resp, nil // cannot send it again
	}
	if err := t.h.Authorize(req.Context(), first, resp); err != nil {
		return nil, err
	}
	again, err := t.withToken(req)
	if err != nil {
		return nil, err
	}
	if req.GetBody != nil {
		if again.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	return t.base.RoundTrip(again)
}

func (t *oauthRoundTripper) withToken(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	ts, err := t.h.TokenSource(req.Context())
	if err != nil {
		return nil, err
	}
	if ts != nil {
		tok, err := ts.Token()
		if err != nil {
			return nil, err
		}
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return r, nil
}
