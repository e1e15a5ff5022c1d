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

func heavyIn(list []string) []string {
	var found []string
	for _, p := range list {
		for _, h := range heavy {
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
	for _, c := range []struct {
		name string
		pkgs []string
	}{
		{"quick-start agent", []string{"./generated/small", "./runtime/agentcli"}},
		{"toolgen", []string{"./cmd/toolgen"}},
	} {
		if found := heavyIn(deps(t, c.pkgs...)); len(found) > 0 {
			t.Errorf("%s links %d heavy packages it does not declare, e.g. %s", c.name, len(found), strings.Join(found[:min(5, len(found))], ", "))
		}
	}
}

// A spec that declares models of both providers and telemetry (the team
// example) links exactly those: the generated registry imports them.
func TestDeclaredFeaturesAreLinked(t *testing.T) {
	list := deps(t, "./generated/team")
	for _, want := range []string{
		"github.com/openai/openai-go/v3",
		"github.com/anthropics/anthropic-sdk-go",
		"go.opentelemetry.io/otel/sdk/metric",
		"github.com/prometheus/client_golang/prometheus",
	} {
		if !slices.Contains(list, want) {
			t.Errorf("generated/team (models of both providers, telemetry = true) does not link %s", want)
		}
	}
}
