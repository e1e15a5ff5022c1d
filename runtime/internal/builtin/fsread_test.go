package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func call(t *testing.T, tool interface {
	Call(context.Context, json.RawMessage) (string, error)
}, args string) (string, error) {
	t.Helper()
	return tool.Call(context.Background(), json.RawMessage(args))
}

func newReadDir(t *testing.T, maxBytes int, files map[string]string) (*FSRead, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, "ws", name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "ws"), 0o755)
	r, err := NewFSRead(dir, []string{"ws"}, maxBytes, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, dir
}

func TestFSReadLines(t *testing.T) {
	var ten strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&ten, "line %d\n", i)
	}
	r, _ := newReadDir(t, 0, map[string]string{
		"ten.txt":    ten.String(),
		"empty.txt":  "",
		"nonl.txt":   "a\nb",
		"utf8.txt":   "héllo wörld ✓\n",
		"binary.bin": "PK\x03\x04\x00\x00rest",
		"latin1.txt": "caf\xe9\n",
		"late.txt":   strings.Repeat("ok\n", 5000) + "bad \xff\n",
		"late0.txt":  strings.Repeat("ok\n", 5000) + "nul \x00\n",
	})
	tests := []struct {
		args, want, wantErr string
	}{
		{args: `{"path":"ws/ten.txt"}`, want: ten.String()},
		{args: `{"path":"ws/ten.txt","offset":3,"limit":2}`, want: "line 3\nline 4\n[fs_read: stopped at the limit of 2 lines; continue with offset=5]"},
		{args: `{"path":"ws/ten.txt","offset":9}`, want: "line 9\nline 10\n"},
		{args: `{"path":"ws/ten.txt","offset":9,"limit":2}`, want: "line 9\nline 10\n"},
		{args: `{"path":"ws/ten.txt","offset":0,"limit":0}`, want: ten.String()},
		{args: `{"path":"ws/ten.txt","offset":11}`, wantErr: "offset 11 is past the end of \"ws/ten.txt\", which has 10 lines"},
		{args: `{"path":"ws/ten.txt","offset":-1}`, wantErr: "offset must be 1 or more"},
		{args: `{"path":"ws/ten.txt","limit":-1}`, wantErr: "limit must be 0"},
		{args: `{"path":"ws/empty.txt"}`, want: ""},
		{args: `{"path":"ws/nonl.txt","offset":2}`, want: "b"},
		{args: `{"path":"ws/nonl.txt","offset":3}`, wantErr: "which has 2 lines"},
		{args: `{"path":"ws/utf8.txt"}`, want: "héllo wörld ✓\n"},
		{args: `{"path":"ws/binary.bin"}`, wantErr: "is a binary file"},
		{args: `{"path":"ws/latin1.txt"}`, wantErr: "is not UTF-8 text (invalid bytes on line 1)"},
		{args: `{"path":"ws/late.txt"}`, wantErr: "invalid bytes on line 5001"},
		{args: `{"path":"ws/late.txt","limit":5000}`, want: strings.Repeat("ok\n", 5000) + "[fs_read: stopped at the limit of 5000 lines; continue with offset=5001]"},
		{args: `{"path":"ws/late0.txt","offset":4999}`, wantErr: "line 5001 contains NUL bytes"},
		{args: `{"path":"ws/missing.txt"}`, wantErr: `path "ws/missing.txt": no such file or directory`},
		{args: `{"path":"ws/ten.txt","pth":"x"}`, wantErr: `invalid arguments: unknown field "pth"`},
		{args: `{"path":7}`, wantErr: `invalid arguments: "path" must be a string, got number`},
		{args: `{"path":"ws/ten.txt","offset":"3"}`, wantErr: `"offset" must be an integer, got string`},
		{args: `["ws/ten.txt"]`, wantErr: "expected a JSON object, got array"},
		{args: `{"path":`, wantErr: "truncated JSON"},
		{args: `{"path":"ws/ten.txt"} {}`, wantErr: "unexpected data after the JSON object"},
		{args: `null`, wantErr: `"path" is required`},
		{args: ``, wantErr: `"path" is required`},
	}
	for _, tc := range tests {
		got, err := call(t, r, tc.args)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: got %q, %v; want error containing %q", tc.args, short(got), err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.args, short(got), err, short(tc.want))
		}
	}
}

