package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFSWrite(t *testing.T) {
	dir := t.TempDir()
	w, err := NewFSWrite(dir, []string{"out"}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	os.Mkdir(filepath.Join(dir, "out", "sub"), 0o755)

	steps := []struct {
		args, want, wantErr string
		file, content       string // expected state of file afterwards
	}{
		{args: `{"path":"out/a.txt","content":"one\n"}`, want: "wrote 4 bytes to out/a.txt", file: "out/a.txt", content: "one\n"},
		{args: `{"path":"out/a.txt","content":"two\n","append":true}`, want: "appended 4 bytes to out/a.txt", file: "out/a.txt", content: "one\ntwo\n"},
		{args: `{"path":"out/a.txt","content":"3"}`, want: "wrote 1 bytes", file: "out/a.txt", content: "3"},
		{args: `{"path":"out/a.txt","content":""}`, want: "wrote 0 bytes", file: "out/a.txt", content: ""},
		{args: `{"path":"out/new.txt","content":"x","append":true}`, want: "appended 1 bytes", file: "out/new.txt", content: "x"},
		{args: `{"path":"out/x/y/z.txt","content":"deep"}`, wantErr: "the parent directory does not exist (set create_dirs to create it)"},
		{args: `{"path":"out/x/y/z.txt","content":"deep","create_dirs":true}`, want: "wrote 4 bytes", file: "out/x/y/z.txt", content: "deep"},
		{args: `{"path":"out/sub","content":"x"}`, wantErr: "is a directory"},
		{args: `{"path":"out/sub/","content":"x"}`, wantErr: "names a directory"},
		{args: `{"path":"out/a.txt"}`, wantErr: `"content" is required`},
		{args: `{"path":"out/a.txt","content":5}`, wantErr: `"content" must be a string, got number`},
		{args: `{"path":"out/a.txt","content":"x","mode":"0777"}`, wantErr: `unknown field "mode"`},
		{args: `{"path":"out/a.txt/b","content":"x"}`, wantErr: "not a directory"},
		{args: `{"path":"elsewhere.txt","content":"x"}`, wantErr: `is outside the allowed paths ("out")`},
	}
	for _, s := range steps {
		got, err := call(t, w, s.args)
		if s.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), s.wantErr) {
				t.Errorf("%s: got %q, %v; want error containing %q", s.args, got, err, s.wantErr)
			}
			continue
		}
		if err != nil || !strings.Contains(got, s.want) {
			t.Errorf("%s = %q, %v; want %q", s.args, got, err, s.want)
		}
		if b, err := os.ReadFile(filepath.Join(dir, s.file)); err != nil || string(b) != s.content {
			t.Errorf("after %s: %s = %q, %v; want %q", s.args, s.file, b, err, s.content)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "elsewhere.txt")); err == nil {
		t.Error("elsewhere.txt was written")
	}
}
