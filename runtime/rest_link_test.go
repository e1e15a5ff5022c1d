package runtime

import (
	"net/http"

	"github.com/toolgen-dev/toolgen/runtime/internal/rest"
)

// The tests of this package declare REST tools; runtime/rest, which links
// them in, imports this package, so they link them the same way here.
func init() {
	RegisterREST(func(spec RESTSpec, client *http.Client) (RESTTool, error) {
		t, err := rest.NewFrom(spec.Method, spec.URL, spec.Headers, spec.InputSchema, spec.Secrets, client)
		if err != nil {
			return nil, err
		}
		return t, nil
	})
}
