package agentcli_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds an Authorization header to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeLoginLaterAndBearer runs `serve --http --auth-token-env`
// before any login: the OAuth server docs is red with the login hint; a
// login in another process brings it up without a restart; the HTTP
// endpoint (MCP and the status page) takes only the right bearer token,
// and no token of either direction reaches the logs.
func TestServeLoginLaterAndBearer(t *testing.T) {
	w := newOAuthWorld(t)
	token := rand.Text()
	w.env = append(w.env, "SERVE_TOKEN="+token)
	cmd := exec.Command(agentBin, "serve", "--http", "127.0.0.1:0", "--agent", "reader", "--auth-token-env", "SERVE_TOKEN")
	cmd.Dir, cmd.Env = repoRoot, w.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		w.log(logs.String())
		w.noSecretsLogged()
		if strings.Contains(logs.String(), token) {
			t.Error("the serve bearer token is in the agent's logs")
		}
	})
	mcpURL, pageURL := scan(stderr, logs)
	endpoint := await(t, mcpURL, "its MCP address", logs)
	page := await(t, pageURL, "its page address", logs)

	get := func(tok string) (int, apiStatus) {
		req, _ := http.NewRequest("GET", page+"/api/status", nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st apiStatus
		if resp.StatusCode == 200 {
			json.NewDecoder(resp.Body).Decode(&st)
		} else if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%d without a Bearer challenge", resp.StatusCode)
		}
		return resp.StatusCode, st
	}
	for _, tok := range []string{"", "wrong-" + token, token[:len(token)-1]} {
		if code, _ := get(tok); code != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", tok, code)
		}
	}
	code, st := get(token)
	if code != 200 {
		t.Fatalf("the right token: status %d", code)
	}
	hint := false
	for _, s := range st.Servers {
		hint = hint || s.Name == "docs" && strings.Contains(s.Error, "login docs")
	}
	if st.health("docs") != "red" || !hint {
		t.Errorf("before login: want docs red with the login hint: %+v", st)
	}

	// Log in while serve runs: the retried connection picks the token up.
	w.login()
	deadline := time.Now().Add(time.Minute)
	for {
		_, st = get(token)
		if st.health("docs") == "green" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("docs did not come up after the login: %+v\n%s", st, logs)
		}
		time.Sleep(100 * time.Millisecond)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "bearer-host", Version: "1"}, nil)
	if _, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, handshakeRevision); err == nil {
		t.Error("an MCP client without the token connected")
	}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{token}}}, handshakeRevision)
	if err != nil {
		t.Fatalf("connect with the token: %v\n%s", err, logs)
	}
	defer cs.Close()
	var res *mcp.CallToolResult
	for { // the session may list docs' tools a moment after it came up
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: whoami, Arguments: map[string]any{}})
		if err == nil && !res.IsError || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "user alice") {
		t.Fatalf("%s through serve: %v %+v\n%s", whoami, err, res, logs)
	}
}

// TestServeRefusesExposedAddressWithoutAuth: serve --http on an address
// other machines reach needs --auth-token-env or --auth-issuer.
func TestServeRefusesExposedAddressWithoutAuth(t *testing.T) {
	o := agent(t, "serve", "--http", "0.0.0.0:0")
	o.want(t, 1)
	if !strings.Contains(o.stderr, "reachable from other machines") || !strings.Contains(o.stderr, "--auth-token-env") {
		t.Fatalf("stderr:\n%s", o.stderr)
	}
	if strings.Contains(o.stderr, "serving agent") {
		t.Fatal("it listened before refusing")
	}
}

// --auth-token-env naming a variable of only whitespace, however long, is
// refused with the reason before anything listens.
func TestServeRefusesBlankToken(t *testing.T) {
	for _, v := range []string{strings.Repeat(" ", 32), "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, agentBin, "serve", "--http", "127.0.0.1:0", "--auth-token-env", "BLANK_TOKEN")
		cmd.Dir, cmd.Env = repoRoot, append(slices.Clone(agentEnv), "BLANK_TOKEN="+v)
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil || !strings.Contains(string(out), "BLANK_TOKEN: the variable is blank") || strings.Contains(string(out), "serving agent") {
			t.Errorf("value %q: %v\n%s", v, err, out)
		}
	}
}
