package hcl

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// FuzzLoad feeds arbitrary bytes to the loader as a spec file (native or
// JSON syntax) beside an arbitrary lock file. The loader must never panic,
// must return a spec exactly when there is no error, and every diagnostic
// must render.
func FuzzLoad(f *testing.F) {
	paths, _ := filepath.Glob("../testdata/specs/*/*/*")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		switch {
		case strings.HasSuffix(p, ".hcl"):
			f.Add(b, []byte(nil), false)
		case strings.HasSuffix(p, ".hcl.json"):
			f.Add(b, []byte(nil), true)
		case strings.HasSuffix(p, LockFileName):
			spec, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "*.hcl"))
			for _, s := range spec {
				if sb, err := os.ReadFile(s); err == nil {
					f.Add(sb, b, false)
				}
			}
		}
	}
	f.Add([]byte("tool \"x\" {\n  go = \"a/b.C\"\n}\n"), []byte(`{"version":1,"servers":{}}`), false)
	// Inputs within the nesting limit need less than 4 MB of stack; an
	// input that gets past the limit and recurses deeper crashes here
	// instead of at Go's 1 GB.
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	f.Fuzz(func(t *testing.T, src, lock []byte, asJSON bool) {
		name := "spec.hcl"
		if asJSON {
			name = "spec.hcl.json"
		}
		files := map[string][]byte{
			name:          src,
			"schema.json": []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`),
			"desc.txt":    []byte("A description."),
		}
		if lock != nil {
			files[LockFileName] = lock
		}
		// A load that takes seconds is a hang; dump every goroutine so the
		// input is recorded with where it spun.
		watchdog := time.AfterFunc(10*time.Second, func() {
			buf := make([]byte, 1<<20)
			panic("FuzzLoad: load did not finish in 10s:\n" + string(buf[:runtime.Stack(buf, true)]))
		})
		defer watchdog.Stop()
		spec, parsed, diags := LoadFiles("fuzz", files)
		if diags.HasErrors() != (spec == nil) {
			t.Fatalf("spec != nil is %v with errors %v", spec != nil, diags.HasErrors())
		}
		for _, d := range diags {
			if d.Summary == "" {
				t.Fatalf("diagnostic without summary: %#v", d)
			}
		}
		w := hcl.NewDiagnosticTextWriter(io.Discard, parsed, 80, true)
		if err := w.WriteDiagnostics(diags); err != nil {
			t.Fatal(err)
		}
	})
}