func TestFSReadCap(t *testing.T) {
	var lines strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&lines, "%03d\n", i) // 4 bytes a line
	}
	r, _ := newReadDir(t, 40, map[string]string{
		"lines.txt": lines.String(),
		"long.txt":  strings.Repeat("é", 100) + "\nnext\n", // a 201-byte line of 2-byte runes
	})

	got, err := call(t, r, `{"path":"ws/lines.txt"}`)
	want := "001\n002\n003\n004\n005\n006\n007\n008\n009\n010\n[fs_read: output truncated at 40 bytes of 400; continue with offset=11]"
	if err != nil || got != want {
		t.Errorf("capped read = %q, %v; want %q", got, err, want)
	}
	got, err = call(t, r, `{"path":"ws/lines.txt","offset":11,"limit":2}`)
	if want := "011\n012\n[fs_read: stopped at the limit of 2 lines; continue with offset=13]"; err != nil || got != want {
		t.Errorf("continued read = %q, %v; want %q", got, err, want)
	}

	// A single line longer than the cap is cut at a rune boundary and the next call moves on.
	got, err = call(t, r, `{"path":"ws/long.txt"}`)
	if want := strings.Repeat("é", 20) + "\n[fs_read: line 1 is longer than the 40-byte limit and was cut; continue with offset=2]"; err != nil || got != want {
		t.Errorf("long line = %q, %v; want %q", got, err, want)
	}
	got, err = call(t, r, `{"path":"ws/long.txt","offset":2}`)
	if err != nil || got != "next\n" {
		t.Errorf("after long line = %q, %v", got, err)
	}
}

func TestFSReadList(t *testing.T) {
	r, dir := newReadDir(t, 0, map[string]string{"b.txt": "", "a.txt": "", "sub/x": "", "c/y": ""})
	os.Symlink("sub", filepath.Join(dir, "ws", "link"))
	got, err := call(t, r, `{"path":"ws"}`)
	if want := "a.txt\nb.txt\nc/\nlink\nsub/\n"; err != nil || got != want {
		t.Errorf("list = %q, %v; want %q", got, err, want)
	}
	got, err = call(t, r, `{"path":"ws/","offset":2,"limit":2}`)
	if want := "b.txt\nc/\n[fs_read: 2 of 5 entries shown; continue with offset=4]"; err != nil || got != want {
		t.Errorf("list page = %q, %v; want %q", got, err, want)
	}
	os.Mkdir(filepath.Join(dir, "ws", "empty"), 0o755)
	if got, err := call(t, r, `{"path":"ws/empty"}`); err != nil || got != "(empty directory)" {
		t.Errorf("empty dir = %q, %v", got, err)
	}
	if _, err := call(t, r, `{"path":"ws","offset":9}`); err == nil || !strings.Contains(err.Error(), "which has 6 entries") {
		t.Errorf("list past end: %v", err)
	}
}

