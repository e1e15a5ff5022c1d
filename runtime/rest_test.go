package runtime

import (
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A binary whose registry did not link runtime/rest (a hand-written
// registry with a REST tool) fails the call with what to import, rather
// than panic.
func TestRESTToolNotLinked(t *testing.T) {
	saved := compileREST
	compileREST = nil
	defer func() { compileREST = saved }()
	d := &decl.Tool{Name: "weather", Kind: decl.KindREST, REST: &decl.REST{Method: "GET", URL: decl.Value{{Lit: "http://127.0.0.1:1/"}}}}
	_, err := (&Pool{}).restTool(d, func(string) (string, bool) { return "", false }, nil)
	if err == nil || !strings.Contains(err.Error(), restPackage) {
		t.Fatalf("restTool without runtime/rest: %v; want an error naming %s", err, restPackage)
	}
}
