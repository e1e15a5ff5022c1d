package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hard link inside an allowed directory is another name of a file that may lie outside it:
// os.Root sees only names, so fs_read and fs_write check the link count of the open file.
func TestHardlinksRefused(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	must(t, os.WriteFile(secret, []byte("top secret\n"), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "ws"), 0o755))
	must(t, os.Link(secret, filepath.Join(dir, "ws", "link.txt")))
	must(t, os.WriteFile(filepath.Join(dir, "ws", "plain.txt"), []byte("plain\n"), 0o644))

	for _, allow := range []bool{false, true} {
		must(t, os.WriteFile(secret, []byte("top secret\n"), 0o644))
		r, err := NewFSRead(dir, []string{"ws"}, 0, allow)
		must(t, err)
		defer r.Close()
		w, err := NewFSWrite(dir, []string{"ws"}, allow)
		must(t, err)
		defer w.Close()

		got, err := r.Call(context.Background(), json.RawMessage(`{"path":"ws/link.txt"}`))
		if allow {
			if err != nil || got != "top secret\n" {
				t.Errorf("allow_hardlinks: read = %q, %v", got, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), `path "ws/link.txt" is a file with 2 hard links`) || !strings.Contains(err.Error(), "allow_hardlinks = true") {
			t.Errorf("read through a hard link = %q, %v; want it refused", got, err)
		}

		for _, args := range []string{`{"path":"ws/link.txt","content":"pwned\n"}`, `{"path":"ws/link.txt","content":"pwned\n","append":true}`} {
			must(t, os.WriteFile(secret, []byte("top secret\n"), 0o644))
			got, err = w.Call(context.Background(), json.RawMessage(args))
			b, _ := os.ReadFile(secret)
			if allow {
				if err != nil || !strings.Contains(string(b), "pwned") {
					t.Errorf("allow_hardlinks: write %s = %q, %v; outside file %q", args, got, err, b)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), "hard links") {
				t.Errorf("write %s = %q, %v; want it refused", args, got, err)
			}
			if string(b) != "top secret\n" {
				t.Errorf("write %s changed the outside file: %q", args, b)
			}
		}

		// Files with one name are unaffected, and so is a file fs_write creates.
		if got, err := r.Call(context.Background(), json.RawMessage(`{"path":"ws/plain.txt"}`)); err != nil || got != "plain\n" {
			t.Errorf("plain read = %q, %v", got, err)
		}
		if got, err := w.Call(context.Background(), json.RawMessage(`{"path":"ws/new.txt","content":"x"}`)); err != nil || got != "wrote 1 bytes to ws/new.txt" {
			t.Errorf("new file = %q, %v", got, err)
		}
		// Directories always have several links; listing one is not affected.
		if got, err := r.Call(context.Background(), json.RawMessage(`{"path":"ws"}`)); err != nil || !strings.Contains(got, "plain.txt") {
			t.Errorf("listing = %q, %v", got, err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
