package agentcli_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeJWT runs `serve --http --auth-issuer --auth-audience`: the
// protected-resource metadata names the issuer; an access token the
// issuer signed for this server is accepted; a token signed by another
// key, expired, or for another audience is not; none reaches the logs.
func TestServeJWT(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	mux := http.NewServeMux()
	is := httptest.NewServer(mux)
	defer is.Close()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": is.URL, "jwks_uri": is.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})

	// A free port, so the audience (this server's URL) is known up front.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	audience := "http://" + addr + "/mcp"

	signTyp := func(typ jose.ContentType, k *ecdsa.PrivateKey, aud string, exp time.Time) string {
		sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k}, (&jose.SignerOptions{}).WithType(typ).WithHeader("kid", "k1"))
		if err != nil {
			t.Fatal(err)
		}
		tok, err := jwt.Signed(sig).Claims(jwt.Claims{Issuer: is.URL, Subject: "bob", Audience: jwt.Audience{aud},
			IssuedAt: jwt.NewNumericDate(time.Now().Add(-2 * time.Hour)), Expiry: jwt.NewNumericDate(exp)}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	sign := func(k *ecdsa.PrivateKey, aud string, exp time.Time) string { return signTyp("at+jwt", k, aud, exp) }
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	good := sign(key, audience, time.Now().Add(time.Hour))
	bad := map[string]string{
		"another key":    sign(other, audience, time.Now().Add(time.Hour)),
		"expired":        sign(key, audience, time.Now().Add(-time.Hour)),
		"wrong audience": sign(key, "http://"+addr+"/other", time.Now().Add(time.Hour)),
		"not a JWT":      "not-a-jwt-at-all",
		"typ JWT":        signTyp("JWT", key, audience, time.Now().Add(time.Hour)), // an ID token, say: no access token (RFC 9068)
	}

	cmd := exec.Command(agentBin, "serve", "--http", addr, "--agent", "helper", "--auth-issuer", is.URL, "--auth-audience", audience)
	cmd.Dir, cmd.Env = repoRoot, agentEnv
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		for name, tok := range bad {
			if strings.Contains(logs.String(), tok) {
				t.Errorf("the %s token is in the logs", name)
			}
		}
		if strings.Contains(logs.String(), good) {
			t.Error("the good token is in the logs")
		}
	}()
	mcpURL, _ := scan(stderr, logs)
	endpoint := await(t, mcpURL, "its MCP address", logs)

	resp, err := http.Get("http://" + addr + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if meta.Resource != audience || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != is.URL {
		t.Errorf("protected-resource metadata: %+v", meta)
	}

	post := func(tok string) *http.Response {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for name, tok := range bad {
		resp := post(tok)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
			t.Errorf("%s token: %d %q, want 401 with the metadata URL", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "jwt-host", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{good}}}, nil)
	if err != nil {
		t.Fatalf("connect with a good token: %v\n%s", err, logs)
	}
	defer cs.Close()
	n := 0
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Fatalf("no tools listed with a good token\n%s", logs)
	}
}
