package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/internal/enrich/enrichtest"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
)

// enrichSpec declares two REST tools, a model reached through env() and
// the enrich block that names it.
const enrichSpec = `
toolgen {
  enrich {
    model   = model.fast
    queries = 3
  }
}
model "fast" {
  provider = "PROVIDER"
  name     = "test-model"
  base_url = env("ENRICH_TEST_BASE_URL")
  api_key  = env("ENRICH_TEST_KEY")
}
tool "people_create" {
  description = "Create entities in the knowledge graph."
  rest {
    method = "POST"
    url    = "https://graph.example/entities"
  }
  input_schema = { type = "object", properties = { name = { type = "string" } } }
}
tool "weather" {
  description = "DESCRIPTION"
  rest {
    method = "GET"
    url    = "https://weather.example/{city}"
  }
  input_schema = { type = "object", properties = { city = { type = "string" } } }
}
agent "a" {
  tools { use = [tool.people_create, tool.weather] }
}
`

const enrichTestKey = "sk-enrich-test-0123456789abcdef"

// toolgen enrich against the scripted server in each wire format, through
// the official SDKs: the stored file, no request for unchanged tools, a
// changed tool asked again, a broken answer reported, and generate's
// index finding a tool only through its stored queries.
func TestEnrichCommand(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			srv := modeltest.NewServer(t)
			sc := enrichtest.NewScribe(t)
			srv.Respond(sc.Respond)
			base := srv.OpenAIBaseURL()
			if provider == "anthropic" {
				base = srv.AnthropicBaseURL()
			}
			t.Setenv("ENRICH_TEST_BASE_URL", base)
			t.Setenv("ENRICH_TEST_KEY", enrichTestKey)
			dir := t.TempDir()
			write := func(desc string) {
				spec := strings.NewReplacer("PROVIDER", provider, "DESCRIPTION", desc).Replace(enrichSpec)
				if err := os.WriteFile(filepath.Join(dir, "spec.hcl"), []byte(spec), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			enrichRun := func(wantCode int) string {
				t.Helper()
				var out, errb bytes.Buffer
				if code := Enrich([]string{dir}, nil, &out, &errb); code != wantCode {
					t.Fatalf("enrich exit %d, want %d\nstdout: %s\nstderr: %s", code, wantCode, out.String(), errb.String())
				}
				if strings.Contains(out.String()+errb.String(), enrichTestKey) {
					t.Fatal("the API key was printed")
				}
				return out.String() + errb.String()
			}

			write("Current weather for a city.")
			out := enrichRun(exitOK)
			if !strings.Contains(out, "2 enriched") {
				t.Errorf("report: %s", out)
			}
			stored, err := enrich.ReadStored(dir)
			if err != nil || stored == nil || len(stored.Tools["people_create"].Queries) != 3 {
				t.Fatalf("stored = %+v, %v", stored, err)
			}
			if want := provider + " test-model"; stored.Model != want {
				t.Errorf("model = %q, want %q", stored.Model, want)
			}

			// unchanged: nothing asked
			before := len(srv.Requests())
			enrichRun(exitOK)
			if n := len(srv.Requests()); n != before {
				t.Errorf("an unchanged spec sent %d requests", n-before)
			}

			// generate's index finds people_create only through its queries
			var fout, ferr bytes.Buffer
			if code := run([]string{"find", "--spec", dir, "--json", "remember a person"}, &fout, &ferr); code != exitOK {
				t.Fatalf("find: %d %s", code, ferr.String())
			}
			if !strings.Contains(fout.String(), `"people_create"`) {
				t.Errorf("find did not rank people_create: %s", fout.String())
			}

			// a changed tool is asked again; a broken answer is reported
			// and leaves the tool with its old queries
			write("Forecast for a city, by day.")
			sc.Break = func(tool enrichtest.Tool, _ int, _ string) (map[string]any, string) {
				if tool.Name != "weather" {
					return nil, ""
				}
				return map[string]any{"name": tool.Name, "own_words": []string{}, "everyday": []string{}, "situations": []string{}}, ""
			}
			out = enrichRun(exitDiags)
			if !strings.Contains(out, "weather") || !strings.Contains(out, "left unenriched") {
				t.Errorf("broken answer not reported: %s", out)
			}
			if n := sc.Times(); n["people_create"] != 1 || n["weather"] < 2 {
				t.Errorf("asked people_create %d, weather %d times", n["people_create"], n["weather"])
			}
			sc.Break = nil
			enrichRun(exitOK)
			stored, _ = enrich.ReadStored(dir)
			if h := stored.Tools["weather"].Hash; h != (enrich.Tool{Name: "weather", Description: "Forecast for a city, by day.", Params: []string{"city"}}).Hash() {
				t.Errorf("weather's stored hash %s is not the changed tool's", h)
			}
		})
	}
}

func TestEnrichWithoutBlock(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Enrich([]string{repoRoot + "/testdata/specs/valid/minimal"}, nil, &out, &errb); code != exitDiags || !strings.Contains(errb.String(), "enrich { model = model.NAME }") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

// toolgen links no model SDK: `toolgen enrich` says exactly what to run
// instead, and asks nothing.
func TestToolgenEnrichPointsToCommand(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"enrich", "--force", "spec"}, &out, &errb)
	if want := EnrichCommand + " --force spec"; code != exitUsage || !strings.Contains(errb.String(), want) {
		t.Fatalf("exit %d, stderr %q: want exit %d naming %q", code, errb.String(), exitUsage, want)
	}
	// --dry-run asks nothing, so toolgen still plans.
	errb.Reset()
	if code := run([]string{"enrich", "--dry-run", repoRoot + "/testdata/specs/valid/minimal"}, &out, &errb); code != exitDiags || !strings.Contains(errb.String(), "toolgen enrich: ") {
		t.Fatalf("dry run: exit %d: %s", code, errb.String())
	}
}
