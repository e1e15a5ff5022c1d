package jwtauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/toolgen-dev/toolgen/internal/httpjson"
)

// signatureAlgs are the JWS algorithms accepted: public-key ones only (an
// HMAC token would need the issuer's secret here; "none" is never valid).
var signatureAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

// jwtVerifier checks a JWT access token: signed by a key of the issuer,
// issued by it (iss), for this server (aud), current (exp required, nbf,
// iat, with leeway).
type jwtVerifier struct {
	issuer, audience string
	anyType          bool // Config.AnyTokenType
	leeway           time.Duration
	keys             *keySet
	now              func() time.Time
}

// claims are the access token claims read besides the registered ones
// (RFC 9068 §2.2).
type claims struct {
	Scope    string          `json:"scope"`
	Scp      json.RawMessage `json:"scp"` // some issuers: a list or a string
	ClientID string          `json:"client_id"`
}

func (v *jwtVerifier) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	t, err := jwt.ParseSigned(token, signatureAlgs)
	if err != nil {
		return nil, fmt.Errorf("%w: not a signed JWT", auth.ErrInvalidToken)
	}
	if len(t.Headers) != 1 {
		return nil, fmt.Errorf("%w: one signature expected", auth.ErrInvalidToken)
	}
	hdr := t.Headers[0]
	if !v.anyType && !isAccessTokenType(hdr) {
		return nil, fmt.Errorf("%w: not an access token (typ %q, want at+jwt)", auth.ErrInvalidToken, typ(hdr))
	}
	key, err := v.keys.key(ctx, hdr.KeyID, hdr.Algorithm)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	var std jwt.Claims
	var more claims
	if err := t.Claims(key, &std, &more); err != nil {
		return nil, fmt.Errorf("%w: bad signature", auth.ErrInvalidToken)
	}
	if std.Expiry == nil {
		return nil, fmt.Errorf("%w: no expiry (exp)", auth.ErrInvalidToken)
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.issuer, Time: v.now()}, v.leeway); err != nil {
		return nil, fmt.Errorf("%w: %s", auth.ErrInvalidToken, strings.TrimPrefix(err.Error(), "go-jose/go-jose/jwt: "))
	}
	// A token for another resource, even from the same issuer, is not for
	// this server (RFC 8707; MCP forbids accepting it).
	if !oauthex.MatchesResource(std.Audience, v.audience) {
		return nil, fmt.Errorf("%w: issued for another audience", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{
		Scopes:     scopes(more),
		Expiration: std.Expiry.Time(),
		UserID:     std.Subject,
		Extra:      map[string]any{"client_id": more.ClientID},
	}, nil
}

// isAccessTokenType: typ is at+jwt, with or without the application/
// prefix, in any case (RFC 9068 §4, RFC 8725 §3.11).
func isAccessTokenType(h jose.Header) bool {
	t := strings.ToLower(typ(h))
	return t == "at+jwt" || t == "application/at+jwt"
}

func typ(h jose.Header) string {
	s, _ := h.ExtraHeaders[jose.HeaderType].(string)
	return s
}

func scopes(c claims) []string {
	s := strings.Fields(c.Scope)
	var list []string
	var one string
	switch {
	case json.Unmarshal(c.Scp, &list) == nil:
		s = append(s, list...)
	case json.Unmarshal(c.Scp, &one) == nil:
		s = append(s, strings.Fields(one)...)
	}
	return s
}

// keySet is the issuer's JWKS, cached: fetched again when a token names a
// key it does not hold (the issuer rotated its keys; at most once in
// jwksMissRetry, so forged key IDs cannot make it hammer the issuer) and
// when it is an hour old.
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	set     jose.JSONWebKeySet
	fetched time.Time // last success
	tried   time.Time // last attempt
	missed  time.Time // last attempt for an unknown key
}

const (
	jwksMaxAge    = time.Hour
	jwksMissRetry = 30 * time.Second
)

func (k *keySet) key(ctx context.Context, kid, alg string) (*jose.JSONWebKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	if now.Sub(k.fetched) > jwksMaxAge && now.Sub(k.tried) > jwksMissRetry {
		k.fetchLocked(ctx) // on failure the old keys stay in use
	}
	if key := k.findLocked(kid, alg); key != nil {
		return key, nil
	}
	if now.Sub(k.missed) > jwksMissRetry {
		k.missed = now
		k.fetchLocked(ctx)
		if key := k.findLocked(kid, alg); key != nil {
			return key, nil
		}
	}
	return nil, fmt.Errorf("no key %q in the issuer's key set", kid)
}

// findLocked picks the signing key the token names; a token naming none
// is taken only when the set holds a single signing key.
func (k *keySet) findLocked(kid, alg string) *jose.JSONWebKey {
	var only *jose.JSONWebKey
	n := 0
	for i := range k.set.Keys {
		key := &k.set.Keys[i]
		if key.Use == "enc" {
			continue
		}
		if key.Algorithm != "" && key.Algorithm != alg {
			continue
		}
		if kid != "" && key.KeyID == kid {
			return key
		}
		only = key
		n++
	}
	if kid == "" && n == 1 {
		return only
	}
	return nil
}

func (k *keySet) fetch(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.fetchLocked(ctx)
}

func (k *keySet) fetchLocked(ctx context.Context) error {
	k.tried = k.now()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var set jose.JSONWebKeySet
	if err := httpjson.Get(ctx, k.client, k.url, &set); err != nil {
		return fmt.Errorf("key set: %w", err)
	}
	var keep []jose.JSONWebKey
	for _, key := range set.Keys {
		if key.IsPublic() { // never trust a set that carries private or symmetric keys as such
			keep = append(keep, key)
		}
	}
	if len(keep) == 0 {
		return fmt.Errorf("key set at %s has no public keys", k.url)
	}
	k.set = jose.JSONWebKeySet{Keys: keep}
	k.fetched = k.now()
	return nil
}

// jwksFromMetadata reads the issuer's jwks_uri from its metadata: RFC 8414,
// then OpenID Connect discovery; the issuer it names must be the one asked
// for (RFC 8414 §3.3).
func jwksFromMetadata(ctx context.Context, client *http.Client, issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("not a URL")
	}
	path := strings.Trim(u.Path, "/")
	var tries []string
	for _, wk := range []string{"oauth-authorization-server", "openid-configuration"} {
		v := *u
		v.Path = "/.well-known/" + wk
		if path != "" {
			v.Path += "/" + path
		}
		tries = append(tries, v.String())
	}
	if path != "" {
		v := *u
		v.Path = "/" + path + "/.well-known/openid-configuration"
		tries = append(tries, v.String())
	}
	var errs []error
	for _, t := range tries {
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := httpjson.Get(ctx, client, t, &meta); err != nil {
			errs = append(errs, err)
			continue
		}
		if strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return "", fmt.Errorf("metadata at %s names issuer %q", t, meta.Issuer)
		}
		if meta.JWKSURI == "" {
			return "", fmt.Errorf("metadata at %s has no jwks_uri (set the key set URL)", t)
		}
		return meta.JWKSURI, nil
	}
	return "", fmt.Errorf("no metadata: %w", errors.Join(errs...))
}
