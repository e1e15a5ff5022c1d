package mcpauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// clientAssertionType is RFC 7523's client authentication by JWT.
const clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// signingAlgs are the JWS algorithms a private key may sign assertions with.
var signingAlgs = []string{"ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA"}

// loadSigner reads the private key (PEM: PKCS#8, PKCS#1 or SEC 1) and
// picks its algorithm: signing_alg, else the key's natural one.
func loadSigner(c *Config) (crypto.Signer, string, error) {
	data := []byte(c.PrivateKey)
	if c.PrivateKeyFile != "" {
		b, err := os.ReadFile(c.PrivateKeyFile)
		if err != nil {
			return nil, "", fmt.Errorf("server %q: auth.private_key_file: %w", c.Server, err)
		}
		data = b
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, "", fmt.Errorf("server %q: auth private key: not PEM (expected -----BEGIN PRIVATE KEY-----)", c.Server)
	}
	var key any
	var err error
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, "", fmt.Errorf("server %q: auth private key: %w", c.Server, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, "", fmt.Errorf("server %q: auth private key: %T cannot sign", c.Server, key)
	}
	natural := ""
	switch k := signer.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			natural = "ES256"
		case elliptic.P384():
			natural = "ES384"
		case elliptic.P521():
			natural = "ES512"
		}
	case *rsa.PrivateKey:
		natural = "RS256"
	case ed25519.PrivateKey:
		natural = "EdDSA"
	}
	alg := c.SigningAlg
	if alg == "" {
		alg = natural
	}
	if alg == "" || !algFits(alg, signer) {
		return nil, "", fmt.Errorf("server %q: auth.signing_alg %q does not fit a %T key", c.Server, alg, signer)
	}
	return signer, alg, nil
}

func algFits(alg string, k crypto.Signer) bool {
	switch k := k.(type) {
	case *ecdsa.PrivateKey:
		return alg == map[elliptic.Curve]string{elliptic.P256(): "ES256", elliptic.P384(): "ES384", elliptic.P521(): "ES512"}[k.Curve]
	case *rsa.PrivateKey:
		return alg[0] == 'R' || alg[0] == 'P'
	case ed25519.PrivateKey:
		return alg == "EdDSA"
	}
	return false
}

// assertion signs a fresh client assertion (RFC 7523 §3): the client is
// issuer and subject, the authorization server's issuer the audience, one
// use (jti), a minute long.
func assertion(signer crypto.Signer, alg, clientID, audience string, now time.Time) (string, error) {
	if signer == nil {
		return "", errors.New("no private key")
	}
	key := any(signer)
	if k, ok := signer.(ed25519.PrivateKey); ok {
		key = k
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	return jwt.Signed(sig).Claims(jwt.Claims{
		Issuer:   clientID,
		Subject:  clientID,
		Audience: jwt.Audience{audience},
		ID:       rand.Text(),
		IssuedAt: jwt.NewNumericDate(now),
		Expiry:   jwt.NewNumericDate(now.Add(time.Minute)),
	}).Serialize()
}
