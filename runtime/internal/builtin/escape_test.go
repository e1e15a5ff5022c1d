package builtin

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sandbox lays out a work directory with one allowed root and a tree of traps around it:
//
//	TMP/secret.txt               outside everything
//	TMP/outside/x.txt            outside everything
//	TMP/work/                    the workdir
//	TMP/work/notallowed.txt      inside the workdir, outside the root
//	TMP/work/workspace_evil/     sibling whose name extends the root's
//	TMP/work/link_in_from_out -> workspace/a.txt
//	TMP/work/workspace/          the allowed root, with the symlinks below
type sandbox struct {
	tmp, work, ws string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	tmp := t.TempDir()
	s := &sandbox{tmp: tmp, work: filepath.Join(tmp, "work"), ws: filepath.Join(tmp, "work", "workspace")}
	files := map[string]string{
		"secret.txt":                      "top secret\n",
		"outside/x.txt":                   "outside\n",
		"work/notallowed.txt":             "not allowed\n",
		"work/workspace_evil/f.txt":       "evil twin\n",
		"work/workspace/a.txt":            "hello\n",
		"work/workspace/sub/deep/b.txt":   "deep\n",
		"work/workspace/sub/deep/c.txt":   "see\n",
		"work/workspace/sub/sibling.txt":  "sibling\n",
		"work/workspace/other/readme.txt": "other\n",
	}
	for name, content := range files {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"work/link_in_from_out":          "workspace/a.txt",
		"work/workspace/link_in":         "sub/deep/b.txt",
		"work/workspace/linkdir_in":      "sub",
		"work/workspace/link_out_file":   "../../secret.txt",
		"work/workspace/link_out_abs":    filepath.Join(tmp, "secret.txt"),
		"work/workspace/link_in_abs":     filepath.Join(tmp, "work/workspace/a.txt"),
		"work/workspace/link_out_dir":    "../../outside",
		"work/workspace/chain1":          "chain2",
		"work/workspace/chain2":          "sub/chain3",
		"work/workspace/sub/chain3":      "../../../secret.txt",
		"work/workspace/chain_ok1":       "chain_ok2",
		"work/workspace/chain_ok2":       "sub/deep/../chain_ok3",
		"work/workspace/sub/chain_ok3":   "deep/c.txt",
		"work/workspace/dangling_out":    "../../created_outside.txt",
		"work/workspace/dangling_in":     "sub/created_inside.txt",
		"work/workspace/sub/up_and_back": "../a.txt",
		"work/workspace/loop1":           "loop2",
		"work/workspace/loop2":           "loop1",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(tmp, name)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// outsideSnapshot records every file outside the allowed root with its content, so a test can
// prove that a refused write changed nothing.
func (s *sandbox) outsideSnapshot(t *testing.T) map[string]string {
	t.Helper()
	snap := map[string]string{}
	filepath.WalkDir(s.tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if p == s.ws {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			snap[p] = string(b)
		} else {
			snap[p] = d.Type().String()
		}
		return nil
	})
	return snap
}

type escapeCase struct {
	name    string
	op      string // "read" or "write"
	args    map[string]any
	wantErr string // substring of the error; empty means the call must succeed
	want    string // substring of the result when it succeeds
	check   func(t *testing.T, s *sandbox)
}

func TestEscapes(t *testing.T) {
	s := newSandbox(t)
	p := func(rel string) string { return filepath.Join(s.tmp, rel) }
	read := func(path string) map[string]any { return map[string]any{"path": path} }
	write := func(path string) map[string]any { return map[string]any{"path": path, "content": "pwned\n"} }
	mustNotExist := func(rel string) func(*testing.T, *sandbox) {
		return func(t *testing.T, s *sandbox) {
			if _, err := os.Lstat(p(rel)); err == nil {
				t.Errorf("%s was created", rel)
			}
		}
	}
	fileIs := func(rel, content string) func(*testing.T, *sandbox) {
		return func(t *testing.T, s *sandbox) {
			b, err := os.ReadFile(p(rel))
			if err != nil || string(b) != content {
				t.Errorf("%s = %q, %v; want %q", rel, b, err, content)
			}
		}
	}
	const escapes, outside = "escapes the allowed path", "outside the allowed paths"

	cases := []escapeCase{
		// Refused: climbing with "..".
		{name: "dotdot climbing out of the root", op: "read", args: read("workspace/../../secret.txt"), wantErr: escapes},
		{name: "dotdot from the workdir", op: "read", args: read("../secret.txt"), wantErr: outside},
		{name: "dotdot to a sibling of the root", op: "read", args: read("workspace/../notallowed.txt"), wantErr: escapes},
		{name: "dotdot deep inside then out", op: "read", args: read("workspace/sub/deep/../../../notallowed.txt"), wantErr: escapes},
		{name: "write with dotdot climbing", op: "write", args: write("workspace/../../secret.txt"), wantErr: escapes, check: fileIs("secret.txt", "top secret\n")},
		// Refused: absolute paths outside.
		{name: "absolute path outside", op: "read", args: read(p("secret.txt")), wantErr: outside},
		{name: "absolute system file", op: "read", args: read("/etc/passwd"), wantErr: outside},
		{name: "absolute path with dotdot out of the root", op: "read", args: read(s.ws + "/../notallowed.txt"), wantErr: escapes},
		{name: "write to absolute path outside", op: "write", args: write(p("outside/x.txt")), wantErr: outside, check: fileIs("outside/x.txt", "outside\n")},
		// Refused: symlinks inside pointing out.
		{name: "symlink inside to file outside (relative)", op: "read", args: read("workspace/link_out_file"), wantErr: escapes},
		{name: "symlink inside to file outside (absolute)", op: "read", args: read("workspace/link_out_abs"), wantErr: escapes},
		{name: "symlink inside to dir outside, file below it", op: "read", args: read("workspace/link_out_dir/x.txt"), wantErr: escapes},
		{name: "symlink inside to dir outside, listed", op: "read", args: read("workspace/link_out_dir"), wantErr: escapes},
		{name: "symlink chain ending outside", op: "read", args: read("workspace/chain1"), wantErr: escapes},
		{name: "symlink loop", op: "read", args: read("workspace/loop1"), wantErr: "too many levels of symbolic links"},
		{name: "absolute symlink pointing inside (os.Root refuses absolute links)", op: "read", args: read("workspace/link_in_abs"), wantErr: escapes},
		// Refused: ".." after a symlink is resolved against the link's target, inside the root.
		{name: "dotdot after an inside dir symlink climbs out", op: "read", args: read("workspace/linkdir_in/../../secret.txt"), wantErr: escapes},
		{name: "dotdot after an outside dir symlink", op: "read", args: read("workspace/link_out_dir/../secret.txt"), wantErr: escapes},
		// Refused: symlink outside the root pointing in (matched by where the path is, not where it leads).
		{name: "symlink outside pointing in", op: "read", args: read("link_in_from_out"), wantErr: outside},
		{name: "write through symlink outside pointing in", op: "write", args: write("link_in_from_out"), wantErr: outside, check: fileIs("work/workspace/a.txt", "hello\n")},
		// Refused: malformed paths.
		{name: "path with NUL byte", op: "read", args: read("workspace/a.txt\x00.png"), wantErr: "NUL byte"},
		{name: "write path with NUL byte", op: "write", args: write("workspace/x\x00y"), wantErr: "NUL byte"},
		{name: "empty path", op: "read", args: read(""), wantErr: `"path" is required`},
		{name: "missing path", op: "read", args: map[string]any{}, wantErr: `"path" is required`},
		{name: "trailing slash on a file", op: "read", args: read("workspace/a.txt/"), wantErr: "not a directory"},
		// Refused: the root's parent and look-alike siblings.
		{name: "the workdir (root's parent)", op: "read", args: read("."), wantErr: outside},
		{name: "root's parent by absolute path", op: "read", args: read(s.work), wantErr: outside},
		{name: "root's parent via root/..", op: "read", args: read("workspace/.."), wantErr: escapes},
		{name: "sibling whose name extends the root's", op: "read", args: read("workspace_evil/f.txt"), wantErr: outside},
		{name: "file in the workdir next to the root", op: "read", args: read("notallowed.txt"), wantErr: outside},
		// Refused writes through symlinks.
		{name: "write to a symlink pointing out", op: "write", args: write("workspace/link_out_file"), wantErr: escapes, check: fileIs("secret.txt", "top secret\n")},
		{name: "append to a symlink pointing out", op: "write", args: map[string]any{"path": "workspace/link_out_abs", "content": "x", "append": true}, wantErr: escapes, check: fileIs("secret.txt", "top secret\n")},
		{name: "write through a dangling symlink pointing out", op: "write", args: write("workspace/dangling_out"), wantErr: escapes, check: mustNotExist("created_outside.txt")},
		{name: "write below a dir symlink pointing out", op: "write", args: write("workspace/link_out_dir/x.txt"), wantErr: escapes, check: fileIs("outside/x.txt", "outside\n")},
		{name: "create_dirs below a dir symlink pointing out", op: "write", args: map[string]any{"path": "workspace/link_out_dir/new/f.txt", "content": "x", "create_dirs": true}, wantErr: escapes, check: mustNotExist("outside/new")},
		{name: "create_dirs with dotdot out", op: "write", args: map[string]any{"path": "workspace/new/../../../made/f.txt", "content": "x", "create_dirs": true}, wantErr: escapes, check: mustNotExist("made")},
		{name: "write through a symlink chain ending outside", op: "write", args: write("workspace/chain1"), wantErr: escapes, check: fileIs("secret.txt", "top secret\n")},
		{name: "write to the root directory itself", op: "write", args: write("workspace"), wantErr: "names a directory"},

		// Allowed.
		{name: "nested file", op: "read", args: read("workspace/sub/deep/b.txt"), want: "deep\n"},
		{name: "absolute path inside", op: "read", args: read(p("work/workspace/a.txt")), want: "hello\n"},
		{name: "dotdot staying inside", op: "read", args: read("workspace/sub/deep/../../a.txt"), want: "hello\n"},
		{name: "detour through the workdir, cleaned", op: "read", args: read("other/../workspace/a.txt"), want: "hello\n"},
		{name: "symlink inside pointing inside", op: "read", args: read("workspace/link_in"), want: "deep\n"},
		{name: "dir symlink inside pointing inside", op: "read", args: read("workspace/linkdir_in/deep/b.txt"), want: "deep\n"},
		{name: "dotdot after an inside dir symlink stays inside", op: "read", args: read("workspace/linkdir_in/deep/../sibling.txt"), want: "sibling\n"},
		{name: "symlink with dotdot target staying inside", op: "read", args: read("workspace/sub/up_and_back"), want: "hello\n"},
		{name: "symlink chain staying inside", op: "read", args: read("workspace/chain_ok1"), want: "see\n"},
		{name: "list the root", op: "read", args: read("workspace"), want: "a.txt\nchain1\n"},
		{name: "list a nested dir", op: "read", args: read("workspace/sub/deep"), want: "b.txt\nc.txt\n"},
		{name: "write a nested file with create_dirs", op: "write", args: map[string]any{"path": "workspace/new/dir/f.txt", "content": "made\n", "create_dirs": true}, want: "wrote 5 bytes", check: fileIs("work/workspace/new/dir/f.txt", "made\n")},
		{name: "write through a symlink inside pointing inside", op: "write", args: write("workspace/link_in"), want: "wrote 6 bytes", check: fileIs("work/workspace/sub/deep/b.txt", "pwned\n")},
		{name: "write through a dangling symlink pointing inside", op: "write", args: write("workspace/dangling_in"), want: "wrote", check: fileIs("work/workspace/sub/created_inside.txt", "pwned\n")},
	}

	r, err := NewFSRead(s.work, []string{"workspace"}, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := NewFSWrite(s.work, []string{"workspace"}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	before := s.outsideSnapshot(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args, err := json.Marshal(c.args)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if c.op == "read" {
				got, err = r.Call(context.Background(), args)
			} else {
				got, err = w.Call(context.Background(), args)
			}
			switch {
			case c.wantErr != "" && err == nil:
				t.Fatalf("%s %v: got %q, want an error containing %q", c.op, c.args["path"], got, c.wantErr)
			case c.wantErr != "" && !strings.Contains(err.Error(), c.wantErr):
				t.Fatalf("%s %v: error %q, want it to contain %q", c.op, c.args["path"], err, c.wantErr)
			case c.wantErr == "" && err != nil:
				t.Fatalf("%s %v: %v", c.op, c.args["path"], err)
			case c.wantErr == "" && !strings.Contains(got, c.want):
				t.Fatalf("%s %v = %q, want it to contain %q", c.op, c.args["path"], got, c.want)
			}
			if err != nil && strings.Contains(err.Error(), s.tmp) && !strings.Contains(c.args["path"].(string), s.tmp) {
				t.Errorf("error leaks the absolute root directory: %v", err)
			}
			if c.check != nil {
				c.check(t, s)
			}
			if err != nil {
				t.Logf("refused: %v", err)
			}
		})
	}
	after := s.outsideSnapshot(t)
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("created outside the root: %s", p)
		}
	}
	for p, v := range before {
		if after[p] != v {
			t.Errorf("changed outside the root: %s: %q -> %q", p, v, after[p])
		}
	}
}
