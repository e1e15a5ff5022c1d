// Command catalogscale writes a spec directory whose catalog is N server
// tools recorded in a lock file (toolgen.lock.json): the way a catalog of
// tens of thousands of tools reaches toolgen, since one HCL file may hold
// at most 8 MiB. scripts/catalogscale.sh times toolgen generate and the
// build of the generated package on it.
//
//	go run ./scripts/catalogscale -tools 50000 -dir /tmp/cat50k
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	spechcl "github.com/toolgen-dev/toolgen/hcl"
)

var (
	words = strings.Fields(`account alert archive audit backup bucket build cache calendar certificate
	channel chart cluster comment commit config container contact cost customer dashboard database
	deploy device disk document domain email event feature file folder form gateway graph group host
	image incident index invoice issue job key label lead ledger log machine mail map message metric`)
	verbs = strings.Fields("list get create delete update search read write add remove start stop show find")
)

const toolsPerServer = 1000

func main() {
	n := flag.Int("tools", 10000, "server tools in the lock file")
	dir := flag.String("dir", "", "spec directory to write (created)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "catalogscale: -dir is required")
		os.Exit(2)
	}
	if err := write(*dir, *n); err != nil {
		fmt.Fprintln(os.Stderr, "catalogscale:", err)
		os.Exit(1)
	}
}

func write(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var spec strings.Builder
	spec.WriteString("toolgen {\n  package = \"catalog\"\n}\n")
	lock := &spechcl.Lock{Version: spechcl.LockVersion, Servers: map[string]*spechcl.LockServer{}}
	servers := (n + toolsPerServer - 1) / toolsPerServer
	for s := range servers {
		name := fmt.Sprintf("s%03d", s)
		fmt.Fprintf(&spec, "\nserver %q {\n  transport = \"stdio\"\n  command   = \"true\"\n}\n", name)
		ls := &spechcl.LockServer{}
		for i := s * toolsPerServer; i < min(n, (s+1)*toolsPerServer); i++ {
			w := func(k int) string { return words[(i*7+k*13)%len(words)] }
			schema, _ := json.Marshal(map[string]any{
				"type": "object",
				"properties": map[string]any{
					w(1): map[string]any{"type": "string", "description": "The " + w(1) + " to " + verbs[i%len(verbs)] + "."},
					w(2): map[string]any{"type": "integer", "minimum": 1},
				},
				"required": []string{w(1)},
			})
			ls.Tools = append(ls.Tools, spechcl.LockTool{
				Name:        fmt.Sprintf("%s_%s_%s_%05d", verbs[i%len(verbs)], w(3), w(4), i),
				Description: fmt.Sprintf("%s the %s %s of a project, filtered by %s and %s (%d).", strings.ToUpper(verbs[i%len(verbs)][:1])+verbs[i%len(verbs)][1:], w(3), w(4), w(5), w(6), i),
				InputSchema: schema,
			})
		}
		lock.Servers[name] = ls
	}
	spec.WriteString("\nagent \"finder\" {\n  description = \"Finds and loads the tools it needs.\"\n  discovery   = true\n  tools {\n    use = [\"*\"]\n  }\n}\n")
	b, err := lock.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, spechcl.LockFileName), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "spec.hcl"), []byte(spec.String()), 0o644)
}
