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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/frontmatter"
	"github.com/toolgen-dev/toolgen/internal/mcpauth"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
)

func main() {
	// The agent as a Skills client checks SKILL.md frontmatter as an agent
	// that uses skills does (runtime/skills registers the same reader).
	mcpconn.RegisterFrontmatter(frontmatter.Compare)
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
	// The client stands for a host that can answer an upstream's questions
	// (elicitation, sampling), as an MCP host serving the agent would: what
	// the server asks during a call (a server-to-client request, or a
	// 2026-07-28 input-required result) reaches it through mcpconn's
	// forwarding, exactly as it reaches a real host.
	m.SetHostCapabilities(&mcp.ClientCapabilities{
		Sampling:    &mcp.SamplingCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}},
	})
	ctx = mcpconn.WithCaller(ctx, host{})
	c, err := m.Acquire(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Release()
	fmt.Printf("connected: %d tools\n", len(c.Tools()))

	if strings.HasPrefix(scenario, "sep-2640-client-") {
		return skills(ctx, c, scenario)
	}
	calls, err := scenarioCalls(scenario, os.Getenv("MCP_CONFORMANCE_CONTEXT"), c.Tools())
	if err != nil {
		return err
	}
	for _, call := range calls {
		r, err := c.Call(ctx, call.Name, call.Arguments)
		if err != nil && login != nil && strings.Contains(err.Error(), "login") {
			fmt.Println(err) // "run: agent login conformance": the user does
			if err := login(); err != nil {
				return err
			}
			r, err = c.Call(ctx, call.Name, call.Arguments)
		}
		if err != nil {
			return fmt.Errorf("tools/call %s: %w", call.Name, err)
		}
		fmt.Printf("%s: %s (isError=%v)\n", call.Name, r.Text(), r.IsError)
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

// toolCall is one tools/call the scenario wants made.
type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// scenarioCalls are the calls a scenario drives, as a host's model would
// make them: the ones its context names (toolCalls), else for scenarios
// about calling, every tool the client kept, with arguments that fit its
// schema. json-schema-2020-12-preservation round-trips the schema mcpconn
// kept for its focal tool through the echo tool, so that what the
// client's parsing dropped shows.
func scenarioCalls(scenario, rawContext string, tools []mcpconn.Tool) ([]toolCall, error) {
	var sc struct {
		ToolCalls []toolCall `json:"toolCalls"`
	}
	if rawContext != "" {
		if err := json.Unmarshal([]byte(rawContext), &sc); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	if len(sc.ToolCalls) > 0 {
		return sc.ToolCalls, nil
	}
	var calls []toolCall
	switch {
	case scenario == "json-schema-2020-12-preservation":
		for _, t := range tools {
			if t.Name == "json_schema_2020_12_tool" {
				args, _ := json.Marshal(map[string]json.RawMessage{"schema": t.InputSchema})
				calls = append(calls, toolCall{Name: "json_schema_echo", Arguments: args})
			}
		}
	case scenario == "tools_call" || scenario == "sse-retry" || strings.HasPrefix(scenario, "auth/") ||
		strings.HasPrefix(scenario, "sep-2322-") || strings.HasPrefix(scenario, "http-"):
		for _, t := range tools {
			calls = append(calls, toolCall{Name: t.Name, Arguments: argumentsFor(t)})
		}
	}
	return calls, nil
}

// argumentsFor fills a tool's required properties with a value of their
// type (add_numbers gets the numbers its scenario checks).
func argumentsFor(t mcpconn.Tool) json.RawMessage {
	if t.Name == "add_numbers" {
		return json.RawMessage(`{"a":5,"b":3}`)
	}
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	args := map[string]any{}
	if json.Unmarshal(t.InputSchema, &schema) == nil {
		for _, name := range schema.Required {
			switch schema.Properties[name].Type {
			case "number", "integer":
				args[name] = 1
			case "boolean":
				args[name] = true
			case "object":
				args[name] = map[string]any{}
			case "array":
				args[name] = []any{}
			default:
				args[name] = "conformance"
			}
		}
	}
	b, _ := json.Marshal(args)
	return b
}

// host answers what an upstream asks during a call as a user would: an
// elicitation accepted with a value for every field (its default, else one
// of its type), a sampling request with a fixed text.
type host struct{}

func (host) WantsProgress() bool                                { return false }
func (host) Progress(context.Context, float64, float64, string) {}
func (host) Log(context.Context, *mcp.LoggingMessageParams)     {}

func (host) CreateMessage(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{Role: "assistant", Model: "conformance-host", Content: &mcp.TextContent{Text: "ok"}}, nil
}

func (host) Elicit(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	content := map[string]any{}
	var schema struct {
		Properties map[string]struct {
			Type    string `json:"type"`
			Default any    `json:"default"`
		} `json:"properties"`
	}
	if b, err := json.Marshal(p.RequestedSchema); err == nil && json.Unmarshal(b, &schema) == nil {
		for name, prop := range schema.Properties {
			switch {
			case prop.Default != nil:
				content[name] = prop.Default
			case prop.Type == "boolean":
				content[name] = true
			case prop.Type == "number" || prop.Type == "integer":
				content[name] = 1
			default:
				content[name] = "conformance"
			}
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
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
