package decl

import "slices"

// Filter is the one allow/deny rule for a server's tools. Every selection
// that narrows a server (its own allow_tools/deny_tools, each bundle over
// it) adds its lists: allow lists intersect (a tool must match every one)
// and deny lists unite (matching any entry refuses a tool). Deny always
// wins, so adding lists only ever takes tools away.
type Filter struct {
	Allows [][]string // allow lists, names or globs; an empty one does not narrow
	Deny   []string
}

// Add merges one allow and one deny list into f. An empty allow list (the
// block has none) does not narrow.
func (f *Filter) Add(allow, deny []string) {
	if len(allow) > 0 {
		f.Allows = append(f.Allows, allow)
	}
	f.Deny = append(f.Deny, deny...)
}

// Merge adds every list of g to f.
func (f *Filter) Merge(g Filter) {
	f.Allows = append(f.Allows, g.Allows...)
	f.Deny = append(f.Deny, g.Deny...)
}

// Permits reports whether name passes every allow list and no deny entry.
func (f Filter) Permits(name string) bool { return f.permits(name, MatchAny) }

// PermitsExact is Permits for an untrusted server, which names its tools
// exactly: an allow entry admits only the tool of that very name (its globs
// match nothing), while deny globs still take tools away.
func (f Filter) PermitsExact(name string) bool { return f.permits(name, slices.Contains[[]string]) }

func (f Filter) permits(name string, allows func([]string, string) bool) bool {
	for _, a := range f.Allows {
		if len(a) > 0 && !allows(a, name) {
			return false
		}
	}
	return !MatchAny(f.Deny, name)
}
