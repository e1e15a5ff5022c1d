// Package finder is tool_find's search over a pool: the precompiled index
// plus the tools servers report at run time, added as tiers rather than
// rebuilt (search.Index.With), and the fallbacks that keep it from ever
// answering with nothing while the agent has tools to load. enrich.go
// adds, in the background, model-written queries for the tools found at
// run time when the spec opts in.
package finder

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolgen-dev/toolgen/runtime/search"
)

// Finder is an immutable search index over a pool's tools.
type Finder struct {
	idx *search.Index
}

// Open is a finder over idx as it is (a precompiled index opens with no
// rebuild).
func Open(idx *search.Index) *Finder { return &Finder{idx: idx} }

// Index is the finder's index.
func (f *Finder) Index() *search.Index { return f.idx }

// Has reports whether a tool of that name and description is indexed.
func (f *Finder) Has(name, description string) bool { return f.idx.Has(name, description) }

// Add returns a finder that also holds docs, a doc replacing an indexed
// one of the same name; f itself when docs is empty.
func (f *Finder) Add(docs ...search.Doc) *Finder {
	if len(docs) == 0 {
		return f
	}
	return &Finder{idx: f.idx.With(docs...)}
}

// Tool is what the fallbacks know of a tool the agent may load.
type Tool struct {
	Name     string // exposed name
	Original string // an MCP tool's own name on its server; "" for others
	Server   string
	Category string
}

// Allow is the set of indexed tools keep lets through, for Find; a caller
// keeps it while the finder and keep stay the same.
func (f *Finder) Allow(keep func(name string) bool) *search.Allowed { return f.idx.Allow(keep) }

// Find ranks the tools of allowed (from Allow) for query. It never answers with
// nothing while there are such tools: when no tool matches a word of the
// query it ranks tools that match part of one (search.Index.Related), and
// when none does either it returns an overview of the tools, spread over
// servers and categories. Both fallbacks come with a hint for the caller;
// overview is called only for that last one: MakeOverview over the tools
// allowed holds, which the caller may keep while they do not change.
func (f *Finder) Find(query string, limit int, allowed *search.Allowed, overview func(limit int) Overview) ([]search.Hit, string) {
	if hits := f.idx.SearchAllowed(query, limit, allowed); len(hits) > 0 {
		return hits, ""
	}
	if related := f.idx.Related(query); len(related) > 0 {
		if hits := f.idx.SearchAllowed(strings.Join(related, " "), limit, allowed); len(hits) > 0 {
			return hits, fmt.Sprintf("No tool matched the words of %q; these match words close to them (%s). %s", query, strings.Join(related[:min(len(related), 5)], ", "), PlainWords)
		}
	}
	ov := overview(limit)
	picked, about := ov.Picked, ov.About
	if len(picked) == 0 {
		return nil, ""
	}
	hits := make([]search.Hit, len(picked))
	for i, t := range picked {
		hits[i] = search.Hit{Name: t.Name}
	}
	example := strings.Join(nameWords(picked[0]), " ")
	return hits, fmt.Sprintf("No tool matched %q; the tools here are about: %s. %s, such as %q.", query, strings.Join(about, ", "), strings.TrimSuffix(PlainWords, "."), example)
}

// PlainWords is the advice of every fallback hint; tool_find's description
// gives the same.
const PlainWords = "Describe the action and the object in plain words."

// Overview is Find's answer when nothing matches: up to limit tools and
// what the tools are about.
type Overview struct {
	Picked []Tool
	About  []string
}

// MakeOverview picks up to limit of tools (in name order), taking one from
// each server (and from each category of declared tools) in turn, and
// names what the tools are about: their servers and categories, then the
// words most of their names share, leaving out common verbs. It reads
// every tool, so a caller keeps it while the tools stay the same.
func MakeOverview(tools []Tool, limit int) Overview {
	picked, about := overview(tools, limit)
	return Overview{Picked: picked, About: about}
}

func overview(tools []Tool, limit int) (picked []Tool, about []string) {
	var groups []string
	byGroup := map[string][]Tool{}
	for _, t := range tools {
		g := t.Server
		switch {
		case g != "":
			g += " (server)"
		case t.Category != "":
			g = t.Category + " (category)"
		}
		if byGroup[g] == nil {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], t)
	}
	slices.Sort(groups)
	for round := 0; len(picked) < limit; round++ {
		added := false
		for _, g := range groups {
			if round < len(byGroup[g]) && len(picked) < limit {
				picked = append(picked, byGroup[g][round])
				added = true
			}
		}
		if !added {
			break
		}
	}

	for _, g := range groups {
		if g != "" {
			about = append(about, g)
		}
	}
	count := map[string]int{}
	for _, t := range tools {
		for _, w := range nameWords(t) {
			if !slices.Contains(commonVerbs, w) {
				count[w]++
			}
		}
	}
	words := make([]string, 0, len(count))
	for w := range count {
		words = append(words, w)
	}
	slices.SortFunc(words, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return strings.Compare(a, b)
	})
	return picked, append(about, words[:min(len(words), 8)]...)
}

// nameWords are the words of a tool's own name (an MCP tool's name on its
// server, without the namespace).
func nameWords(t Tool) []string {
	name := t.Name
	if t.Original != "" {
		name = t.Original
	}
	var out []string
	for _, w := range search.Terms(name) {
		if !strings.HasPrefix(w, "~") {
			out = append(out, w)
		}
	}
	return out
}

// commonVerbs say what a tool does to its object, not what it is about.
var commonVerbs = []string{
	"add", "check", "create", "delete", "edit", "fetch", "find", "get", "list", "make", "new",
	"open", "read", "remove", "run", "search", "set", "show", "update", "write",
}
