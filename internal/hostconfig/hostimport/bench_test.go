package hostimport

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// manyServers is a minified host file (one line) of n entries whose
// names all become "a" (a!, a#, a!! …) and where every tenth is declared
// twice: the worst case for columns, naming and duplicates.
func manyServers(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"mcpServers": {`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		key := "a" + strings.Map(func(r rune) rune { return rune("!#$%&()*+,"[r-'0']) }, strconv.Itoa(i))
		fmt.Fprintf(&b, `"%s": {"command": "s%d", "env": {"K": "v%d"}}`, key, i, i)
		if i%10 == 0 {
			fmt.Fprintf(&b, `,"%s": {"command": "t%d"}`, key, i)
		}
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}

func BenchmarkImportManyServers(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		data := manyServers(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				res, diags := Import([]File{{Name: ".mcp.json", Data: data}}, Options{})
				if diags.HasErrors() || len(res.Servers) == 0 {
					b.Fatal(diags)
				}
			}
		})
	}
}
