package runtime

import (
	"net/http"

	"github.com/toolgen-dev/toolgen/runtime/internal/rest"
)

// The tests of this package declare REST tools; runtime/rest, which links
// them in, imports this package, so they link them the same way here.
func init() {
	RegisterREST(func(spec RESTSpec, client *http.Client) (RESTTool, error) {
		s := rest.Spec{Method: spec.Method, URL: spec.URL, InputSchema: spec.InputSchema, Secrets: spec.Secrets}
		for _, h := range spec.Headers {
			s.Headers = append(s.Headers, rest.Header{Key: h[0], Value: h[1]})
		}
		t, err := rest.New(s, client)
		if err != nil {
			return nil, err
		}
		return t, nil
	})
}
