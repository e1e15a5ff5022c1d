package serveauth

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// JWTPackage is the import path that links the JWT access-token verifier
// (and go-jose with it): only an agent that serves with --auth-issuer
// needs it, so the others do not pay for it.
const JWTPackage = "github.com/toolgen-dev/toolgen/runtime/serve/jwtauth"

// ErrJWTNotLinked: --auth-issuer in a binary without JWTPackage.
var ErrJWTNotLinked = errors.New("the JWT access-token verifier is not linked")

// JWTSettings are what a JWT verifier is made of (Config's OAuth part,
// checked and defaulted).
type JWTSettings struct {
	Issuer, Audience string
	JWKSURL          string // "": from the issuer's metadata
	AnyTokenType     bool
	Leeway           time.Duration
	Client           *http.Client
}

// NewJWTVerifier makes a token verifier for s, reading the issuer's keys
// now, so that a wrong issuer stops the server at start.
type NewJWTVerifier func(ctx context.Context, s JWTSettings) (auth.TokenVerifier, error)

var jwtLink struct {
	sync.RWMutex
	newVerifier NewJWTVerifier
}

// RegisterJWT links the JWT verifier; JWTPackage calls it from init.
func RegisterJWT(f NewJWTVerifier) {
	jwtLink.Lock()
	defer jwtLink.Unlock()
	jwtLink.newVerifier = f
}

func linkedJWT() NewJWTVerifier {
	jwtLink.RLock()
	defer jwtLink.RUnlock()
	return jwtLink.newVerifier
}
