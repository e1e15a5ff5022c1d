package templates

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/toolgen-dev/toolgen/internal/didyoumean"
	"github.com/toolgen-dev/toolgen/runtime/search"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"

	"github.com/toolgen-dev/toolgen/hcl/ir"
)

// GoTools is what type-checking a spec's Go function tools found: the
// phase between the resolved IR and the emitters (as ent loads schemas
// with go/packages before it builds its graph). The IR is left as it is;
// the emitters read both.
type GoTools struct {
	byName map[string]*GoTool
}

// GoTool is one type-checked Go function tool (go = "import/path.Func",
// func(context.Context, Args) (Result, error)).
type GoTool struct {
	ArgsType    string          // qualified name of Args, e.g. "example.com/x/tools.SummarizeArgs"
	ResultType  string          // Result as Go source, qualified by import path
	InputSchema json.RawMessage // the spec's input_schema, or else derived from Args, field docs as descriptions
	Params      []string        // the top-level properties of InputSchema, sorted
	// OutputSchema is derived from Result when it is a named struct (or a
	// pointer to one): its results are then structured content too.
	OutputSchema json.RawMessage
	// RichResult: Result is runtime.Rich (or a pointer to it), an MCP
	// result with content blocks; it has no output schema of its own.
	RichResult bool
}

// Tool returns what was found for the Go tool of that name, or nil (not a
// Go tool, not loaded, or rejected).
func (g *GoTools) Tool(name string) *GoTool {
	if g == nil {
		return nil
	}
	return g.byName[name]
}

// LoadGoTools type-checks the Go function tools of a spec and returns
// what the emitters need of them: the Args and Result types, the input
// schema and its parameter names. A missing package or function, or a
// function that is not func(context.Context, Args) (Result, error) with a
// struct Args, or a package the generated package cannot import (package
// main, an internal package outside its tree, the generated package
// itself), is an error at the tool's go attribute.
//
// Packages are resolved in the spec's Go module (or the current one when
// the spec is not inside a module), as `go build` there would.
func LoadGoTools(spec *ir.Spec) (*GoTools, hcl.Diagnostics) {
	out := &GoTools{byName: map[string]*GoTool{}}
	tools := spec.GoTools()
	if len(tools) == 0 {
		return out, nil
	}
	var paths []string
	for _, t := range tools {
		paths = append(paths, t.Go.ImportPath)
	}
	sort.Strings(paths)
	paths = slices.Compact(paths)

	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Fset: token.NewFileSet(),
	}
	if abs, err := filepath.Abs(spec.Dir); err == nil {
		cfg.Dir = moduleRoot(abs) // "" (the current directory) outside a module
	}
	pkgs, err := packages.Load(cfg, paths...)
	var diags hcl.Diagnostics
	if err != nil {
		for _, t := range tools {
			diags = append(diags, goDiag(t, "Cannot load Go package",
				fmt.Sprintf("Loading %q for tool %q failed: %v.", t.Go.ImportPath, t.Name, err)))
		}
		return out, diags
	}
	byPath := make(map[string]*packages.Package, len(pkgs))
	for _, p := range pkgs {
		byPath[p.PkgPath] = p
	}
	outPath := outputImportPath(spec)
	r := &goResolver{docs: map[*packages.Package]map[token.Pos]string{}}
	for _, t := range tools {
		if d := checkImportable(t, outPath, byPath[t.Go.ImportPath]); d != nil {
			diags = append(diags, d)
			continue
		}
		g, d := r.resolve(t, byPath[t.Go.ImportPath])
		diags = append(diags, d...)
		if g != nil {
			out.byName[t.Name] = g
		}
	}
	return out, diags
}

// goResolver is what the Go tools of a spec share, built once: a
// package's field docs (walking its syntax once per tool made thousands
// of tools of one package quadratic).
type goResolver struct {
	docs map[*packages.Package]map[token.Pos]string
}

func (r *goResolver) fieldDocs(pkg *packages.Package) map[token.Pos]string {
	d, ok := r.docs[pkg]
	if !ok {
		d = fieldDocs(pkg)
		r.docs[pkg] = d
	}
	return d
}