// A FIFO would block a plain open forever; fs_read must refuse it at once.
func TestFSReadRefusesFIFO(t *testing.T) {
	r, dir := newReadDir(t, 0, nil)
	if err := syscall.Mkfifo(filepath.Join(dir, "ws", "pipe"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	_, err := call(t, r, `{"path":"ws/pipe"}`)
	if err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO), not a regular file") {
		t.Errorf("fifo read: %v", err)
	}
	w, err := NewFSWrite(dir, []string{"ws"}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := call(t, w, `{"path":"ws/pipe","content":"x"}`); err == nil {
		t.Errorf("fifo write succeeded")
	}
}

func TestFSMultipleRoots(t *testing.T) {
	dir := t.TempDir()
	abs := t.TempDir() // an absolute allowed path outside the workdir
	os.MkdirAll(filepath.Join(dir, "ws", "out"), 0o755)
	os.WriteFile(filepath.Join(abs, "f.txt"), []byte("abs\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ws", "out", "g.txt"), []byte("nested\n"), 0o644)
	os.Symlink("../g.txt", filepath.Join(dir, "ws", "out", "up")) // fine from ws, escapes ws/out
	os.WriteFile(filepath.Join(dir, "ws", "g.txt"), []byte("ws\n"), 0o644)

	r, err := NewFSRead(dir, []string{"ws/out", abs, "ws"}, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for args, want := range map[string]string{
		`{"path":"ws/out/g.txt"}`:             "nested\n",
		`{"path":"ws/g.txt"}`:                 "ws\n",
		`{"path":"` + abs + `/f.txt"}`:        "abs\n",
		`{"path":"ws/out/../g.txt"}`:          "ws\n", // ".." out of the nested root, into the outer one
		`{"path":"ws/out/up"}`:                "ws\n",
		`{"path":"ws/./out//g.txt"}`:          "nested\n",
		`{"path":"` + dir + `/ws/out/g.txt"}`: "nested\n",
	} {
		if got, err := call(t, r, args); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", args, got, err, want)
		}
	}
	if _, err := call(t, r, `{"path":"`+abs+`/../x"}`); err == nil {
		t.Errorf("escape from the absolute root succeeded")
	}
}

func TestNewFSErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	for _, c := range []struct {
		allowed []string
		want    string
	}{
		{nil, "no allowed paths given"},
		{[]string{""}, `allowed path "" is not a valid path`},
		{[]string{"missing"}, `fs_read: allowed path "missing": no such file or directory`},
		{[]string{"file"}, `allowed path "file": not a directory`},
	} {
		if _, err := NewFSRead(dir, c.allowed, 0, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewFSRead(%q): %v; want %q", c.allowed, err, c.want)
		}
	}
	// fs_write creates a missing allowed directory (an output directory, typically).
	w, err := NewFSWrite(dir, []string{"out/nested"}, false)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if fi, err := os.Stat(filepath.Join(dir, "out/nested")); err != nil || !fi.IsDir() {
		t.Errorf("allowed dir not created: %v", err)
	}
	if _, err := NewFSWrite(dir, []string{"file/sub"}, false); err == nil {
		t.Errorf("NewFSWrite under a file succeeded")
	}
}

// short keeps failure messages readable when a result is large.
func short(s string) string {
	if len(s) > 200 {
		return s[:100] + "…" + s[len(s)-100:]
	}
	return s
}

// Offset+Limit used to overflow for a huge limit: the page came back empty
// with a "stopped at the limit" note instead of the rest of the file.
func TestFSReadHugeLimit(t *testing.T) {
	r, _ := newReadDir(t, 0, map[string]string{"three.txt": "a\nb\nc\n", "d/x": "", "d/y": "", "d/z": ""})
	tests := []struct{ args, want string }{
		{fmt.Sprintf(`{"path":"ws/three.txt","offset":2,"limit":%d}`, int64(math.MaxInt64)), "b\nc\n"},
		{fmt.Sprintf(`{"path":"ws/three.txt","offset":1,"limit":%d}`, int64(math.MaxInt64)), "a\nb\nc\n"},
		{fmt.Sprintf(`{"path":"ws/d","offset":2,"limit":%d}`, int64(math.MaxInt64)), "y\nz\n"},
	}
	for _, tc := range tests {
		got, err := call(t, r, tc.args)
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.args, got, err, tc.want)
		}
	}
	_, err := call(t, r, fmt.Sprintf(`{"path":"ws/three.txt","offset":%d,"limit":%d}`, int64(math.MaxInt64), int64(math.MaxInt64)))
	if err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("huge offset: %v; want past the end", err)
	}
	_, err = call(t, r, fmt.Sprintf(`{"path":"ws/d","offset":%d,"limit":%d}`, int64(math.MaxInt64), int64(math.MaxInt64)))
	if err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("huge dir offset: %v; want past the end", err)
	}
}
