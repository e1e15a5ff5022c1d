package runtime

import (
	"iter"
)

// ToolSeq is Tools without the copy: the visible tools sorted by name,
// each yielded by pointer into the session's current surface, which is
// immutable (a change swaps the whole surface), so a ToolInfo stays valid
// after the walk; callers must not modify it. A server that lists 10,000
// shared tools to each of its clients need not copy them per client.
func (s *Session) ToolSeq() iter.Seq[*ToolInfo] {
	return func(yield func(*ToolInfo) bool) {
		st := s.st.Load()
		if st == nil {
			return
		}
		sf := st.surf.Load()
		if len(sf.aliases) > 0 {
			// Aliases rename and re-sort: that list is made anew.
			for _, t := range sf.tools() {
				if !yield(&t) {
					return
				}
			}
			return
		}
		var a []ToolInfo
		if sf.shared != nil {
			a = sf.shared.list
		}
		b := sf.ownList
		for len(a) > 0 || len(b) > 0 {
			var t *ToolInfo
			if len(b) == 0 || (len(a) > 0 && a[0].Name <= b[0].Name) {
				t, a = &a[0], a[1:]
			} else {
				t, b = &b[0], b[1:]
			}
			if !yield(t) {
				return
			}
		}
	}
}
