// Command client is the MCP conformance suite's client under test: it
// connects with internal/mcpconn exactly as the runtime does (streamable
// HTTP, the pinned protocol version, the same handshake and tools/list),
// then does what the scenario named by MCP_CONFORMANCE_SCENARIO asks.
//
//	conformance client --command "client" --scenario initialize
//
// The suite appends the server URL as the last argument.
//
// Auth scenarios (auth/…) go the way a user goes: the server's auth block
// is built from the scenario's context (MCP_CONFORMANCE_CONTEXT: client_id,
// client_secret, private_key_pem, idp_* …), `agent login` runs first
// (internal/mcpauth.Login, with an HTTP client following the authorization
// server's redirect as the browser), then the agent connects with the
// stored tokens through internal/mcpconn and calls the server's tool. When
// a call says to log in again (a server asking for more scope), the user
// does, and the call is made once more.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: client SERVER_URL")
		os.Exit(2)
	}
	if err := run(os.Args[len(os.Args)-1], os.Getenv("MCP_CONFORMANCE_SCENARIO")); err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		os.Exit(1)
	}
}

func run(url, scenario string) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cfg := mcpconn.Config{Name: "conformance", Transport: mcpconn.TransportHTTP, URL: url}
	var login func() error
	if strings.HasPrefix(scenario, "auth/") {
		state, err := os.MkdirTemp("", "conformance-oauth-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(state)
		ac, err := authConfig(url, scenario, os.Getenv("MCP_CONFORMANCE_CONTEXT"))
		if err != nil {
			return err
		}
		ac.Store = mcpauth.OpenStore(state)
		ac.Logger = logger
		login = func() error { return mcpauth.Login(ctx, ac, followRedirects, os.Stdout) }
		if err := login(); err != nil {
			return err
		}
		h, err := mcpauth.New(ac)
		if err != nil {
			return err
		}
		defer h.Close()
		cfg.OAuth = h
		cfg.Redact = []string{ac.ClientSecret, ac.PrivateKey, ac.IDToken}
	}

	m := mcpconn.NewManager(logger)
	defer m.Close()
	c, err := m.Acquire(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Release()
	fmt.Printf("connected: %d tools\n", len(c.Tools()))

	switch {
	case scenario == "tools_call" || scenario == "sse-retry" || strings.HasPrefix(scenario, "auth/"):
		// The scenario's server has add_numbers (auth servers: test-tool);
		// call every tool it lists with arguments that fit it.
		for _, t := range c.Tools() {
			args := `{}`
			if t.Name == "add_numbers" {
				args = `{"a":5,"b":3}`
			}
			r, err := c.Call(ctx, t.Name, []byte(args))
			if err != nil && login != nil && strings.Contains(err.Error(), "login") {
				fmt.Println(err) // "run: agent login conformance": the user does
				if err := login(); err != nil {
					return err
				}
				r, err = c.Call(ctx, t.Name, []byte(args))
			}
			if err != nil {
				return fmt.Errorf("tools/call %s: %w", t.Name, err)
			}
			fmt.Printf("%s: %s (isError=%v)\n", t.Name, r.Text(), r.IsError)
		}
	case strings.HasPrefix(scenario, "sep-2640-client-"):
		return skills(ctx, c, scenario)
	}
	return nil
}

// skills is the agent as a host of a Skills server: it lists the skills,
// as an agent does to offer them by name and description, and reads
// nothing more (no prefetch); in the verify-* scenarios a model then asks
// for each skill, as skill_load does: SKILL.md first, verified, and its
// other files only if it passed.
func skills(ctx context.Context, c *mcpconn.Conn, scenario string) error {
	list, err := c.Skills(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("skills: %d\n", len(list))
	if !strings.HasPrefix(scenario, "sep-2640-client-verify-") {
		return nil
	}
	for i := range list {
		sk := &list[i]
		if _, _, err := c.ReadSkillFile(ctx, sk, sk.URI); err != nil {
			fmt.Printf("refused: %v\n", err)
			continue
		}
		for _, f := range sk.Resources {
			if f.URI == sk.URI {
				continue
			}
			if _, _, err := c.ReadSkillFile(ctx, sk, f.URI); err != nil {
				fmt.Printf("refused: %v\n", err)
			}
		}
		fmt.Printf("loaded %s\n", sk.URI)
	}
	return nil
}

// authConfig is the server's auth block for the scenario: the mode its name
// implies, the credentials its context hands out.
func authConfig(url, scenario, raw string) (mcpauth.Config, error) {
	var c struct {
		ClientID      string `json:"client_id"`
		ClientSecret  string `json:"client_secret"`
		PrivateKeyPEM string `json:"private_key_pem"`
		SigningAlg    string `json:"signing_algorithm"`
		IDPClientID   string `json:"idp_client_id"`
		IDPIDToken    string `json:"idp_id_token"`
		IDPIssuer     string `json:"idp_issuer"`
	}
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			return mcpauth.Config{}, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	ac := mcpauth.Config{
		Server:       "conformance",
		URL:          url,
		Agent:        "agent",
		ClientID:     c.ClientID,
		ClientSecret: c.ClientSecret,
	}
	switch {
	case strings.HasPrefix(scenario, "auth/client-credentials"):
		ac.Mode = mcpauth.ModeClientCredentials
		ac.PrivateKey, ac.SigningAlg = c.PrivateKeyPEM, c.SigningAlg
	case strings.HasPrefix(scenario, "auth/cross-app-access"):
		ac.Mode = mcpauth.ModeEnterprise
		ac.IDPIssuer, ac.IDPClientID, ac.IDToken = c.IDPIssuer, c.IDPClientID, c.IDPIDToken
	case c.ClientID == "":
		// No pre-registered client: a client ID metadata document where
		// the authorization server takes one, else dynamic registration.
		ac.ClientMetadataURL = "https://conformance-test.local/client-metadata.json"
	}
	return ac, nil
}

// followRedirects is the browser: it opens the authorization URL and
// follows the authorization server's redirect to the agent's loopback
// listener, as a user's browser would after the user approved.
func followRedirects(url string) error {
	go func() {
		resp, err := http.Get(url)
		if err != nil {
			fmt.Fprintln(os.Stderr, "browser:", err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	return nil
}
