package mcpauth

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// TestRedirectListener: only the redirect carrying the waiting login's
// state ends it; another request to the loopback port is turned away; an
// error the authorization server sends back is the login's error.
func TestRedirectListener(t *testing.T) {
	var out bytes.Buffer
	b, err := listenRedirect("", "docs", nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	if !strings.HasPrefix(b.redirectURI, "http://127.0.0.1:") || !strings.HasSuffix(b.redirectURI, "/callback") {
		t.Fatalf("redirect URI %q", b.redirectURI)
	}
	get := func(q url.Values) int {
		resp, err := http.Get(b.redirectURI + "?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	done := make(chan error, 1)
	var code string
	go func() {
		res, err := b.authorize(context.Background(), "https://as.example/authorize?state=S1")
		if err == nil {
			code = res.Code
		}
		done <- err
	}()
	waitLogin(b)
	if s := get(url.Values{"state": {"forged"}, "code": {"evil"}}); s != http.StatusBadRequest {
		t.Errorf("forged state: status %d, want 400", s)
	}
	if s := get(url.Values{"state": {"S1"}, "code": {"good"}}); s != http.StatusOK {
		t.Errorf("the real redirect: status %d", s)
	}
	if err := <-done; err != nil || code != "good" {
		t.Fatalf("login got %q, %v", code, err)
	}
	if !strings.Contains(out.String(), "https://as.example/authorize?state=S1") {
		t.Errorf("the URL was not printed:\n%s", out.String())
	}

	go func() {
		_, err := b.authorize(context.Background(), "https://as.example/authorize?state=S2")
		done <- err
	}()
	waitLogin(b)
	get(url.Values{"state": {"S2"}, "error": {"access_denied"}, "error_description": {"the user said no"}})
	if err := <-done; err == nil || !strings.Contains(err.Error(), "access_denied: the user said no") {
		t.Errorf("refused login: %v", err)
	}
}

// waitLogin returns once a login waits for its redirect.
func waitLogin(b *browser) {
	for {
		b.mu.Lock()
		n := len(b.waiting)
		b.mu.Unlock()
		if n == 1 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

func TestRedirectURIChecked(t *testing.T) {
	for _, bad := range []string{"https://127.0.0.1/cb", "http://example.com/cb", "http://127.0.0.1/cb?x=1", "http://10.0.0.1/cb"} {
		if _, err := listenRedirect(bad, "docs", nil, nil); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestAssertion: a private_key_jwt client assertion per RFC 7523: signed
// with the configured key, the client as iss and sub, the authorization
// server as aud, short-lived, one jti per assertion.
func TestAssertion(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	rs, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	for _, tc := range []struct {
		key     any
		alg     string // configured
		wantAlg string
	}{
		{ec, "", "ES384"},
		{rs, "", "RS256"},
		{rs, "PS256", "PS256"},
		{ed, "", "EdDSA"},
	} {
		der, err := x509.MarshalPKCS8PrivateKey(tc.key)
		if err != nil {
			t.Fatal(err)
		}
		cfg := &Config{Server: "s", PrivateKey: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), SigningAlg: tc.alg}
		signer, alg, err := loadSigner(cfg)
		if err != nil || alg != tc.wantAlg {
			t.Fatalf("%T: alg %q, %v; want %s", tc.key, alg, err, tc.wantAlg)
		}
		now := time.Now()
		a1, err := assertion(signer, alg, "client-1", "https://as.example", now)
		if err != nil {
			t.Fatal(err)
		}
		a2, _ := assertion(signer, alg, "client-1", "https://as.example", now)
		parsed, err := jwt.ParseSigned(a1, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)})
		if err != nil {
			t.Fatal(err)
		}
		var c, c2 jwt.Claims
		if err := parsed.Claims(signer.Public(), &c); err != nil {
			t.Fatalf("%s: signature: %v", alg, err)
		}
		p2, _ := jwt.ParseSigned(a2, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(alg)})
		p2.Claims(signer.Public(), &c2)
		if err := c.Validate(jwt.Expected{Issuer: "client-1", Subject: "client-1", AnyAudience: jwt.Audience{"https://as.example"}, Time: now}); err != nil {
			t.Errorf("%s: claims: %v", alg, err)
		}
		if c.ID == "" || c.ID == c2.ID || c.Expiry.Time().Sub(now) > 5*time.Minute {
			t.Errorf("%s: jti %q/%q, exp %v", alg, c.ID, c2.ID, c.Expiry.Time())
		}
	}
	// A key that cannot make the configured signature is refused at once.
	der, _ := x509.MarshalPKCS8PrivateKey(ec)
	if _, _, err := loadSigner(&Config{Server: "s", SigningAlg: "RS256", PrivateKey: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))}); err == nil {
		t.Error("an EC key accepted for RS256")
	}
	if _, _, err := loadSigner(&Config{Server: "s", PrivateKey: "not pem"}); err == nil || !strings.Contains(err.Error(), "not PEM") {
		t.Errorf("garbage key: %v", err)
	}
}
