package decl

import (
	"slices"
	"testing"
)

func TestValueResolve(t *testing.T) {
	env := map[string]string{"SET": "from-env", "EMPTY": ""}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, c := range []struct {
		name    string
		v       Value
		want    string
		fromEnv []string
		err     bool
	}{
		{"literal", Value{{Lit: "plain"}}, "plain", nil, false},
		{"set variable", Value{{Lit: "Bearer "}, {Env: "SET"}}, "Bearer from-env", []string{"from-env"}, false},
		{"set variable wins over its default", Value{{Env: "SET", Default: "d", HasDefault: true}}, "from-env", []string{"from-env"}, false},
		{"set but empty is set", Value{{Env: "EMPTY", Default: "d", HasDefault: true}}, "", nil, false},
		{"unset takes its default", Value{{Env: "UNSET", Default: "gpt-4.1-mini", HasDefault: true}}, "gpt-4.1-mini", nil, false},
		{"unset with an empty default", Value{{Env: "UNSET", HasDefault: true}}, "", nil, false},
		{"unset without a default", Value{{Lit: "x"}, {Env: "UNSET"}}, "", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.v.Resolve(getenv)
			if (err != nil) != c.err || got != c.want {
				t.Errorf("Resolve = %q, %v; want %q, error %v", got, err, c.want, c.err)
			}
			// a default is the spec's own text: never a secret to scrub
			if fe := c.v.FromEnv(getenv); !slices.Equal(fe, c.fromEnv) {
				t.Errorf("FromEnv = %q, want %q", fe, c.fromEnv)
			}
		})
	}
}

func TestValueText(t *testing.T) {
	for _, c := range []struct {
		v    Value
		want string
	}{
		{Value{{Lit: "gpt-4.1-mini"}}, `gpt-4.1-mini`},
		{Value{{Env: "MODEL"}}, `env("MODEL")`},
		{Value{{Env: "MODEL", Default: "qwen3", HasDefault: true}}, `env("MODEL", "qwen3")`},
		{Value{{Lit: "Bearer "}, {Env: "TOKEN"}}, `"Bearer ${env(\"TOKEN\")}"`},
	} {
		if got := c.v.Text(); got != c.want {
			t.Errorf("Text(%v) = %s, want %s", c.v, got, c.want)
		}
	}
}
