package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
	"github.com/toolgen-dev/toolgen/internal/hostconfig"
	"github.com/toolgen-dev/toolgen/internal/hostconfig/hostimport"
	"github.com/toolgen-dev/toolgen/internal/scaffold"
)

// runImport is `toolgen import [-o DIR] [--agent NAME] [--package PKG]
// FILE...`: read MCP hosts' configuration files (Claude Desktop, Claude
// Code, VS Code, Cursor) and write DIR/toolgen.hcl, a server block per
// entry and one agent using them. No secret is copied: the spec reads
// them with env(), and a note on stderr lists the variables to set.
// Warnings (fields not imported) do not stop it; errors write nothing.
func runImport(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	flags := newFlags("import", stderr,
		"usage: toolgen import [-o DIR] [--agent NAME] [--package PKG] [--host HOST] FILE...",
		"  FILE: claude_desktop_config.json, .mcp.json, .vscode/mcp.json or .cursor/mcp.json",
	)
	out := flags.String("o", "spec", "spec `dir`ectory to write toolgen.hcl into; - prints the spec on stdout")
	agent := flags.String("agent", "", "`name` of the agent that uses the servers (default assistant)")
	pkg := flags.String("package", "", "Go `package` of the generated code (default: the spec directory's name)")
	host := flags.String("host", "", "read every FILE as this `host`'s format (default: from the file's name and keys): "+formatNames())
	format := flags.String("format", "text", "diagnostics `format`: text, short or json")
	names, code := positional(flags, args)
	if code >= 0 {
		return code
	}
	if len(names) == 0 {
		fmt.Fprintln(stderr, "toolgen import: want at least one host configuration file")
		flags.Usage()
		return exitUsage
	}
	if !slices.Contains(diagFormats, *format) {
		fmt.Fprintf(stderr, "toolgen import: unknown --format %q; want one of %s\n", *format, strings.Join(diagFormats, ", "))
		return exitUsage
	}
	var hostFormat hostconfig.Format
	if *host != "" {
		f, err := hostconfig.ParseFormat(*host)
		if err != nil {
			fmt.Fprintf(stderr, "toolgen import: --host: %v\n", err)
			return exitUsage
		}
		hostFormat = f
	}
	target := ""
	if *out != "-" {
		target = filepath.Join(*out, "toolgen.hcl")
		// Checked before reading: an existing spec is the user's work.
		if existing, _ := filepath.Glob(filepath.Join(*out, "*.hcl*")); len(existing) > 0 {
			fmt.Fprintf(stderr, "toolgen import: %s already holds a spec (%s); import into a new directory with -o, so nothing is overwritten or merged by accident\n", *out, filepath.Base(existing[0]))
			return exitDiags
		}
	}

	var files []hostimport.File
	for _, name := range names {
		b, err := readHostFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "toolgen import: %v\n", err)
			return exitDiags
		}
		files = append(files, hostimport.File{Name: name, Data: b, Format: hostFormat})
	}
	res, diags := hostimport.Import(files, hostimport.Options{Agent: *agent, Package: *pkg})
	if len(diags) > 0 {
		// No source snippets: the lines of a host file hold the very
		// secrets the import leaves out.
		if err := writeDiags(stderr, *format, diags, nil); err != nil {
			fmt.Fprintf(stderr, "toolgen import: %v\n", err)
		}
	}
	if diags.HasErrors() || res == nil {
		return exitDiags
	}
	if target == "" {
		stdout.Write(res.Spec)
		res.WriteNote(stderr)
		return exitOK
	}
	if err := writeNew(target, res.Spec); err != nil {
		fmt.Fprintf(stderr, "toolgen import: %v\n", err)
		return exitDiags
	}
	fmt.Fprintf(stdout, "Wrote %s: %d servers (%s) and agent %s.\n", target, len(res.Servers), strings.Join(res.Servers, ", "), agentName(*agent))
	res.WriteNote(stdout)
	fmt.Fprintf(stdout, "Check it with: toolgen validate %s\n", *out)
	// What turns the spec into a binary, so the import does not end at a spec.
	spec, _, diags := spechcl.LoadDir(*out)
	if diags.HasErrors() || spec == nil {
		return exitOK // validate says what is wrong
	}
	plan, err := scaffold.Binary(*out, spec.Package, agentName(*agent))
	if err != nil {
		fmt.Fprintf(stderr, "toolgen import: %v\n", err)
		return exitOK // the spec is written; only the advice is missing
	}
	fmt.Fprintln(stdout)
	plan.Write(stdout)
	return exitOK
}

// hostFileLimit bounds a host file: they are a few kilobytes.
const hostFileLimit = 8 << 20

// readHostFile reads a regular file of at most hostFileLimit bytes.
func readHostFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, hostFileLimit+1))
	if err != nil {
		return nil, err
	}
	if len(b) > hostFileLimit {
		return nil, fmt.Errorf("%s is larger than %d MiB; a host configuration is a few kilobytes", name, hostFileLimit>>20)
	}
	return b, nil
}

// writeNew writes a file that must not exist yet, creating its directory.
func writeNew(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; nothing was written", name)
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func agentName(flag string) string {
	if flag == "" {
		return "assistant"
	}
	return flag
}

func formatNames() string {
	names := make([]string, len(hostconfig.Formats))
	for i, f := range hostconfig.Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}