// checkImportable reports a tool package the generated package cannot
// import, which would pass generate and then fail go build: a program, an
// internal package outside the generated package's tree, or the generated
// package itself. out is the generated package's import path, "" when it is
// not known (no go.mod above the output directory).
func checkImportable(t *ir.Tool, out string, pkg *packages.Package) *hcl.Diagnostic {
	path := t.Go.ImportPath
	if out != "" && path == out {
		return goDiag(t, "Go tool in the generated package",
			fmt.Sprintf("Tool %q names %s.%s, in %q, the package toolgen generates into: the generated code would import its own package. Move the function to another package.", t.Name, path, t.Go.Func, out))
	}
	if parent, ok := internalParent(path); ok && out != "" && !hasPathPrefix(out, parent) {
		where := "the standard library"
		if parent != "" {
			where = fmt.Sprintf("%q", parent)
		}
		return goDiag(t, "Go package not importable",
			fmt.Sprintf("%q is an internal package: only packages under %s may import it, and the generated package is %q. Move the function out of internal/, or generate into a directory under %s.", path, where, out, where))
	}
	if pkg != nil && pkg.Name == "main" {
		return goDiag(t, "Go package not importable",
			fmt.Sprintf("%q is a program (package main), not an importable package. Move %s into a library package the program and the generated code both import.", path, t.Go.Func))
	}
	return nil
}

// internalParent is Go's internal-package rule: a path with an "internal"
// element may be imported only from the tree rooted at the path before the
// last such element ("" for a leading one).
func internalParent(path string) (string, bool) {
	switch {
	case strings.HasSuffix(path, "/internal"):
		return strings.TrimSuffix(path, "/internal"), true
	case strings.Contains(path, "/internal/"):
		return path[:strings.LastIndex(path, "/internal/")], true
	case path == "internal" || strings.HasPrefix(path, "internal/"):
		return "", true
	}
	return "", false
}

// hasPathPrefix reports whether path is prefix or lies under it.
func hasPathPrefix(path, prefix string) bool {
	return prefix != "" && (path == prefix || strings.HasPrefix(path, prefix+"/"))
}

