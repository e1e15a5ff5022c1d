// Package hcl is the toolgen spec language: it loads a directory of *.hcl
// and *.hcl.json files, decodes each block kind, resolves references,
// validates, and builds the resolved IR of package ir.
//
// Every problem is an hcl.Diagnostic with a source range. The pipeline stops
// between phases (parse, decode, resolve) when a phase has errors, but
// collects every diagnostic inside a phase.
package hcl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// Load reads, validates and resolves the spec in dir.
func Load(dir string) (*ir.Spec, hcl.Diagnostics) {
	spec, _, diags := LoadDir(dir)
	return spec, diags
}

// LoadDir is Load that also returns the parsed files, keyed by the file
// names diagnostics use, so callers can render source snippets.
func LoadDir(dir string) (*ir.Spec, map[string]*hcl.File, hcl.Diagnostics) {
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		detail := fmt.Sprintf("%q is not a directory.", dir)
		if err != nil {
			detail = fmt.Sprintf("Cannot read the spec directory %q: %s.", dir, unwrapPathErr(err))
		}
		return nil, map[string]*hcl.File{}, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Spec directory not found", Detail: detail}}
	}
	// os.Root, not os.DirFS: a symlink inside the spec directory must not
	// let file() or a spec file read from outside it.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, map[string]*hcl.File{}, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Spec directory not found", Detail: fmt.Sprintf("Cannot read the spec directory %q: %s.", dir, unwrapPathErr(err))}}
	}
	defer root.Close()
	return LoadFS(dir, rootFS{root})
}

// LoadFiles loads a spec held in memory: file name (relative to dir) →
// content. file() reads from the same map.
func LoadFiles(dir string, files map[string][]byte) (*ir.Spec, map[string]*hcl.File, hcl.Diagnostics) {
	fsys := fstest.MapFS{}
	for name, b := range files {
		fsys[filepath.ToSlash(name)] = &fstest.MapFile{Data: b, Mode: 0o644}
	}
	return LoadFS(dir, fsys)
}

// LoadFS loads the spec whose files are the *.hcl and *.hcl.json files at
// the top of fsys. dir names the directory in diagnostics and in ir.Spec.Dir;
// nothing outside fsys is read.
func LoadFS(dir string, fsys fs.FS) (*ir.Spec, map[string]*hcl.File, hcl.Diagnostics) {
	spec, files, diags := loadFS(dir, fsys)
	addHints(diags, files)
	sortDiags(diags)
	return spec, files, diags
}

func loadFS(dir string, fsys fs.FS) (*ir.Spec, map[string]*hcl.File, hcl.Diagnostics) {
	names, diags := specFiles(dir, fsys)
	if diags.HasErrors() {
		return nil, map[string]*hcl.File{}, diags
	}

	// Phase 1: parse every file.
	parser := hclparse.NewParser()
	var files []*hcl.File
	for _, name := range names {
		display := displayName(dir, name)
		src, err := readRegular(fsys, name, maxSpecFileBytes)
		if err != nil {
			summary, detail := fileProblem("Spec file", display, err)
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: fileStart(display).Ptr()})
			continue
		}
		isJSON := strings.HasSuffix(name, ".hcl.json")
		if d := checkNesting(display, src, isJSON); d != nil {
			// Kept for the snippet, but never parsed: the parser recurses
			// once or more per level.
			parser.AddFile(display, &hcl.File{Bytes: src})
			diags = append(diags, d)
			continue
		}
		var f *hcl.File
		var d hcl.Diagnostics
		if isJSON {
			f, d = parser.ParseJSON(src, display)
		} else {
			f, d = parseHCL(parser, src, display)
		}
		diags = append(diags, capParseDiags(d, display)...)
		if f != nil && f.Body != nil {
			files = append(files, f)
		}
	}
	if diags.HasErrors() {
		return nil, parser.Files(), diags
	}

	// Phase 2: decode every block.
	cfg, d := decode(files, evalContext(fsys))
	diags = append(diags, d...)
	// Skills are read whatever else failed to decode: each is independent.
	d = readSkills(dir, fsys, cfg.skills)
	diags = append(diags, d...)
	if diags.HasErrors() {
		// Still resolve what decoded, for the errors of the blocks that
		// decoded cleanly: one run shows every independent mistake.
		_, rd := resolve(cfg)
		return nil, parser.Files(), append(diags, independentErrors(rd, d, cfg.blockStarts)...)
	}
	cfg.lock, cfg.lockFile, cfg.lockSrc, d = readLock(dir, fsys)
	diags = append(diags, d...)
	cfg.enrich, d = readEnrichment(dir, fsys)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, parser.Files(), diags
	}

	// Phase 3: resolve references, validate across blocks, build the IR.
	spec, d := resolve(cfg)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, parser.Files(), diags
	}
	applyEnrichment(spec, cfg.enrich)
	spec.Dir = dir
	spec.Files = names
	if spec.Package == "" {
		spec.Package, spec.PackageDefaulted = packageName(dirBase(dir)), true
	}
	return spec, parser.Files(), diags
}

