package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/templates"
)

// runGenerate is `toolgen generate [-o OUTDIR] [--check] DIR`: load the
// spec, emit its Go files and write them to OUTDIR (default DIR), or with
// --check print a unified diff of what would change and exit 1 if anything
// would.
func runGenerate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output `dir`ectory (default: the spec directory)")
	check := fs.Bool("check", false, "print a diff and exit 1 if the generated files are stale; write nothing")
	format := fs.String("format", "text", "diagnostics `format`: text, short or json")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: toolgen generate [-o OUTDIR] [--check] [--format=text|short|json] DIR")
		fs.PrintDefaults()
	}
	dir, err := parseInterspersed(fs, args)
	if err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if dir == "" {
		fs.Usage()
		return exitUsage
	}
	if !slices.Contains(diagFormats, *format) {
		fmt.Fprintf(stderr, "toolgen generate: unknown --format %q; want one of %s\n", *format, strings.Join(diagFormats, ", "))
		return exitUsage
	}
	outDir := *out
	if outDir == "" {
		outDir = dir
	}

	// A short batch run that builds big trees: trade some memory for less
	// GC work. On a 10k-tool spec, 200 gives 0.9–1.2 s at 380–440 MB peak;
	// 400 saved a little time for ~100 MB more.
	debug.SetGCPercent(200)

	spec, files, diags := spechcl.LoadDir(dir)
	var gen map[string][]byte
	if !diags.HasErrors() {
		diags = append(diags, spechcl.EnrichmentDrift(spec)...)
		spec.OutDir = outDir // Go tools must be importable from where the code goes
		var d hcl.Diagnostics
		gen, d = templates.Generate(spec)
		diags = append(diags, d...)
	}
	if len(diags) > 0 {
		if err := writeDiags(stderr, *format, diags, files); err != nil {
			fmt.Fprintf(stderr, "toolgen generate: %v\n", err)
		}
	}
	if diags.HasErrors() {
		return exitDiags
	}
	if *check {
		return checkGenerated(stdout, stderr, outDir, gen)
	}
	if err := writeGenerated(outDir, gen); err != nil {
		fmt.Fprintf(stderr, "toolgen generate: %v\n", err)
		return exitDiags
	}
	return exitOK
}

// parseInterspersed parses flags before and after the one positional
// argument, so `generate DIR -o OUT` works as well as `generate -o OUT DIR`.
func parseInterspersed(fs *flag.FlagSet, args []string) (string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		if len(pos) > 1 {
			fmt.Fprintf(fs.Output(), "toolgen generate: want one spec directory, got %d: %s\n", len(pos), strings.Join(pos, " "))
		}
		return "", fmt.Errorf("usage")
	}
	return pos[0], nil
}

// staleOutputs lists files in dir that toolgen generated (they start with
// its header) but that are not in gen: outputs of an older spec or
// toolgen. Files without the header are never touched.
func staleOutputs(dir string, gen map[string][]byte) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var stale []string
	for _, e := range entries {
		name := e.Name()
		// Only regular files: opening a named pipe would block, and a
		// symlink may lead anywhere.
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".go") || gen[name] != nil {
			continue
		}
		if isGenerated(filepath.Join(dir, name)) {
			stale = append(stale, name)
		}
	}
	return stale
}

func isGenerated(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(templates.Header)+1)
	n, _ := io.ReadFull(f, head)
	return bytes.Equal(head[:n], []byte(templates.Header+"\n"))
}

func sortedNames(gen map[string][]byte) []string {
	names := make([]string, 0, len(gen))
	for n := range gen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// writeGenerated writes each file whose content changed (unchanged files
// keep their modification time, so the build cache stays warm) and removes
// stale generated files.
func writeGenerated(dir string, gen map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range sortedNames(gen) {
		path := filepath.Join(dir, name)
		if old, err := readOutput(path); err == nil && bytes.Equal(old, gen[name]) {
			continue
		}
		if err := writeAtomic(path, gen[name]); err != nil {
			return err
		}
	}
	for _, name := range staleOutputs(dir, gen) {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// readOutput reads a file generate may replace, refusing anything but a
// regular file (a named pipe there would block generate).
func readOutput(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; remove it", path)
	}
	return os.ReadFile(path)
}

// writeAtomic replaces path through a temporary file in the same
// directory, so a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// checkGenerated prints a unified diff from the files on disk to the
// generated ones and returns 1 if there is any difference.
func checkGenerated(stdout, stderr io.Writer, dir string, gen map[string][]byte) int {
	stale := false
	names := sortedNames(gen)
	removed := staleOutputs(dir, gen)
	for _, name := range slices.Concat(names, removed) {
		path := filepath.Join(dir, name)
		old, err := readOutput(path)
		if err != nil && !os.IsNotExist(err) {
			fmt.Fprintf(stderr, "toolgen generate: %v\n", err)
			return exitDiags
		}
		from, to := filepath.ToSlash(path), filepath.ToSlash(path)
		if err != nil {
			from = "/dev/null"
		}
		if gen[name] == nil {
			to = "/dev/null"
		}
		if d := unifiedDiff(from, to, old, gen[name]); d != "" {
			io.WriteString(stdout, d)
			stale = true
		}
	}
	if stale {
		fmt.Fprintf(stderr, "toolgen generate: generated files in %s are stale; run toolgen generate (or go generate)\n", dir)
		return exitDiags
	}
	return exitOK
}
