package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestShellArgvIsLiteral(t *testing.T) {
	s := NewShell([]string{"echo"}, 0, 0, "")
	got, err := call(t, s, `{"command":"echo","args":["$(id)",";","|","*","$HOME","a b","'q'","`+"`id`"+`","&&","rm -rf /"]}`)
	want := "$(id) ; | * $HOME a b 'q' `id` && rm -rf /\n"
	if err != nil || got != want {
		t.Fatalf("echo = %q, %v; want %q", got, err, want)
	}
}

func TestShellAllowList(t *testing.T) {
	echo, err := execPath("echo")
	if err != nil {
		t.Skip(err)
	}
	s := NewShell([]string{"echo", "cat", "no-such-command-xyz"}, 0, 0, "")
	for _, c := range []struct{ args, wantErr string }{
		{`{"command":"rm","args":["-rf","x"]}`, `command "rm" is not allowed; allowed commands: echo, cat, no-such-command-xyz`},
		{`{"command":"sh","args":["-c","echo hi"]}`, `command "sh" is not allowed`},
		{`{"command":"` + echo + `"}`, `is a path, and only the allowed commands may run`},
		{`{"command":"./echo"}`, `is a path`},
		{`{"command":"../bin/echo"}`, `is a path`},
		{`{"command":"echo "}`, `command "echo " is not allowed`},
		{`{"command":"ECHO"}`, `command "ECHO" is not allowed`},
		{`{"command":"echo;id"}`, `command "echo;id" is not allowed`},
		{`{"command":""}`, `"command" is required`},
		{`{}`, `"command" is required`},
		{`{"command":"echo\u0000x"}`, `NUL byte`},
		{`{"command":"echo","args":["a\u0000b"]}`, `args[0] contains a NUL byte`},
		{`{"command":"echo","args":"hi"}`, `"args" must be an array, got string`},
		{`{"command":"echo","argv":["hi"]}`, `unknown field "argv"`},
		{`{"command":"no-such-command-xyz"}`, `command "no-such-command-xyz" is allowed but cannot be run`},
		{`not json`, `invalid arguments: malformed JSON`},
	} {
		got, err := call(t, s, c.args)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: got %q, %v; want error containing %q", c.args, got, err, c.wantErr)
		}
	}
	// A full path runs when it is itself listed.
	s = NewShell([]string{echo}, 0, 0, "")
	if got, err := call(t, s, `{"command":"`+echo+`","args":["ok"]}`); err != nil || got != "ok\n" {
		t.Errorf("listed full path = %q, %v", got, err)
	}
}

func TestShellExitStatusAndStdin(t *testing.T) {
	s := NewShell([]string{"sh", "cat", "true"}, 0, 0, "")
	_, err := call(t, s, `{"command":"sh","args":["-c","echo out; echo err >&2; exit 3"]}`)
	if err == nil || err.Error() != "command \"sh\" exited with status 3\nout\nerr\n" {
		t.Errorf("exit 3: %v", err)
	}
	// As init of its PID namespace a command ignores signals it sent itself without a handler.
	if s.containment().name() != "pidns" {
		_, err = call(t, s, `{"command":"sh","args":["-c","kill -TERM $$"]}`)
		if err == nil || !strings.Contains(err.Error(), "killed by signal terminated") {
			t.Errorf("signal: %v", err)
		}
	}
	if got, err := call(t, s, `{"command":"cat","stdin":"line1\nline2 $(id)\n"}`); err != nil || got != "line1\nline2 $(id)\n" {
		t.Errorf("cat stdin = %q, %v", got, err)
	}
	if got, err := call(t, s, `{"command":"true"}`); err != nil || got != "(no output)" {
		t.Errorf("true = %q, %v", got, err)
	}
	// A program that never reads a large stdin must not hang the call.
	big, _ := json.Marshal(map[string]any{"command": "true", "stdin": strings.Repeat("x", 4<<20)})
	if got, err := s.Call(context.Background(), big); err != nil || got != "(no output)" {
		t.Errorf("unread stdin = %q, %v", got, err)
	}
}

func TestShellCwd(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub", "deeper"), 0o755)
	os.Symlink("..", filepath.Join(dir, "sub", "up"))
	os.Symlink("../..", filepath.Join(dir, "sub", "out"))
	os.Symlink(t.TempDir(), filepath.Join(dir, "abs"))
	s := NewShell([]string{"pwd"}, 0, 0, dir)
	if got, err := call(t, s, `{"command":"pwd"}`); err != nil || got != dir+"\n" {
		t.Errorf("pwd = %q, %v; want %q", got, err, dir)
	}
	if got, err := call(t, s, `{"command":"pwd","cwd":"sub/deeper"}`); err != nil || got != filepath.Join(dir, "sub/deeper")+"\n" {
		t.Errorf("pwd in sub/deeper = %q, %v", got, err)
	}
	if got, err := call(t, s, `{"command":"pwd","cwd":"sub/up"}`); err != nil || got != dir+"\n" {
		t.Errorf("pwd in sub/up (inside) = %q, %v", got, err)
	}
	for cwd, wantErr := range map[string]string{
		"..":        "must be a relative directory inside the working directory",
		"/tmp":      "must be a relative directory inside the working directory",
		"sub/../..": "must be a relative directory inside the working directory",
		"sub/out":   "leads outside the working directory through a symbolic link",
		"abs":       "leads outside the working directory through a symbolic link",
		"missing":   `cwd "missing": no such file or directory`,
		"sub/\x00":  "must be a relative directory",
	} {
		args, _ := json.Marshal(map[string]string{"command": "pwd", "cwd": cwd})
		if got, err := s.Call(context.Background(), args); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("cwd %q: got %q, %v; want error containing %q", cwd, got, err, wantErr)
		}
	}
}

