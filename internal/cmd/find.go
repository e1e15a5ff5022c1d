package cmd

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/internal/searcheval"
	"github.com/toolgen-dev/toolgen/runtime/search"
)

const findUsage = `usage: toolgen find [--spec DIR | --catalog FILE] [--enrich FILE] [--limit N] [--json] QUERY...
       toolgen find --batch [--spec DIR | --catalog FILE] [--enrich FILE] [--limit N]
       toolgen find --eval DIR [--catalog FILE] [--enrich FILE]

Ranks the tools of a spec (default: the spec in the current directory) or
of an MCP tools/list result with the search index tool_find uses. A spec's
stored enrichment (toolgen.enrich.json) is searched with its tools.
--enrich adds enrichment from JSON lines {"name": "...", "queries": [...]},
one tool a line.
--batch reads JSON lines {"query": "...", "limit": N} from stdin and writes
one line {"query", "results": [{"name", "score"}]} per input line.
--eval runs the labelled queries of a toolret-format directory
(queries.jsonl, over DIR/catalog.json or --catalog) and prints recall@1,
recall@5 and MRR@10; with --enrich, without and with the enrichment.`

// runFind is `toolgen find`.
func runFind(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("find", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	specDir := fs.String("spec", "", "spec `dir`ectory whose tools are searched")
	catalog := fs.String("catalog", "", "MCP tools/list result or JSON array of tools (`file`, - for stdin)")
	limit := fs.Int("limit", 10, "at most `N` results per query")
	asJSON := fs.Bool("json", false, "print results as JSON")
	batch := fs.Bool("batch", false, "read JSON-line queries from stdin")
	evalDir := fs.String("eval", "", "evaluate on a toolret-format `dir`ectory")
	enrich := fs.String("enrich", "", "enrichment JSON lines {\"name\", \"queries\"} (`file`)")
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
	case *evalDir != "" && (*batch || *specDir != "" || len(words) > 0):
		return usageErr("--eval takes its directory, --catalog and --enrich only")
	case *evalDir != "":
		return findEval(*evalDir, *catalog, *enrich, *asJSON, stdout, stderr)
	case *batch && len(words) > 0:
		return usageErr("--batch reads queries from stdin, not arguments")
	case !*batch && len(words) == 0:
		return usageErr("no query")
	}

	docs, code := findDocs(*specDir, *catalog, stdin, stderr)
	if code != exitOK {
		return code
	}
	if *enrich != "" {
		if err := enrichDocs(docs, *enrich); err != nil {
			fmt.Fprintf(stderr, "toolgen find: %v\n", err)
			return exitDiags
		}
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
func findDocs(specDir, catalog string, stdin io.Reader, stderr io.Writer) ([]search.Doc, int) {
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
		docs[i] = search.Doc{Name: t.Name, Description: t.Description, Category: t.Category, Keywords: t.Keywords, Params: t.Params, Queries: t.Queries}
	}
	return docs, exitOK
}

// enrichDocs sets the Queries of docs from an enrichment file in JSON
// lines. A tool the docs do not have is an error: the file is for another
// catalog.
func enrichDocs(docs []search.Doc, path string) error {
	unknown, err := searcheval.EnrichFile(docs, path)
	if err == nil && len(unknown) > 0 {
		err = fmt.Errorf("%s: %d tools are not among the tools searched, such as %q", path, len(unknown), unknown[0])
	}
	return err
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

// findEval prints the retrieval metrics of the index on a labelled set;
// with an enrichment file, without and then with it.
func findEval(dir, catalog, enrich string, asJSON bool, stdout, stderr io.Writer) int {
	if catalog == "" {
		catalog = filepath.Join(dir, "catalog.json")
	}
	set, err := searcheval.LoadFiles(catalog, filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		fmt.Fprintf(stderr, "toolgen find: %v\n", err)
		return exitDiags
	}
	type run struct {
		name     string
		all      searcheval.Result
		bySource map[string]searcheval.Result
	}
	var runs []run
	all, by := searcheval.Run(set.Queries, searcheval.IndexRanker(search.Build(set.Docs)))
	runs = append(runs, run{"", all, by})
	if enrich != "" {
		if err := enrichDocs(set.Docs, enrich); err != nil {
			fmt.Fprintf(stderr, "toolgen find: %v\n", err)
			return exitDiags
		}
		all, by := searcheval.Run(set.Queries, searcheval.IndexRanker(search.Build(set.Docs)))
		runs[0].name = "without enrichment"
		runs = append(runs, run{"with enrichment", all, by})
	}
	if asJSON {
		type row struct {
			Source   string  `json:"source"`
			Enriched bool    `json:"enriched"`
			Queries  int     `json:"queries"`
			R1       float64 `json:"recall_at_1"`
			R5       float64 `json:"recall_at_5"`
			MRR10    float64 `json:"mrr_at_10"`
		}
		var rows []row
		for i, r := range runs {
			rows = append(rows, row{"all", i > 0, r.all.Queries, r.all.R1, r.all.R5, r.all.MRR10})
			for _, src := range sortedKeys(r.bySource) {
				s := r.bySource[src]
				rows = append(rows, row{src, i > 0, s.Queries, s.R1, s.R5, s.MRR10})
			}
		}
		json.NewEncoder(stdout).Encode(rows)
		return exitOK
	}
	fmt.Fprintf(stdout, "%d tools, %d queries (%s)\n", len(set.Docs), len(set.Queries), dir)
	for _, r := range runs {
		if r.name != "" {
			fmt.Fprintf(stdout, "%s:\n", r.name)
		}
		fmt.Fprintf(stdout, "%-12s %7s %6s %6s %7s\n", "source", "queries", "R@1", "R@5", "MRR@10")
		fmt.Fprintf(stdout, "%-12s %7d %6.3f %6.3f %7.3f\n", "all", r.all.Queries, r.all.R1, r.all.R5, r.all.MRR10)
		for _, src := range sortedKeys(r.bySource) {
			s := r.bySource[src]
			fmt.Fprintf(stdout, "%-12s %7d %6.3f %6.3f %7.3f\n", src, s.Queries, s.R1, s.R5, s.MRR10)
		}
	}
	return exitOK
}

func sortedKeys(m map[string]searcheval.Result) []string {
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
