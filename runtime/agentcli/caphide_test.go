package agentcli_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	triggerSampling    = "everything__trigger-sampling-request"
	triggerElicitation = "everything__trigger-elicitation-request"
)

// listedNames is one host's tools/list, every page, by name.
func listedNames(t *testing.T, ctx context.Context, cs *mcp.ClientSession) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tl.Name] = true
	}
	return out
}

// waitListed lists until want's tools are all there (the agent's upstream
// connection reconnects for what a new host declared, then its tools
// change), or ctx ends.
func waitListed(t *testing.T, ctx context.Context, cs *mcp.ClientSession, want ...string) map[string]bool {
	t.Helper()
	for {
		names := listedNames(t, ctx, cs)
		all := true
		for _, w := range want {
			all = all && names[w]
		}
		if all {
			return names
		}
		select {
		case <-time.After(200 * time.Millisecond): // a 2026-07-28 host hears of no change: ask again
		case <-ctx.Done():
			t.Fatalf("never listed %v: %d tools", want, len(names))
		}
	}
}

// On `serve --http`, hosts share the upstream connections, which declare
// what the hosts declare together. Each host is still shown only the tools
// it can use: server-everything lists its trigger tools only to a client
// that can sample or elicit, so a host that declared neither (2025-11-25
// at initialize, 2026-07-28 in its requests' _meta) is not shown them
// while another host that declared both is.
func TestHTTPHostsListOnlyToolsTheyCanUse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	url := serveGateway(t)
	connect := func(c *mcp.Client, version string) *mcp.ClientSession { return connectAt(t, ctx, c, url, version) }
	plain := connect(mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "1"}, nil), "2025-11-25")
	if n := listedNames(t, ctx, plain); n[triggerSampling] || n[triggerElicitation] || !n["everything__echo"] {
		t.Fatalf("alone, the host that declared nothing lists trigger tools %v %v, echo %v", n[triggerSampling], n[triggerElicitation], n["everything__echo"])
	}
	able := connect((&everythingHost{}).client("able"), "2025-11-25")
	waitListed(t, ctx, able, triggerSampling, triggerElicitation)

	check := func(who string, cs *mcp.ClientSession) {
		t.Helper()
		n := listedNames(t, ctx, cs)
		if n[triggerSampling] || n[triggerElicitation] {
			t.Errorf("%s, beside a host that can sample and elicit, lists %s %v and %s %v; want neither",
				who, triggerSampling, n[triggerSampling], triggerElicitation, n[triggerElicitation])
		}
		if !n["everything__echo"] {
			t.Errorf("%s lists no everything__echo: %d tools", who, len(n))
		}
	}
	check("a 2025-11-25 host that declared nothing", plain)
	stateless := connect(mcp.NewClient(&mcp.Implementation{Name: "plain26", Version: "1"}, nil), "2026-07-28")
	check("a 2026-07-28 host that declared nothing", stateless)
	// The host that can is still shown both, after the others listed.
	if n := listedNames(t, ctx, able); !n[triggerSampling] || !n[triggerElicitation] {
		t.Errorf("the host that declared sampling and elicitation lists %v and %v, want both", n[triggerSampling], n[triggerElicitation])
	}
}

// A stdio host that declares sampling alone is shown the tool that needs
// sampling, not the one that needs elicitation.
func TestStdioSamplingHostListsSamplingTool(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := host(t, ctx, gatewayCmd(), &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
		},
	})
	if n := waitListed(t, ctx, cs, triggerSampling); n[triggerElicitation] {
		t.Errorf("a host without elicitation lists %s", triggerElicitation)
	}
}

// For a discovery agent, tool_find and tool_load leave out the tools the
// calling host cannot use as tools/list does: the seeker agent may load
// server-everything's trigger tools, and only the host that declared
// sampling and elicitation finds and loads them.
func TestDiscoveryFindsOnlyToolsTheHostCanUse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	url := serveAgentHTTP(t, "seeker", agentEnv)
	connect := func(c *mcp.Client, version string) *mcp.ClientSession { return connectAt(t, ctx, c, url, version) }
	call := func(cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
		t.Helper()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		var b strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), r.IsError
	}
	find := func(cs *mcp.ClientSession) map[string]bool {
		t.Helper()
		out, isErr := call(cs, "tool_find", map[string]any{"query": "trigger a sampling request or an elicitation request", "limit": 50})
		if isErr {
			t.Fatalf("tool_find: %s", out)
		}
		var res struct{ Results []struct{ Name string } }
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("tool_find: %v: %s", err, out)
		}
		names := map[string]bool{}
		for _, h := range res.Results {
			names[h.Name] = true
		}
		return names
	}
	able := connect((&everythingHost{}).client("able"), "2025-11-25")
	for n := find(able); !n[triggerSampling] || !n[triggerElicitation]; n = find(able) {
		select { // the upstream connection is replaced for what able declared
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			t.Fatalf("the host that can sample and elicit never found the trigger tools: %v", n)
		}
	}
	for _, c := range []struct {
		who string
		cs  *mcp.ClientSession
	}{
		{"2025-11-25 host", connect(mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "1"}, nil), "2025-11-25")},
		{"2026-07-28 host", connect(mcp.NewClient(&mcp.Implementation{Name: "plain26", Version: "1"}, nil), "2026-07-28")},
	} {
		if n := find(c.cs); n[triggerSampling] || n[triggerElicitation] {
			t.Errorf("a %s that declared nothing finds %v", c.who, n)
		}
		out, isErr := call(c.cs, "tool_load", map[string]any{"names": []string{triggerSampling}})
		if !isErr || !strings.Contains(out, "sampling") {
			t.Errorf("a %s that declared nothing loads %s: %v %q, want it refused, saying why", c.who, triggerSampling, isErr, out)
		}
	}
	if out, isErr := call(able, "tool_load", map[string]any{"names": []string{triggerSampling, triggerElicitation}}); isErr {
		t.Errorf("the host that can loads the trigger tools: %q", out)
	}
}

// connectAt connects c to the agent's MCP url as a host of version; the
// session is closed when the test ends.
func connectAt(t *testing.T, ctx context.Context, c *mcp.Client, url, version string) *mcp.ClientSession {
	t.Helper()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("%s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
