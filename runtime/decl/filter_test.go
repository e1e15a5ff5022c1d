package decl

import "testing"

func TestFilterAllowsIntersectDenyUnites(t *testing.T) {
	var f Filter
	f.Add([]string{"files__*"}, []string{"files__rm"})
	f.Add(nil, nil) // a bundle without lists does not narrow
	f.Add([]string{"files__read", "files__rm", "files__stat"}, []string{"files__st*"})
	cases := map[string]bool{
		"files__read":  true,  // in both allow lists
		"files__write": false, // only in the first
		"files__rm":    false, // denied by the first deny list
		"files__stat":  false, // denied by the second's glob
		"web__fetch":   false,
	}
	for name, want := range cases {
		if got := f.Permits(name); got != want {
			t.Errorf("Permits(%q) = %v, want %v", name, got, want)
		}
	}
	if (Filter{}).Permits("anything") != true {
		t.Error("an empty filter refuses a tool")
	}
	if !(Filter{Allows: [][]string{{}}}).Permits("x") {
		t.Error("an empty allow list narrows")
	}
}

func TestFilterExactIgnoresAllowGlobsNotDenyGlobs(t *testing.T) {
	f := Filter{Allows: [][]string{{"read", "wr*"}}, Deny: []string{"re*"}}
	for name, want := range map[string]bool{"read": false, "write": false, "wr*": true} {
		if got := f.PermitsExact(name); got != want {
			t.Errorf("PermitsExact(%q) = %v, want %v", name, got, want)
		}
	}
	if !f.Permits("write") {
		t.Error("Permits does not match an allow glob")
	}
}

func TestReservedNamesIgnoreTheSeparator(t *testing.T) {
	for _, n := range []string{ToolFind, ToolOutputRead, "agent__anyone", ToolHandoff} {
		if !IsReservedToolName(n) {
			t.Errorf("%q is not reserved", n)
		}
	}
	for _, n := range []string{"agent-x", "tool_finder", "files__read"} {
		if IsReservedToolName(n) {
			t.Errorf("%q is reserved", n)
		}
	}
	if got := ExposedName("my server", "__", "a.b/c"); got != "my_server__a_b_c" {
		t.Errorf("ExposedName = %q", got)
	}
}