// maxParseDiags caps syntax errors per file: a binary or badly broken file
// yields one per byte, and nobody reads past the first few.
const maxParseDiags = 50

func capParseDiags(diags hcl.Diagnostics, filename string) hcl.Diagnostics {
	if len(diags) <= maxParseDiags {
		return diags
	}
	errs := 0
	for _, d := range diags[maxParseDiags:] {
		if d.Severity == hcl.DiagError {
			errs++
		}
	}
	out := append(hcl.Diagnostics(nil), diags[:maxParseDiags]...)
	last := diags[len(diags)-1]
	return append(out, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Too many syntax errors",
		Detail:   fmt.Sprintf("%s has %d more syntax problems (%d errors) that are not shown; fix the ones above first.", filename, len(diags)-maxParseDiags, errs),
		Subject:  last.Subject,
	})
}

// specFiles lists the spec files of fsys, sorted. Like Terraform, files
// starting with "." or "#" or ending in "~" are editor leftovers, not spec.
func specFiles(dir string, fsys fs.FS) ([]string, hcl.Diagnostics) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read spec directory", Detail: fmt.Sprintf("Reading %s: %s.", dir, unwrapPathErr(err))}}
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "#") || strings.HasSuffix(n, "~") {
			continue
		}
		if strings.HasSuffix(n, ".hcl") || strings.HasSuffix(n, ".hcl.json") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No spec files", Detail: fmt.Sprintf("The directory %s has no *.hcl or *.hcl.json files.", dir)}}
	}
	return names, nil
}

// displayName is the file name used in ranges: joined with dir so that it
// is a path relative to the working directory when dir is.
func displayName(dir, name string) string {
	if dir == "" {
		return name
	}
	return filepath.Join(dir, name)
}

func dirBase(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Base(dir)
}

// config is every decoded block of a spec, in file and declaration order.
type config struct {
	toolgen   *toolgenBlock
	defaults  *ir.Defaults
	queues    []*queueBlock
	servers   []*serverBlock
	policies  []*policyBlock
	tools     []*toolBlock
	bundles   []*bundleBlock
	agents    []*agentBlock
	workflows []*workflowBlock
	models    []*modelBlock
	prompts   []*promptBlock
	resources []*resourceBlock
	skills    []*skillBlock
	// defaultModel is defaults { model = model.NAME }.
	defaultModel *ref
	lock         *Lock
	lockFile     string // display name of the lock file
	lockSrc      []byte
	enrich       *enrichment // toolgen.enrich.json, if any
	// blockStarts are the byte offsets of each file's top-level blocks, in
	// order, to tell which block a diagnostic is in (independent.go).
	blockStarts map[string][]int
}

var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "toolgen"},
		{Type: "defaults"},
		{Type: "queue", LabelNames: []string{"name"}},
		{Type: "server", LabelNames: []string{"name"}},
		{Type: "policy", LabelNames: []string{"name"}},
		{Type: "tool", LabelNames: []string{"name"}},
		{Type: "bundle", LabelNames: []string{"name"}},
		{Type: "agent", LabelNames: []string{"name"}},
		{Type: "workflow", LabelNames: []string{"name"}},
		{Type: "model", LabelNames: []string{"name"}},
		{Type: "prompt", LabelNames: []string{"name"}},
		{Type: "resource", LabelNames: []string{"name"}},
		{Type: "skill", LabelNames: []string{"name"}},
	},
}

