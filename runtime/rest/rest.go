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
	s := rest.Spec{Method: spec.Method, URL: spec.URL, InputSchema: spec.InputSchema, Secrets: spec.Secrets}
	for _, h := range spec.Headers {
		s.Headers = append(s.Headers, rest.Header{Key: h[0], Value: h[1]})
	}
	t, err := rest.New(s, client)
	if err != nil {
		return nil, err // not a typed nil
	}
	return t, nil
}
