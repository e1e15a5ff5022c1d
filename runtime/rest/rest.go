// Package rest links REST tools (a tool block with a rest block) into an
// agent binary. The generated registry imports it for its side effect
// when the spec declares such a tool; the tools' calling lives in
// runtime/internal/rest.
package rest

import (
	"net/http"

	"github.com/toolgen-dev/toolgen/runtime"
	"github.com/toolgen-dev/toolgen/runtime/internal/rest"
)

func init() { runtime.RegisterREST(Compile) }

// Compile checks a REST tool's spec and parses its URL template once.
func Compile(spec runtime.RESTSpec, client *http.Client) (runtime.RESTTool, error) {
	t, err := rest.NewFrom(spec.Method, spec.URL, spec.Headers, spec.InputSchema, spec.Secrets, client)
	if err != nil {
		return nil, err // not a typed nil
	}
	return t, nil
}
