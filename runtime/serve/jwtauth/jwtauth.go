// Package jwtauth links the JWT access-token verifier into an agent, for
// `serve --http --auth-issuer URL --auth-audience URL`: tokens signed by
// the issuer's published keys (JWKS, with go-jose), for this server. An
// agent that only serves on stdio or loopback, or with a shared bearer
// token (--auth-token-env), does not need it. Import it in the agent's
// main package:
//
//	import _ "github.com/toolgen-dev/toolgen/runtime/serve/jwtauth"
//
// Without it, --auth-issuer fails at start saying to import this package.
package jwtauth

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolgen-dev/toolgen/internal/serveauth"
)

func init() { serveauth.RegisterJWT(newVerifier) }

func newVerifier(ctx context.Context, s serveauth.JWTSettings) (auth.TokenVerifier, error) {
	jwksURL := s.JWKSURL
	if jwksURL == "" {
		var err error
		if jwksURL, err = jwksFromMetadata(ctx, s.Client, s.Issuer); err != nil {
			return nil, err
		}
	}
	v := &jwtVerifier{issuer: s.Issuer, audience: s.Audience, anyType: s.AnyTokenType, leeway: s.Leeway,
		keys: &keySet{url: jwksURL, client: s.Client, now: time.Now}, now: time.Now}
	if err := v.keys.fetch(ctx); err != nil {
		return nil, err
	}
	return v.verify, nil
}
