package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/renameio/v2"
	"github.com/hashicorp/hcl/v2"
	"github.com/rogpeppe/go-internal/diff"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

// runFmt is `toolgen fmt [-w] DIR`: rewrite every spec file of DIR in
// canonical form (-w), or print a unified diff of what -w would change and
// exit 1 when anything would, like `terraform fmt -check -diff`. DIR may
// also be a single spec file.
func runFmt(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("fmt", stderr, "usage: toolgen fmt [-w] [--format=text|short|json] DIR")
	write := fs.Bool("w", false, "write the formatted files instead of printing a diff")
	format := fs.String("format", "text", "diagnostics `format`: text, short or json")
	target, code := oneDirArg(fs, args)
	if code >= 0 {
		return code
	}
	paths, err := specPaths(target)
	if err != nil {
		fmt.Fprintf(stderr, "toolgen fmt: %v\n", err)
		return exitUsage
	}
	var diags hcl.Diagnostics
	files := map[string]*hcl.File{}
	changed := 0
	for _, p := range paths {
		src, d := spechcl.ReadSpecFile(p)
		if d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		out, d := spechcl.Format(p, src)
		if d.HasErrors() {
			diags = append(diags, d...)
			files[p] = &hcl.File{Bytes: src}
			continue
		}
		if bytes.Equal(src, out) {
			continue
		}
		changed++
		if *write {
			// Atomic, and the file keeps its permissions.
			if err := renameio.WriteFile(p, out, 0o644); err != nil {
				fmt.Fprintf(stderr, "toolgen fmt: %v\n", err)
				return exitDiags
			}
			fmt.Fprintln(stdout, p)
			continue
		}
		stdout.Write(diff.Diff(p, src, p+" (formatted)", out))
	}
	if len(diags) > 0 {
		writeDiags(stderr, *format, diags, files)
		return exitDiags
	}
	if changed > 0 && !*write {
		return exitDiags
	}
	return exitOK
}

// specPaths lists the spec files of a directory, or the file itself.
func specPaths(target string) ([]string, error) {
	info, err := os.Stat(target)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{target}, nil
	}
	entries, err := os.ReadDir(target)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "#") || strings.HasSuffix(n, "~") {
			continue
		}
		if strings.HasSuffix(n, ".hcl") || strings.HasSuffix(n, ".hcl.json") {
			out = append(out, filepath.Join(target, n))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no *.hcl or *.hcl.json files", target)
	}
	return out, nil
}
