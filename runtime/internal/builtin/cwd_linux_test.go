package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// The command starts in the directory that was checked, not in whatever its path names a
// moment later: a symlink swapped between inside and outside the working directory during the
// calls never makes pwd print the outside directory.
func TestShellCwdSwapRace(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	inside := filepath.Join(dir, "inside")
	must(t, os.Mkdir(inside, 0o755))
	link := filepath.Join(dir, "link")
	must(t, os.Symlink("inside", link))

	var stop atomic.Bool
	swapped := make(chan int)
	go func() {
		n := 0
		for ; !stop.Load(); n++ {
			target := "inside"
			if n%2 == 1 {
				target = outside
			}
			tmp := filepath.Join(dir, "tmp")
			os.Remove(tmp)
			if os.Symlink(target, tmp) == nil {
				os.Rename(tmp, link) // atomic: link always exists
			}
		}
		swapped <- n
	}()

	s := NewShell([]string{"pwd"}, 0, 0, dir)
	const calls = 3000
	var in, out, refused int
	for range calls {
		got, err := call(t, s, `{"command":"pwd","cwd":"link"}`)
		switch {
		case err != nil && strings.Contains(err.Error(), "leads outside the working directory"):
			refused++
		case err != nil:
			t.Fatal(err)
		case got == inside+"\n":
			in++
		case got == outside+"\n":
			out++
		default:
			t.Fatalf("pwd printed %q", got)
		}
	}
	stop.Store(true)
	swaps := <-swapped
	t.Logf("%d calls during %d symlink swaps: %d ran inside, %d were refused, %d ran outside", calls, swaps, in, refused, out)
	if out > 0 {
		t.Errorf("%d/%d calls ran in the outside directory", out, calls)
	}
	if in == 0 || refused == 0 {
		t.Errorf("the swaps never met the checks (%d inside, %d refused); the test shows nothing", in, refused)
	}
}

// A cwd that is not a directory fails at once, without blocking on a FIFO.
func TestShellCwdNotADirectory(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	s := NewShell([]string{"pwd"}, 0, 0, dir)
	for _, cwd := range []string{"file", "fifo"} {
		if got, err := call(t, s, `{"command":"pwd","cwd":"`+cwd+`"}`); err == nil || !strings.Contains(err.Error(), "not a directory") {
			t.Errorf("cwd %s = %q, %v; want not a directory", cwd, got, err)
		}
	}
}
