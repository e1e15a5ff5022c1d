package hcl

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hashicorp/hcl/v2"
)

const minimalTool = "tool \"a\" {\n  description = \"A.\"\n  go          = \"example.com/t.A\"\n}\n"

// loadUnblocked runs LoadDir, and if it is still running after a while
// (blocked opening a named pipe), opens the pipes for writing so that it
// returns, and fails the test.
func loadUnblocked(t *testing.T, dir string, pipes ...string) hcl.Diagnostics {
	t.Helper()
	done := make(chan hcl.Diagnostics)
	go func() {
		_, _, diags := LoadDir(dir)
		done <- diags
	}()
	select {
	case diags := <-done:
		return diags
	case <-time.After(20 * time.Second):
		t.Errorf("LoadDir blocked on a named pipe")
		for _, p := range pipes {
			if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
		}
		return <-done
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("named pipes unavailable: %v", err)
	}
}

func oneDiag(t *testing.T, diags hcl.Diagnostics, summary, detail, file string, line, col int) {
	t.Helper()
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics, want 1: %v", len(diags), diags)
	}
	d := diags[0]
	if d.Summary != summary || !strings.Contains(d.Detail, detail) {
		t.Errorf("got %q: %q, want %q with %q", d.Summary, d.Detail, summary, detail)
	}
	if d.Subject == nil || filepath.Base(d.Subject.Filename) != file || d.Subject.Start.Line != line || d.Subject.Start.Column != col {
		t.Errorf("range %v, want %s:%d:%d", d.Subject, file, line, col)
	}
}

// TestSpecFileNamedPipe: a named pipe called *.hcl made validate hang
// (opening it waits for a writer). It is now a diagnostic at the file.
func TestSpecFileNamedPipe(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "main.hcl"), minimalTool)
	pipe := filepath.Join(dir, "pipe.hcl")
	mkfifo(t, pipe)
	oneDiag(t, loadUnblocked(t, dir, pipe), "Not a regular file", "is a named pipe (FIFO)", "pipe.hcl", 1, 1)
}

// TestLockFileNamedPipe: the lock file is read the same way.
func TestLockFileNamedPipe(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "main.hcl"), minimalTool)
	pipe := filepath.Join(dir, LockFileName)
	mkfifo(t, pipe)
	oneDiag(t, loadUnblocked(t, dir, pipe), "Not a regular file", "Lock file", LockFileName, 1, 1)
}

// TestFileFunctionNamedPipe: file() naming a named pipe hung too; it is
// now an error at the argument of the call.
func TestFileFunctionNamedPipe(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "main.hcl"), "tool \"a\" {\n  description = file(\"pipe.md\")\n  go          = \"example.com/t.A\"\n}\n")
	pipe := filepath.Join(dir, "pipe.md")
	mkfifo(t, pipe)
	oneDiag(t, loadUnblocked(t, dir, pipe), "Invalid function argument", `"pipe.md" is a named pipe (FIFO); file() reads only regular files`, "main.hcl", 2, 23)
}

// TestDevices: /dev/zero never ends. Through a symlink it is outside the
// spec directory; as a device node inside it (where the test may create
// one), it is not a regular file. Neither is ever opened.
func TestDevices(t *testing.T) {
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "main.hcl"), "tool \"a\" {\n  description = file(\"zero.md\")\n  go          = \"example.com/t.A\"\n}\n")
		for _, name := range []string{"zero.md", "zero.hcl"} {
			if err := os.Symlink("/dev/zero", filepath.Join(dir, name)); err != nil {
				t.Skipf("symlinks unavailable: %v", err)
			}
		}
		_, _, diags := LoadDir(dir)
		oneDiag(t, diags, "Cannot read spec file", "zero.hcl is a symlink that leads out of the spec directory", "zero.hcl", 1, 1)
		os.Remove(filepath.Join(dir, "zero.hcl"))
		_, _, diags = LoadDir(dir)
		oneDiag(t, diags, "Invalid function argument", `"zero.md" leads outside the spec directory`, "main.hcl", 2, 23)
	})
	t.Run("device node", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "main.hcl"), "tool \"a\" {\n  description = file(\"zero.md\")\n  go          = \"example.com/t.A\"\n}\n")
		zero := func(name string) {
			// /dev/zero is character device 1, 5 on Linux.
			if err := syscall.Mknod(filepath.Join(dir, name), syscall.S_IFCHR|0o644, 1<<8|5); err != nil {
				t.Skipf("cannot create a device node here: %v", err)
			}
		}
		zero("zero.md")
		_, _, diags := LoadDir(dir)
		oneDiag(t, diags, "Invalid function argument", `"zero.md" is a character device; file() reads only regular files`, "main.hcl", 2, 23)
		zero("zero.hcl")
		_, _, diags = LoadDir(dir)
		oneDiag(t, diags, "Not a regular file", "is a character device", "zero.hcl", 1, 1)
	})
}

// TestFileSizeLimits: files over their limit are refused before they are
// read; sparse files make them cheap to create.
func TestFileSizeLimits(t *testing.T) {
	sparse := func(t *testing.T, path string, size int64) {
		t.Helper()
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("spec file", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "main.hcl"), minimalTool)
		sparse(t, filepath.Join(dir, "big.hcl"), maxSpecFileBytes+1)
		_, _, diags := LoadDir(dir)
		oneDiag(t, diags, "File too large", "larger than 8 MiB, the most toolgen reads. Split it into several files", "big.hcl", 1, 1)
	})
	t.Run("file()", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "main.hcl"), "tool \"a\" {\n  description = file(\"big.md\")\n  go          = \"example.com/t.A\"\n}\n")
		sparse(t, filepath.Join(dir, "big.md"), maxSpecFileBytes+1)
		_, _, diags := LoadDir(dir)
		oneDiag(t, diags, "Invalid function argument", `"big.md" is larger than 8 MiB`, "main.hcl", 2, 23)
	})
	t.Run("lock file", func(t *testing.T) {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "main.hcl"), minimalTool)
		sparse(t, filepath.Join(dir, LockFileName), maxLockFileBytes+1)
		_, _, diags := LoadDir(dir)
		oneDiag(t, diags, "File too large", "larger than 64 MiB", LockFileName, 1, 1)
	})
}

// growingFS reports a size of 0 for files that hold more, as /proc does.
type growingFS struct{ fstest.MapFS }

type zeroSize struct{ fs.FileInfo }

func (zeroSize) Size() int64 { return 0 }

func (g growingFS) Stat(name string) (fs.FileInfo, error) {
	info, err := g.MapFS.Stat(name)
	if err != nil {
		return nil, err
	}
	return zeroSize{info}, nil
}

// TestReadBoundedWhenSizeLies: the limit holds while reading, not only by
// the size the file reports.
func TestReadBoundedWhenSizeLies(t *testing.T) {
	fsys := growingFS{fstest.MapFS{"big.hcl": {Data: make([]byte, 100)}}}
	var tl *TooLargeError
	if _, err := readRegular(fsys, "big.hcl", 10); !errors.As(err, &tl) {
		t.Fatalf("err = %v, want TooLargeError", err)
	}
	if b, err := readRegular(fsys, "big.hcl", 100); err != nil || len(b) != 100 {
		t.Fatalf("at the limit: %d bytes, %v", len(b), err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