func TestShellOutputCap(t *testing.T) {
	s := NewShell([]string{"sh"}, 0, 1000, "")
	got, err := call(t, s, `{"command":"sh","args":["-c","i=0; while [ $i -lt 2000 ]; do printf 'é\n'; i=$((i+1)); done"]}`)
	if err != nil {
		t.Fatal(err)
	}
	// 2000 lines of 3 bytes; the first 1000 bytes end inside a rune, which is dropped.
	want := strings.Repeat("é\n", 333) + "[shell_exec: output truncated: showing the first 999 of 6000 bytes]"
	if got != want {
		t.Errorf("capped output = %q…%q (%d bytes)", got[:20], got[len(got)-80:], len(got))
	}
	// Failures carry the capped output too.
	_, err = call(t, s, `{"command":"sh","args":["-c","head -c 5000 /dev/zero | tr '\\0' x; exit 1"]}`)
	if err == nil || !strings.HasSuffix(err.Error(), strings.Repeat("x", 1000)+"\n[shell_exec: output truncated: showing the first 1000 of 5000 bytes]") {
		t.Errorf("capped failure: %.200v", err)
	}
}

func TestShellRace(t *testing.T) {
	s := NewShell([]string{"echo"}, 0, 0, "")
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			got, err := s.Call(context.Background(), json.RawMessage(`{"command":"echo","args":["`+strconv.Itoa(i)+`"]}`))
			if err == nil && got != strconv.Itoa(i)+"\n" {
				err = errors.New("got " + got)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func execPath(name string) (string, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New(name + " not found")
}

// A listed command with a slash is a path relative to the policy's directory; it is never
// looked up in PATH ("./tool" used to run the "tool" found in PATH: filepath.Join(".", "./tool")
// is "tool"). A bare name keeps its PATH lookup.
func TestShellRelativeCommandIsNotLookedUpInPath(t *testing.T) {
	dir, bin := t.TempDir(), t.TempDir()
	script := func(path, says string) {
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, []byte("#!/bin/sh\necho "+says+"\n"), 0o755))
	}
	script(filepath.Join(dir, "tool"), "local")
	script(filepath.Join(dir, "sub", "tool"), "local sub")
	script(filepath.Join(bin, "tool"), "from PATH")
	script(filepath.Join(bin, "gone"), "from PATH")
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	t.Chdir(dir) // the policy's directory is the process's own when the workdir is empty

	for _, wd := range []string{"", ".", dir} {
		s := NewShell([]string{"./tool", "sub/tool", "tool", "./gone"}, 0, 0, wd)
		for args, want := range map[string]string{
			`{"command":"./tool"}`:   "local\n",
			`{"command":"sub/tool"}`: "local sub\n",
			`{"command":"tool"}`:     "from PATH\n",
		} {
			if got, err := call(t, s, args); err != nil || got != want {
				t.Errorf("workdir %q: %s = %q, %v; want %q", wd, args, got, err, want)
			}
		}
		// A listed path that does not exist in the policy's directory is refused, even though
		// PATH has a program of that name.
		if got, err := call(t, s, `{"command":"./gone"}`); err == nil || !strings.Contains(err.Error(), `command "./gone" is allowed but cannot be run: no such file or directory`) {
			t.Errorf("workdir %q: ./gone = %q, %v; want refused", wd, got, err)
		}
	}
	// The directory is fixed when the tool is made: a later chdir changes nothing.
	s := NewShell([]string{"./tool"}, 0, 0, "")
	t.Chdir(bin)
	if got, err := call(t, s, `{"command":"./tool"}`); err != nil || got != "local\n" {
		t.Errorf("after chdir: ./tool = %q, %v", got, err)
	}
}

// A command that spins past its CPU time limit is stopped by it, and the result says so.
func TestShellCPUTimeLimit(t *testing.T) {
	s := NewShell([]string{"sh"}, 0, 0, "")
	s.SetLimits(ShellLimits{CPUTime: time.Second})
	_, err := call(t, s, `{"command":"sh","args":["-c","while :; do :; done"]}`)
	if err == nil || !strings.Contains(err.Error(), `command "sh" hit its CPU time limit (1s)`) {
		t.Fatalf("spinning command: %v; want the CPU time limit named", err)
	}
}

// A command that allocates past its memory limit is stopped, and the result names the limit.
func TestShellMemoryLimit(t *testing.T) {
	s := NewShell([]string{"sh"}, 0, 0, "")
	s.SetLimits(ShellLimits{Memory: 64 << 20})
	// tail -c keeps the last 200 MB of its input in memory
	got, err := call(t, s, `{"command":"sh","args":["-c","head -c 300000000 /dev/zero | tail -c 200000000 >/dev/null"]}`)
	if err == nil || !strings.Contains(err.Error(), `hit its memory limit (64 MiB`) {
		t.Fatalf("allocating command = %q, %v; want the memory limit named", got, err)
	}
	// Within the limit the same pipeline runs.
	if got, err := call(t, s, `{"command":"sh","args":["-c","head -c 30000000 /dev/zero | tail -c 1000000 | wc -c"]}`); err != nil || strings.TrimSpace(got) != "1000000" {
		t.Fatalf("small pipeline = %q, %v", got, err)
	}
}
