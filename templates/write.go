package templates

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/renameio/v2"
	"github.com/rogpeppe/go-internal/diff"
)

// Writing is the last step, apart from Generate (wire's Generate and
// Commit): Write puts generated files in place, Diff tells what Write
// would change, for generate --check.

// Write writes generated files (by name) to dir: each file whose content
// changed is replaced atomically, unchanged files are left alone (so their
// modification times keep the build cache warm), and stale outputs (files
// with toolgen's header that files no longer has) are removed. Files
// without the header are never touched.
func Write(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		path := filepath.Join(dir, name)
		if old, err := readOutput(path); err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := renameio.WriteFile(path, files[name], 0o644); err != nil {
			return err
		}
	}
	for _, name := range staleOutputs(dir, files) {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// Diff returns a unified diff from the files in dir to the generated ones
// (a file Write would remove shows as deleted), or nil when dir is up to
// date.
//
// The diff is the Go command's own (rogpeppe/go-internal/diff): it anchors
// on lines that occur once on each side and runs in O(n log n), so a
// change scattered over a big registry still gives a small diff.
func Diff(dir string, files map[string][]byte) ([]byte, error) {
	var out []byte
	for _, name := range slices.Concat(slices.Sorted(maps.Keys(files)), staleOutputs(dir, files)) {
		path := filepath.Join(dir, name)
		old, err := readOutput(path)
		if err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		from, to := filepath.ToSlash(path), filepath.ToSlash(path)
		if err != nil {
			from = "/dev/null"
		}
		if files[name] == nil {
			to = "/dev/null"
		}
		out = append(out, diff.Diff(from, old, to, files[name])...)
	}
	return out, nil
}

// staleOutputs lists files in dir that toolgen generated (they start with
// its header) but that are not in files: outputs of an older spec or
// toolgen. Files without the header are never touched.
func staleOutputs(dir string, files map[string][]byte) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var stale []string
	for _, e := range entries {
		name := e.Name()
		// Only regular files: opening a named pipe would block, and a
		// symlink may lead anywhere.
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".go") || files[name] != nil {
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
	head := make([]byte, len(Header)+1)
	n, _ := io.ReadFull(f, head)
	return bytes.Equal(head[:n], []byte(Header+"\n"))
}

// readOutput reads a file Write may replace, refusing anything but a
// regular file (a named pipe there would block).
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
