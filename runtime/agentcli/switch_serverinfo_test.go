package agentcli_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// After the page switches the served agent, a client that connects to
// `serve --http` gets the new agent's name in serverInfo, on either
// revision; a client connected before keeps the one it was given.
func TestSwitchNamesNewAgentToNewClients(t *testing.T) {
	s := serveHTTP(t)
	if got := s.cs.InitializeResult().ServerInfo.Name; got != "watcher" {
		t.Fatalf("serverInfo before the switch = %q, want watcher", got)
	}
	u, err := url.Parse(s.page)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, s.page+"/api/switch", strings.NewReader(`{"agent":"seeker"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", u.Scheme+"://"+u.Host)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || s.status(t).Agent != "seeker" {
		t.Fatalf("switch: %s, agent %s\n%s", resp.Status, s.status(t).Agent, s.logs)
	}
	for _, revision := range []string{"2025-11-25", "2026-07-28"} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "late-host", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.mcp}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
		cancel()
		if err != nil {
			t.Fatalf("connect (%s) after the switch: %v\n%s", revision, err, s.logs)
		}
		if got := cs.InitializeResult().ServerInfo; got == nil || got.Name != "seeker" {
			t.Errorf("serverInfo (%s) after the switch = %+v, want seeker", revision, got)
		}
		cs.Close()
	}
	if got := s.cs.InitializeResult().ServerInfo.Name; got != "watcher" {
		t.Errorf("the first client's serverInfo changed to %q", got)
	}
}
