package toolgen_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// heavy are the dependencies an agent pays for only when its spec
// declares what needs them (issue 20: pay for what you declare).
var heavy = []string{
	"github.com/openai/openai-go",
	"github.com/anthropics/anthropic-sdk-go",
	"go.opentelemetry.io/",
	"google.golang.org/grpc",
	"github.com/prometheus/",
}

// deps is `go list -deps` of pkgs, from the module cache only.
func deps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...)
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
	return strings.Fields(string(out))
}

// optional are the runtime's own optional parts, with what they alone
// pull in: an agent links them when its spec declares what needs them
// (toolgen itself may link the OAuth client, for `toolgen lock --login`).
var optional = []string{
	"github.com/toolgen-dev/toolgen/runtime/oauth",         // a server's auth block
	"github.com/toolgen-dev/toolgen/internal/mcpauth",      // the OAuth client behind it
	"github.com/toolgen-dev/toolgen/runtime/serve/jwtauth", // serve --auth-issuer
	"github.com/go-jose/go-jose/",                          // JOSE: both of the above
	"golang.org/x/oauth2/clientcredentials",
	"github.com/modelcontextprotocol/go-sdk/auth/extauth", // enterprise-managed authorization
	"github.com/toolgen-dev/toolgen/runtime/websocket",    // a server with transport = "ws"
	"github.com/coder/websocket",                          // the WebSocket library behind it
	"go.yaml.in/yaml/",                                    // SKILL.md frontmatter: specs with skills
	"github.com/toolgen-dev/toolgen/runtime/tasks",        // task tools, sub-agents, servers with tasks = true
	"github.com/toolgen-dev/toolgen/runtime/rest",         // tools with a rest block
	"github.com/toolgen-dev/toolgen/runtime/internal/rest",
}

func heavyIn(list []string) []string { return prefixed(list, heavy) }

func prefixed(list, prefixes []string) []string {
	var found []string
	for _, p := range list {
		for _, h := range prefixes {
			if strings.HasPrefix(p, h) {
				found = append(found, p)
				break
			}
		}
	}
	return found
}

// The quick start's agent (a one-tool spec's generated package and
// agentcli, what README's cmd/hello links) and toolgen itself (what go
// generate compiles) link no model SDK, no OpenTelemetry (API included),
// no gRPC and no Prometheus.
func TestLeanBinariesLinkNothingHeavy(t *testing.T) {
	agent := deps(t, "./generated/small", "./runtime/agentcli")
	for _, c := range []struct {
		name string
		deps []string
	}{
		{"quick-start agent", agent},
		{"toolgen", deps(t, "./cmd/toolgen")},
	} {
		if found := heavyIn(c.deps); len(found) > 0 {
			t.Errorf("%s links %d heavy packages it does not declare, e.g. %s", c.name, len(found), strings.Join(found[:min(5, len(found))], ", "))
		}
	}
	// No text/template or html/template: they call methods by name, so
	// the linker keeps every exported method of the binary (2.9 MB of the
	// quick-start agent's 20 MB when internal/enrich rendered its prompt
	// with text/template).
	for _, p := range agent {
		if p == "text/template" || p == "html/template" {
			t.Errorf("the quick-start agent links %s, which keeps every exported method in the binary", p)
		}
	}
	// Nor the optional parts its spec does not declare: no OAuth client
	// (no server has an auth block), no JWT verifier, no JOSE.
	if found := prefixed(agent, optional); len(found) > 0 {
		t.Errorf("the quick-start agent links %d optional packages it does not declare: %s", len(found), strings.Join(found, ", "))
	}
}

// A spec that declares models of both providers, telemetry and a server
// with an auth block (the team example) links exactly those: the
// generated registry imports them.
func TestDeclaredFeaturesAreLinked(t *testing.T) {
	list := deps(t, "./generated/team")
	for _, want := range []string{
		"github.com/openai/openai-go/v3",
		"github.com/anthropics/anthropic-sdk-go",
		"go.opentelemetry.io/otel/sdk/metric",
		"github.com/prometheus/client_golang/prometheus",
		"github.com/toolgen-dev/toolgen/runtime/oauth",
		"github.com/toolgen-dev/toolgen/internal/mcpauth",
		"github.com/go-jose/go-jose/v4",
	} {
		if !slices.Contains(list, want) {
			t.Errorf("generated/team (models of both providers, telemetry = true, server docs with auth) does not link %s", want)
		}
	}
	// The JWT verifier is the agent main's choice (an import), not the
	// spec's: the jwtauth package links it.
	if !slices.Contains(deps(t, "./runtime/serve/jwtauth"), "github.com/go-jose/go-jose/v4/jwt") {
		t.Error("runtime/serve/jwtauth does not link go-jose's jwt")
	}
}