// outputImportPath is the import path of the directory generate writes to,
// from the module path in the go.mod above it; "" outside a module.
func outputImportPath(spec *ir.Spec) string {
	dir := spec.OutDir
	if dir == "" {
		dir = spec.Dir
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	root := moduleRoot(abs)
	if root == "" {
		return ""
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	mod := modfile.ModulePath(gomod)
	rel, err := filepath.Rel(root, abs)
	if mod == "" || err != nil {
		return ""
	}
	if rel == "." {
		return mod
	}
	return mod + "/" + filepath.ToSlash(rel)
}

func goDiag(t *ir.Tool, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   detail,
		Subject:  t.Go.Range.Ptr(),
		Context:  t.Range.Ptr(),
	}
}

const wantSignature = "func(context.Context, Args) (Result, error) with Args a struct type"

func (r *goResolver) resolve(t *ir.Tool, pkg *packages.Package) (*GoTool, hcl.Diagnostics) {
	g := t.Go
	if pkg == nil || len(pkg.Errors) > 0 || pkg.Types == nil {
		var msgs []string
		if pkg != nil {
			for _, e := range pkg.Errors {
				// The go command's advice ("to add it: go get …") is
				// noise here: the fix is usually the import path.
				msg, _, _ := strings.Cut(e.Msg, "; to add it")
				msgs = append(msgs, msg)
			}
		}
		detail := fmt.Sprintf("The Go package %q of tool %q cannot be loaded", g.ImportPath, t.Name)
		if len(msgs) > 0 {
			detail += ": " + strings.Join(msgs, "; ")
		}
		return nil, hcl.Diagnostics{goDiag(t, "Cannot load Go package", detail+". Check the import path and that the package builds.")}
	}
	obj := pkg.Types.Scope().Lookup(g.Func)
	if obj == nil || !obj.Exported() {
		var funcs []string
		for _, n := range pkg.Types.Scope().Names() {
			if o, ok := pkg.Types.Scope().Lookup(n).(*types.Func); ok && o.Exported() {
				funcs = append(funcs, n)
			}
		}
		detail := fmt.Sprintf("Package %q has no exported function %q.", g.ImportPath, g.Func)
		if near := didyoumean.Nearest(g.Func, funcs, 1); len(near) > 0 {
			detail += fmt.Sprintf(" Did you mean %q?", g.ImportPath+"."+near[0])
		}
		return nil, hcl.Diagnostics{goDiag(t, "Unknown Go function", detail)}
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		return nil, hcl.Diagnostics{goDiag(t, "Not a Go function",
			fmt.Sprintf("%s.%s is a %s; a Go function tool must be %s.", g.ImportPath, g.Func, objectKind(obj), wantSignature))}
	}
	sig := fn.Type().(*types.Signature)
	bad := func(why string) (*GoTool, hcl.Diagnostics) {
		return nil, hcl.Diagnostics{goDiag(t, "Wrong Go function signature",
			fmt.Sprintf("%s.%s has type %s: %s. A Go function tool must be %s.", g.ImportPath, g.Func, types.TypeString(sig, relativeTo(pkg.Types)), why, wantSignature))}
	}
	switch {
	case sig.TypeParams().Len() > 0:
		return bad("it is generic")
	case sig.Params().Len() != 2 || sig.Variadic():
		return bad("it must take exactly two parameters")
	case sig.Results().Len() != 2:
		return bad("it must return exactly two results")
	case !isNamed(sig.Params().At(0).Type(), "context", "Context"):
		return bad("its first parameter must be context.Context")
	case !types.Identical(sig.Results().At(1).Type(), types.Universe.Lookup("error").Type()):
		return bad("its second result must be error")
	}
	args, ok := types.Unalias(sig.Params().At(1).Type()).(*types.Named)
	if !ok || args.TypeArgs().Len() > 0 {
		return bad("Args must be a named, non-generic struct type")
	}
	if _, ok := args.Underlying().(*types.Struct); !ok {
		return bad(fmt.Sprintf("Args %s is not a struct", args.Obj().Name()))
	}
	if !args.Obj().Exported() || args.Obj().Pkg() == nil {
		return bad(fmt.Sprintf("Args %s must be exported so the generated wrapper can declare it", args.Obj().Name()))
	}
	result := sig.Results().At(0).Type()
	if why := unencodable(result); why != "" {
		return bad("Result " + why)
	}

	b := &schemaBuilder{docs: r.fieldDocs(pkg), visiting: map[*types.Named]bool{}}
	schema := b.schemaOf(args, args.Obj().Name())
	if len(b.problems) > 0 {
		return nil, hcl.Diagnostics{goDiag(t, "Unsupported Go argument type",
			fmt.Sprintf("The input schema of tool %q cannot be derived from %s: %s.", t.Name, args.Obj().Name(), strings.Join(b.problems, "; ")))}
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, hcl.Diagnostics{goDiag(t, "Unsupported Go argument type", err.Error())}
	}
	out := &GoTool{
		ArgsType:    args.Obj().Pkg().Path() + "." + args.Obj().Name(),
		ResultType:  types.TypeString(result, nil),
		InputSchema: raw,
	}
	if len(t.InputSchema) > 0 {
		out.InputSchema = t.InputSchema // the spec's own schema wins
	}
	out.Params = search.SchemaParams(out.InputSchema)
	if out.RichResult = isRich(result); !out.RichResult {
		out.OutputSchema = r.outputSchema(pkg, result)
	}
	return out, nil
}

// richType is the type runtime.Rich names (an alias).
const richPkg, richName = "github.com/toolgen-dev/toolgen/internal/mcpconn", "Result"

// isRich reports whether a Go tool's result is runtime.Rich or *runtime.Rich.
func isRich(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == richPkg && n.Obj().Name() == richName
}

// outputSchema derives the schema of a struct result; nil for any other
// result, or one whose schema cannot be derived (it stays plain text).
func (r *goResolver) outputSchema(pkg *packages.Package, result types.Type) json.RawMessage {
	if p, ok := result.(*types.Pointer); ok {
		result = p.Elem()
	}
	named, ok := types.Unalias(result).(*types.Named)
	if !ok || named.TypeArgs().Len() > 0 {
		return nil
	}
	if _, ok := named.Underlying().(*types.Struct); !ok {
		return nil
	}
	b := &schemaBuilder{docs: r.fieldDocs(pkg), visiting: map[*types.Named]bool{}}
	schema := b.schemaOf(named, named.Obj().Name())
	if len(b.problems) > 0 {
		return nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	return raw
}

func objectKind(o types.Object) string {
	switch o.(type) {
	case *types.TypeName:
		return "type"
	case *types.Var:
		return "variable"
	case *types.Const:
		return "constant"
	}
	return "declaration"
}

func relativeTo(pkg *types.Package) types.Qualifier {
	return func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
}

func isNamed(t types.Type, pkg, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

// unencodable says why encoding/json cannot encode values of t, or "".
func unencodable(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Chan, *types.Signature:
		return fmt.Sprintf("type %s cannot be encoded as JSON", t)
	case *types.Basic:
		if u.Info()&types.IsComplex != 0 || u.Kind() == types.UnsafePointer {
			return fmt.Sprintf("type %s cannot be encoded as JSON", t)
		}
	}
	return ""
}

// fieldDocs maps each struct field name's position to its doc (or line)
// comment, for property descriptions.
func fieldDocs(pkg *packages.Package) map[token.Pos]string {
	docs := map[token.Pos]string{}
	for _, file := range pkg.Syntax {
		ast.Inspect(file, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, f := range st.Fields.List {
				doc := f.Doc
				if doc == nil {
					doc = f.Comment
				}
				if doc == nil {
					continue
				}
				text := strings.TrimSpace(doc.Text())
				for _, name := range f.Names {
					docs[name.Pos()] = text
				}
			}
			return true
		})
	}
	return docs
}
