package runtime

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

// benchWords is the vocabulary of the synthetic tools below.
var benchWords = strings.Fields(`account alert archive audit backup bucket build cache calendar certificate
	channel chart cluster comment commit config container contact cost customer dashboard database
	deploy device disk document domain email event feature file folder form gateway graph group host
	image incident index invoice issue job key label lead ledger log machine mail map message metric
	model monitor network node note order package page payment pipeline policy pool post price project
	queue record region release report repository request resource role route rule schedule schema
	secret server service session share sheet slide snapshot source space stage storage stream
	subscription table tag task team template ticket token topic trace user vault version volume
	webhook workflow workspace zone`)

var benchVerbs = strings.Fields("list get create delete update search read write add remove start stop show find")

// benchTools builds n tools of servers of 20 tools each, with names and
// descriptions drawn from benchWords. The seed is fixed.
func benchTools(n int) []*PoolTool {
	r := rand.New(rand.NewPCG(5, 6))
	word := func() string { return benchWords[r.IntN(len(benchWords))] }
	tools := make([]*PoolTool, n)
	for i := range tools {
		server := fmt.Sprintf("s%04d", i/20)
		orig := fmt.Sprintf("%s_%s_%s_%d", benchVerbs[r.IntN(len(benchVerbs))], word(), word(), i)
		var desc []string
		for range 12 + r.IntN(20) {
			desc = append(desc, word())
		}
		tools[i] = &PoolTool{
			Name: server + "__" + orig, Original: orig, Server: server, Kind: decl.KindMCP,
			Description: strings.Join(desc, " ") + ".",
			InputSchema: []byte(fmt.Sprintf(`{"type":"object","properties":{"%s":{},"%s":{}}}`, word(), word())),
		}
	}
	return tools
}

// BenchmarkFinderAddServer is what the pool does when a server without a
// lock entry reports its 20 tools to an agent of 10,000 precompiled tools:
// a new finder over all tools from the previous one.
func BenchmarkFinderAddServer(b *testing.B) {
	const n = 10000
	tools := benchTools(n + 20)
	docs := make([]search.Doc, n)
	for i, t := range tools[:n] {
		docs[i] = toolDoc(t)
	}
	p := &Pool{reg: &Registry{Index: search.Build(docs)}}
	prev := p.newFinder(tools[:n], nil)
	b.ReportAllocs()
	for b.Loop() {
		p.newFinder(tools, prev)
	}
}
