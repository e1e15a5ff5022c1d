package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/runtime/search"
	"github.com/toolgen-dev/toolgen/runtime/search/eval"
)

const findUsage = `usage: toolgen find [--spec DIR | --catalog FILE] [--limit N] [--json] QUERY...
       toolgen find --batch [--spec DIR | --catalog FILE] [--limit N]
       toolgen find --eval DIR

Ranks the tools of a spec (default: the spec in the current directory) or
of an MCP tools/list result with the search index tool_find uses.
--batch reads JSON lines {"query": "...", "limit": N} from stdin and writes
one line {"query", "results": [{"name", "score"}]} per input line.
--eval runs the labelled queries of a toolret-format directory
(catalog.json, queries.jsonl) and prints recall@1, recall@5 and MRR@10.`

// stdin is where --batch reads; tests replace it.
var stdin io.Reader = os.Stdin

// runFind is `toolgen find`.
func runFind(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("find", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	specDir := fs.String("spec", "", "spec `dir`ectory whose tools are searched")
	catalog := fs.String("catalog", "", "MCP tools/list result or JSON array of tools (`file`, - for stdin)")
	limit := fs.Int("limit", 10, "at most `N` results per query")
	asJSON := fs.Bool("json", false, "print results as JSON")
	batch := fs.Bool("batch", false, "read JSON-line queries from stdin")
	evalDir := fs.String("eval", "", "evaluate on a toolret-format `dir`ectory")
	usageErr := func(format string, a ...any) int {
		if format != "" {
			fmt.Fprintf(stderr, "toolgen find: "+format+"\n", a...)
		}
		fmt.Fprintln(stderr, findUsage)
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		return exitUsage
	}

	// Flags may follow query words: parse, take one word, go on.
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintln(stdout, findUsage)
				return exitOK
			}
			return usageErr("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			words = append(words, args[1:]...)
			break
		}
		words = append(words, args[0])
		args = args[1:]
	}

	switch {
	case *specDir != "" && *catalog != "":
		return usageErr("--spec and --catalog are exclusive")
	case *limit < 1:
		return usageErr("--limit must be at least 1, got %d", *limit)
	case *evalDir != "" && (*batch || *specDir != "" || *catalog != "" || len(words) > 0):
		return usageErr("--eval takes only its directory")
	case *evalDir != "":
		return findEval(*evalDir, *asJSON, stdout, stderr)
	case *batch && len(words) > 0:
		return usageErr("--batch reads queries from stdin, not arguments")
	case !*batch && len(words) == 0:
		return usageErr("no query")
	}

	docs, code := findDocs(*specDir, *catalog, stderr)
	if code != exitOK {
		return code
	}
	index := search.Build(docs)
	if *batch {
		return findBatch(index, *limit, stdin, stdout, stderr)
	}
	query := strings.Join(words, " ")
	hits := index.Search(query, *limit)
	if *asJSON {
		if err := json.NewEncoder(stdout).Encode(findResult{Query: query, Results: results(hits)}); err != nil {
			fmt.Fprintf(stderr, "toolgen find: %v\n", err)
			return exitDiags
		}
		return exitOK
	}
	if len(hits) == 0 {
		fmt.Fprintf(stderr, "toolgen find: no tool matches %q among %d tools\n", query, index.Len())
		return exitOK
	}
	width := 0
	for _, h := range hits {
		width = max(width, len(h.Name))
	}
	for _, h := range hits {
		d, _ := index.Doc(h.Name)
		fmt.Fprintf(stdout, "%7.3f  %-*s  %s\n", h.Score, width, h.Name, summary(d.Description))
	}
	return exitOK
}

// findDocs loads the tools to search from a catalog file or a spec.
func findDocs(specDir, catalog string, stderr io.Writer) ([]search.Doc, int) {
	if catalog != "" {
		var data []byte
		var err error
		if catalog == "-" {
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(catalog)
		}
		if err == nil {
			var docs []search.Doc
			if docs, err = search.ParseCatalog(data); err == nil {
				return docs, exitOK
			}
		}
		fmt.Fprintf(stderr, "toolgen find: %s: %v\n", catalog, err)
		return nil, exitDiags
	}
	if specDir == "" {
		specDir = "."
	}
	spec, files, diags := spechcl.LoadDir(specDir)
	if diags.HasErrors() {
		// Warnings are validate's business; find reports what stops it.
		var errs hcl.Diagnostics
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				errs = append(errs, d)
			}
		}
		if err := writeDiags(stderr, "text", errs, files); err != nil {
			fmt.Fprintf(stderr, "toolgen find: %v\n", err)
		}
		return nil, exitDiags
	}
	docs := make([]search.Doc, len(spec.Catalog))
	for i, t := range spec.Catalog {
		docs[i] = search.Doc{Name: t.Name, Description: t.Description, Category: t.Category, Keywords: t.Keywords, Params: t.Params}
	}
	return docs, exitOK
}

