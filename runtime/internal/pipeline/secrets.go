package pipeline

import (
	"log/slog"

	"github.com/toolgen-dev/toolgen/internal/redact"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/event"
)

// Secrets returns the scrubber of a session: every env() value the
// registry reads (server env, url, headers and auth; REST url and headers;
// model api_key, base_url and headers),
// through getenv, in every form internal/redact knows. Values too short to
// scrub are left out, and each is reported once at top level with a
// secret.short event naming the variable and where it is used, never the
// value. nil when there is nothing to scrub, so calls pay nothing.
func Secrets(reg *decl.Registry, getenv func(string) (string, bool), log *slog.Logger, report bool) *redact.Redactor {
	var values []string
	warned := map[string]bool{}
	add := func(v decl.Value, attr slog.Attr) {
		for _, p := range v {
			val, fromEnv, _ := p.Lookup(getenv)
			if !fromEnv || val == "" {
				continue // a literal or a default, or unset: the server or tool fails with its own error
			}
			if redact.Short(val) {
				if key := p.Env + "\x00" + attr.String(); report && !warned[key] {
					warned[key] = true
					event.Emit(log, slog.LevelWarn, event.SecretShort, slog.String("variable", p.Env), attr,
						slog.String("reason", "value shorter than 8 bytes is not scrubbed from results, errors or events"))
				}
				continue
			}
			values = append(values, val)
		}
	}
	for i := range reg.Servers {
		srv := &reg.Servers[i]
		where := slog.String("server", srv.Name)
		for _, kv := range srv.Env {
			add(kv.Value, where)
		}
		add(srv.URL, where)
		for _, kv := range srv.Headers {
			add(kv.Value, where)
		}
		for _, v := range srv.Auth.Values() {
			add(v, where)
		}
	}
	for i := range reg.Tools {
		t := &reg.Tools[i]
		if t.Kind != decl.KindREST || t.REST == nil {
			continue
		}
		where := slog.String("tool", t.Name)
		add(t.REST.URL, where)
		for _, kv := range t.REST.Headers {
			add(kv.Value, where)
		}
	}
	for i := range reg.Models {
		m := &reg.Models[i]
		where := slog.String("model", m.Name)
		add(m.APIKey, where)
		add(m.BaseURL, where)
		for _, kv := range m.Headers {
			add(kv.Value, where)
		}
	}
	return redact.New(values)
}
