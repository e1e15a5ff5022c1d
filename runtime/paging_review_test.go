package runtime

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// offset+limit overflowed for limit=MaxInt64 and the slice panicked
// ("tool panicked: slice bounds out of range").
func TestMCPListToolsHugeLimit(t *testing.T) {
	f := newFixture(decl.Agent{Name: "a", Use: []decl.Use{{Kind: decl.UseBundle, Name: "docs_meta"}}})
	f.conn.add("docs", mcpServer("Docs server.", "a_tool", "b_tool", "c_tool"))
	s := open(t, f.reg, "a", f.opts(&events{}))
	for _, c := range []struct {
		offset, limit int64
		want          []string
	}{
		{1, math.MaxInt64, []string{"b_tool", "c_tool"}},
		{0, math.MaxInt64, []string{"a_tool", "b_tool", "c_tool"}},
		{math.MaxInt64, math.MaxInt64, nil},
		{math.MinInt64, 1, []string{"a_tool"}},
	} {
		args := fmt.Sprintf(`{"server":"docs","offset":%d,"limit":%d}`, c.offset, c.limit)
		out := mustOK(t, call(t, s, decl.ToolMCPList, args))
		var page struct {
			Tools []struct{ Name string }
			Total int
		}
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatalf("%s: %v: %s", args, err, out)
		}
		var got []string
		for _, tl := range page.Tools {
			got = append(got, tl.Name)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) || page.Total != 3 {
			t.Errorf("%s: tools %v total %d; want %v total 3", args, got, page.Total, c.want)
		}
	}
}
