package builtin

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRead compares fs_read with reading the same small file directly. os.ReadFile is the
// baseline; root.ReadFile isolates what os.Root's component-by-component openat costs; fs_read
// adds argument decoding, root matching, the text checks and the result string.
func BenchmarkRead(b *testing.B) {
	dir := b.TempDir()
	content := strings.Repeat("the quick brown fox jumps over the lazy dog\n", 24) // ~1 KiB
	for _, rel := range []string{"ws/small.txt", "ws/a/b/c/small.txt"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	tool, err := NewFSRead(dir, []string{"ws"}, 0, false)
	if err != nil {
		b.Fatal(err)
	}
	defer tool.Close()
	root, err := os.OpenRoot(filepath.Join(dir, "ws"))
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()

	for _, depth := range []struct{ name, rel string }{{"depth1", "small.txt"}, {"depth4", "a/b/c/small.txt"}} {
		abs := filepath.Join(dir, "ws", depth.rel)
		args := json.RawMessage(`{"path":"ws/` + depth.rel + `"}`)
		b.Run(depth.name+"/os.ReadFile", func(b *testing.B) {
			for b.Loop() {
				if _, err := os.ReadFile(abs); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(depth.name+"/root.ReadFile", func(b *testing.B) {
			for b.Loop() {
				if _, err := root.ReadFile(depth.rel); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(depth.name+"/fs_read", func(b *testing.B) {
			for b.Loop() {
				if out, err := tool.Call(context.Background(), args); err != nil || len(out) != len(content) {
					b.Fatal(len(out), err)
				}
			}
		})
	}
}

// BenchmarkShell compares shell_exec with exec.Command(...).Output() for the same program.
func BenchmarkShell(b *testing.B) {
	path, err := exec.LookPath("true")
	if err != nil {
		b.Skip(err)
	}
	b.Run("exec.Command", func(b *testing.B) {
		for b.Loop() {
			if _, err := exec.Command(path).Output(); err != nil {
				b.Fatal(err)
			}
		}
	})
	s := NewShell([]string{"true"}, 0, 0, "")
	args := json.RawMessage(`{"command":"true"}`)
	b.Run("shell_exec", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Call(context.Background(), args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