// decode reads every top-level block of every file.
func decode(files []*hcl.File, ctx *hcl.EvalContext) (*config, hcl.Diagnostics) {
	cfg := &config{}
	var diags hcl.Diagnostics
	var toolgenRange, defaultsRange *hcl.Range
	contents := make([]*hcl.BodyContent, len(files))
	contentDiags := make([]hcl.Diagnostics, len(files))
	var tools []*hcl.Block
	for i, f := range files {
		contents[i], contentDiags[i] = f.Body.Content(rootSchema)
		for _, b := range contents[i].Blocks {
			if b.Type == "tool" {
				tools = append(tools, b)
			}
		}
	}
	decoded := decodeTools(tools, ctx)
	cfg.blockStarts = map[string][]int{}
	for i := range files {
		content := contents[i]
		diags = append(diags, contentDiags[i]...)
		for _, b := range content.Blocks {
			cfg.blockStarts[b.DefRange.Filename] = append(cfg.blockStarts[b.DefRange.Filename], b.DefRange.Start.Byte)
		}
		for _, b := range content.Blocks {
			switch b.Type {
			case "toolgen":
				if toolgenRange != nil {
					diags = append(diags, singleton("toolgen", b.DefRange, *toolgenRange))
					continue
				}
				toolgenRange = b.DefRange.Ptr()
				t, d := decodeToolgen(b, ctx)
				diags = append(diags, d...)
				cfg.toolgen = t
			case "defaults":
				if defaultsRange != nil {
					diags = append(diags, singleton("defaults", b.DefRange, *defaultsRange))
					continue
				}
				defaultsRange = b.DefRange.Ptr()
				v, m, d := decodeDefaults(b, ctx)
				diags = append(diags, d...)
				cfg.defaults, cfg.defaultModel = v, m
			case "tool":
				t := decoded[b]
				diags = append(diags, t.diags...)
				cfg.tools = append(cfg.tools, t.tool)
			default:
				if decode := listDecoders[b.Type]; decode != nil {
					diags = append(diags, decode(cfg, b, ctx)...)
				}
			}
		}
	}
	return cfg, diags
}

// listDecoders decode the blocks of which a spec may have many, each
// into its list of the config (tools are decoded ahead, in parallel).
var listDecoders = map[string]func(*config, *hcl.Block, *hcl.EvalContext) hcl.Diagnostics{
	"queue":    into(decodeQueue, func(c *config) *[]*queueBlock { return &c.queues }),
	"server":   into(decodeServer, func(c *config) *[]*serverBlock { return &c.servers }),
	"policy":   into(decodePolicy, func(c *config) *[]*policyBlock { return &c.policies }),
	"bundle":   into(decodeBundle, func(c *config) *[]*bundleBlock { return &c.bundles }),
	"agent":    into(decodeAgent, func(c *config) *[]*agentBlock { return &c.agents }),
	"workflow": into(decodeWorkflow, func(c *config) *[]*workflowBlock { return &c.workflows }),
	"model":    into(decodeModel, func(c *config) *[]*modelBlock { return &c.models }),
	"prompt":   into(decodePrompt, func(c *config) *[]*promptBlock { return &c.prompts }),
	"resource": into(decodeResource, func(c *config) *[]*resourceBlock { return &c.resources }),
	"skill":    into(decodeSkill, func(c *config) *[]*skillBlock { return &c.skills }),
}

// into decodes a block with decode and appends it to the list of the
// config that list returns.
func into[T any](decode func(*hcl.Block, *hcl.EvalContext) (T, hcl.Diagnostics), list func(*config) *[]T) func(*config, *hcl.Block, *hcl.EvalContext) hcl.Diagnostics {
	return func(c *config, b *hcl.Block, ctx *hcl.EvalContext) hcl.Diagnostics {
		v, d := decode(b, ctx)
		l := list(c)
		*l = append(*l, v)
		return d
	}
}

// toolsPerWorker is the fewest tool blocks worth a goroutine of their own
// (tests lower it).
var toolsPerWorker = 256

// decodedTool is the result of decodeTool.
type decodedTool struct {
	tool  *toolBlock
	diags hcl.Diagnostics
}