type findResult struct {
	Query   string    `json:"query"`
	Results []findHit `json:"results"`
	Error   string    `json:"error,omitempty"`
}

type findHit struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

func results(hits []search.Hit) []findHit {
	out := make([]findHit, len(hits))
	for i, h := range hits {
		// Four decimals: enough to order, short enough to read and diff.
		out[i] = findHit{Name: h.Name, Score: math.Round(h.Score*1e4) / 1e4}
	}
	return out
}

// findBatch answers one JSON line per input line. A bad line gets a line
// with an error (and no results) so outputs stay aligned with inputs; the
// exit code is then 1.
func findBatch(index *search.Index, limit int, in io.Reader, stdout, stderr io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	enc := json.NewEncoder(stdout)
	code := exitOK
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var req struct {
			Query *string `json:"query"`
			Limit int     `json:"limit"`
		}
		res := findResult{Results: []findHit{}}
		err := json.Unmarshal([]byte(text), &req)
		if err == nil && req.Query == nil {
			err = errors.New(`want {"query": "..."}`)
		}
		if err == nil && req.Limit < 0 {
			err = fmt.Errorf("limit must not be negative, got %d", req.Limit)
		}
		if err != nil {
			res.Error = fmt.Sprintf("line %d: %v", line, err)
			fmt.Fprintf(stderr, "toolgen find: stdin:%d: %v\n", line, err)
			code = exitDiags
		} else {
			n := limit
			if req.Limit > 0 {
				n = req.Limit
			}
			res.Query = *req.Query
			res.Results = results(index.Search(*req.Query, n))
		}
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "toolgen find: %v\n", err)
			return exitDiags
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(stderr, "toolgen find: reading stdin: %v\n", err)
		return exitDiags
	}
	return code
}

// findEval prints the retrieval metrics of the index on a labelled set.
func findEval(dir string, asJSON bool, stdout, stderr io.Writer) int {
	set, err := eval.Load(dir)
	if err != nil {
		fmt.Fprintf(stderr, "toolgen find: %v\n", err)
		return exitDiags
	}
	all, by := eval.Run(set.Queries, eval.IndexRanker(search.Build(set.Docs)))
	if asJSON {
		type row struct {
			Source  string  `json:"source"`
			Queries int     `json:"queries"`
			R1      float64 `json:"recall_at_1"`
			R5      float64 `json:"recall_at_5"`
			MRR10   float64 `json:"mrr_at_10"`
		}
		rows := []row{{"all", all.Queries, all.R1, all.R5, all.MRR10}}
		for _, src := range sortedKeys(by) {
			r := by[src]
			rows = append(rows, row{src, r.Queries, r.R1, r.R5, r.MRR10})
		}
		json.NewEncoder(stdout).Encode(rows)
		return exitOK
	}
	fmt.Fprintf(stdout, "%d tools, %d queries\n", len(set.Docs), len(set.Queries))
	fmt.Fprintf(stdout, "%-12s %7s %6s %6s %7s\n", "source", "queries", "R@1", "R@5", "MRR@10")
	fmt.Fprintf(stdout, "%-12s %7d %6.3f %6.3f %7.3f\n", "all", all.Queries, all.R1, all.R5, all.MRR10)
	for _, src := range sortedKeys(by) {
		r := by[src]
		fmt.Fprintf(stdout, "%-12s %7d %6.3f %6.3f %7.3f\n", src, r.Queries, r.R1, r.R5, r.MRR10)
	}
	return exitOK
}

func sortedKeys(m map[string]eval.Result) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// summary is the first line of a description, cut to fit a terminal line.
func summary(desc string) string {
	if i := strings.IndexByte(desc, '\n'); i >= 0 {
		desc = desc[:i]
	}
	const max = 80
	if r := []rune(desc); len(r) > max {
		desc = string(r[:max-1]) + "…"
	}
	return desc
}
