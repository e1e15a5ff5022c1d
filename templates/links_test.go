package templates

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// A server block with tasks = true links runtime/tasks, which passes its
// tasks through; a plain server does not.
func TestServerTasksLinkTasks(t *testing.T) {
	linked := func(spec *ir.Spec) []string {
		for _, l := range Links(spec) {
			if l.Package == tasksPkg {
				return l.Why
			}
		}
		return nil
	}
	plain := &ir.Spec{Servers: []*ir.Server{{Name: "jobs", Transport: ir.TransportStdio}}}
	if why := linked(plain); why != nil {
		t.Errorf("a plain server links %s: %q", tasksPkg, why)
	}
	passing := &ir.Spec{Servers: []*ir.Server{{Name: "jobs", Transport: ir.TransportStdio, Tasks: true}}}
	why := linked(passing)
	if !slices.ContainsFunc(why, func(w string) bool { return strings.Contains(w, "server jobs (tasks = true)") }) {
		t.Errorf("tasks = true: why %q; want the server named", why)
	}
}

// A tool with a rest block links runtime/rest, which compiles REST tools;
// a spec without one does not.
func TestRESTToolLinksREST(t *testing.T) {
	linked := func(spec *ir.Spec) []string {
		for _, l := range Links(spec) {
			if l.Package == restPkg {
				return l.Why
			}
		}
		return nil
	}
	plain := &ir.Spec{Tools: []*ir.Tool{{Name: "read", Kind: ir.KindBuiltin}}}
	if why := linked(plain); why != nil {
		t.Errorf("a spec without REST tools links %s: %q", restPkg, why)
	}
	rest := &ir.Spec{Tools: []*ir.Tool{{Name: "weather", Kind: ir.KindREST, REST: &ir.REST{Method: "GET"}}}}
	if why := linked(rest); !slices.Contains(why, "tool weather (rest block)") {
		t.Errorf("a REST tool: why %q; want the tool named", why)
	}
}
