package runtime

import (
	"fmt"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/internal/rest"
)

// restProvider builds a REST tool with its env() values read now, when
// the agent context is built; a missing variable makes every call fail
// with an error naming the tool and the variable.
func (st *agentState) restProvider(d *decl.Tool) provider {
	if d == nil || d.REST == nil {
		return failing(fmt.Errorf("REST tool without a rest block"))
	}
	getenv := st.s.opts.Getenv
	url, err := d.REST.URL.Resolve(getenv)
	if err != nil {
		return failing(fmt.Errorf("tool %q: url: %v", d.Name, err))
	}
	spec := rest.Spec{Method: d.REST.Method, URL: url, InputSchema: d.InputSchema,
		Secrets: envValues(getenv, d.REST.URL)}
	for _, h := range d.REST.Headers {
		v, err := h.Value.Resolve(getenv)
		if err != nil {
			return failing(fmt.Errorf("tool %q: header %s: %v", d.Name, h.Key, err))
		}
		spec.Headers = append(spec.Headers, rest.Header{Key: h.Key, Value: v})
		spec.Secrets = append(spec.Secrets, envValues(getenv, h.Value)...)
	}
	tool, err := rest.New(spec, st.s.opts.HTTPClient)
	if err != nil {
		return failing(fmt.Errorf("tool %q: %v", d.Name, err))
	}
	return tool.Call
}

// envValues are the values v reads from the environment: what must never
// show in messages.
func envValues(getenv func(string) (string, bool), v decl.Value) []string {
	var out []string
	for _, p := range v {
		if p.Env == "" {
			continue
		}
		if val, ok := getenv(p.Env); ok && val != "" {
			out = append(out, val)
		}
	}
	return out
}