// decodeTools decodes tool blocks on several cores: they are most of a big
// spec, and each reads only its own block.
func decodeTools(blocks []*hcl.Block, ctx *hcl.EvalContext) map[*hcl.Block]decodedTool {
	out := make([]decodedTool, len(blocks))
	workers := min(runtime.GOMAXPROCS(0), max(len(blocks)/toolsPerWorker, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(blocks); i += workers {
				out[i].tool, out[i].diags = decodeTool(blocks[i], ctx)
			}
		})
	}
	wg.Wait()
	m := make(map[*hcl.Block]decodedTool, len(blocks))
	for i, b := range blocks {
		m[b] = out[i]
	}
	return m
}

func singleton(kind string, rng, prev hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Duplicate " + kind + " block",
		Detail:   fmt.Sprintf("A spec has at most one %s block; the first is at %s.", kind, shortPos(prev)),
		Subject:  rng.Ptr(),
	}
}

// checkNesting reports a file that nests deeper than maxNesting, at the
// byte where it does, or nil.
func checkNesting(filename string, src []byte, isJSON bool) *hcl.Diagnostic {
	var at int
	what := "brackets, blocks, templates or operators"
	if isJSON {
		at, what = jsonNesting(src, maxNesting), "objects, arrays and the templates in strings"
	} else {
		at = nativeNesting(src, maxNesting)
	}
	if at < 0 {
		return nil
	}
	rng := posRange(filename, src, at)
	rng.End = posRange(filename, src, at+1).End
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Nesting too deep",
		Detail:   fmt.Sprintf("%s nests %s more than %d levels deep here. toolgen reads at most %d levels, far more than a spec needs, so that a hostile file cannot exhaust the parser's stack; flatten the expression.", filename, what, maxNesting, maxNesting),
		Subject:  &rng,
	}
}

// fileStart is the range naming a whole file, at its first character.
func fileStart(filename string) hcl.Range {
	end := hcl.InitialPos
	end.Byte, end.Column = 1, 2
	return hcl.Range{Filename: filename, Start: hcl.InitialPos, End: end}
}

// readLock reads DIR/toolgen.lock.json when it exists.
func readLock(dir string, fsys fs.FS) (*Lock, string, []byte, hcl.Diagnostics) {
	name := displayName(dir, LockFileName)
	b, err := readRegular(fsys, LockFileName, maxLockFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, name, nil, nil
	}
	rng := fileStart(name)
	if err != nil {
		summary, detail := fileProblem("Lock file", name, err)
		return nil, name, nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: &rng}}
	}
	if at := lockNesting(b, maxNesting); at >= 0 {
		rng = posRange(name, b, at)
		return nil, name, b, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Nesting too deep", Detail: fmt.Sprintf("%s nests objects and arrays more than %d levels deep here; toolgen reads at most %d. Run toolgen lock to rewrite it.", name, maxNesting, maxNesting), Subject: &rng}}
	}
	rng = hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.InitialPos}
	lock, err := ParseLock(b)
	if err != nil {
		// Point at the byte the decoder stopped on, not at 1:1.
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		var oe *LockOffsetError
		switch {
		case errors.As(err, &se):
			rng = posRange(name, b, int(se.Offset))
		case errors.As(err, &te):
			rng = posRange(name, b, int(te.Offset))
		case errors.As(err, &oe):
			rng = posRange(name, b, int(oe.Offset))
		}
		return nil, name, b, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid lock file", Detail: fmt.Sprintf("%s: %s. Run toolgen lock to rewrite it.", name, err), Subject: &rng}}
	}
	return lock, name, b, nil
}

// posRange is the empty range at a byte offset of src.
func posRange(filename string, src []byte, offset int) hcl.Range {
	offset = max(0, min(offset, len(src)))
	pos := hcl.Pos{Line: 1, Column: 1, Byte: offset}
	for _, c := range string(src[:offset]) {
		if c == '\n' {
			pos.Line++
			pos.Column = 1
		} else {
			pos.Column++
		}
	}
	return hcl.Range{Filename: filename, Start: pos, End: pos}
}

// sortDiags orders diagnostics by file and position, those without a range
// first; the order inside a phase then does not depend on resolution order.
func sortDiags(diags hcl.Diagnostics) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		case a.Start.Line != b.Start.Line:
			return a.Start.Line < b.Start.Line
		}
		return a.Start.Column < b.Start.Column
	})
}
