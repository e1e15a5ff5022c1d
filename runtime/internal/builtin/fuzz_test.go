package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzFS feeds arbitrary argument bytes to fs_read and fs_write: every input must give a result
// or an error, never a panic, and nothing may appear outside the allowed root.
func FuzzFS(f *testing.F) {
	for _, seed := range []string{
		`{"path":"ws/a.txt"}`, `{"path":"ws/a.txt","offset":2,"limit":1}`, `{"path":"ws"}`,
		`{"path":"ws/../x"}`, `{"path":"ws/link/../../x","content":"y","create_dirs":true}`,
		`{"path":"/etc/passwd"}`, `{"path":"ws/\u0000"}`, `{"path":"ws/sub/","content":"","append":true}`,
		`{"path":1}`, `[]`, `null`, ``, `{"path":"ws/a.txt","offset":-1}`,
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	os.MkdirAll(filepath.Join(dir, "work", "ws", "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "work", "ws", "a.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	os.Symlink("../..", filepath.Join(dir, "work", "ws", "link"))
	r, err := NewFSRead(filepath.Join(dir, "work"), []string{"ws"}, 64, false)
	if err != nil {
		f.Fatal(err)
	}
	w, err := NewFSWrite(filepath.Join(dir, "work"), []string{"ws"}, false)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		r.Call(context.Background(), json.RawMessage(args))
		w.Call(context.Background(), json.RawMessage(args))
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Fatalf("%q wrote outside the workdir: %v", args, entries)
		}
		entries, _ = os.ReadDir(filepath.Join(dir, "work"))
		if len(entries) != 1 {
			t.Fatalf("%q wrote outside the root: %v", args, entries)
		}
	})
}
