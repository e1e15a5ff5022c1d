package mcpconn

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The client declares sampling and elicitation only as far as the host
// declared them and the server's policy allows; a request that arrives for
// a call without a host is declined with the reason.
func TestCapabilitiesFollowHostAndPolicy(t *testing.T) {
	bin := npmBin(t)
	everything := func(m *Manager, sampling, elicitation string) *Conn {
		return acquire(t, m, Config{
			Name: "everything", Command: filepath.Join(bin, "mcp-server-everything"), Args: []string{"stdio"},
			Env: nodeEnv(bin), StartupTimeout: 30 * time.Second, Sampling: sampling, Elicitation: elicitation,
		})
	}
	waitFor := func(c *Conn, tool string, want bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for slices.Contains(toolNames(c.Tools()), tool) != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s listed = %v, want %v: %v", tool, !want, want, toolNames(c.Tools()))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	host := &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}, Elicitation: &mcp.ElicitationCapabilities{}}

	m := NewManager(nil)
	defer m.Close()
	c := everything(m, "", "")
	defer c.Release()
	if names := toolNames(c.Tools()); slices.Contains(names, "trigger-sampling-request") {
		t.Fatalf("without a host the client declared sampling: %v", names)
	}
	if !replacedBy(t, m.SetHostCapabilities(host)) {
		t.Fatal("the connection was not replaced for the host's capabilities")
	}
	waitFor(c, "trigger-sampling-request", true)
	waitFor(c, "trigger-elicitation-request", true)

	// A call with no Caller in its context (the agent's own CLI): the
	// server's elicitation is declined, with the reason.
	r := call(t, c, "trigger-elicitation-request", `{}`)
	if !strings.Contains(r.Text(), "decline") {
		t.Errorf("elicitation without a host = %q, want it declined", r.Text())
	}
	r = call(t, c, "trigger-sampling-request", `{"prompt":"hi"}`)
	if !r.IsError || !strings.Contains(r.Text(), "without a host") {
		t.Errorf("sampling without a host = %+v %q, want an error with the reason", r.IsError, r.Text())
	}

	// deny: never declared, whatever the host can do.
	m2 := NewManager(nil)
	defer m2.Close()
	m2.SetHostCapabilities(host)
	d := everything(m2, AnswerDeny, AnswerDeny)
	defer d.Release()
	time.Sleep(200 * time.Millisecond) // server-everything registers conditional tools just after initialize
	if names := toolNames(d.Tools()); slices.Contains(names, "trigger-sampling-request") || slices.Contains(names, "trigger-elicitation-request") {
		t.Errorf("sampling and elicitation denied, yet the server lists %v", names)
	}
}

// replacedBy waits for what a host's declaration did to the connection
// (SetHostCapabilities, DeclareHost): whether it was replaced.
func replacedBy(t *testing.T, done <-chan bool) bool {
	t.Helper()
	select {
	case replaced := <-done:
		return replaced
	case <-time.After(time.Minute):
		t.Fatal("the host's declaration was never answered")
		return false
	}
}
