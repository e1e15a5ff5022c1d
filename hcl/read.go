package hcl

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/toolgen-dev/toolgen/internal/filekind"
)

// Limits on what the loader reads. A spec file or a file() target may be
// at most maxSpecFileBytes: the 10,000-tool benchmark spec is 3 MB in one
// file, and a bigger spec can be split into files, which are merged. The
// lock file is written by toolgen lock from what servers report, a few KB
// of schema per tool, and cannot be split; maxLockFileBytes leaves room
// for tens of thousands of tools while keeping a hostile file from
// exhausting memory.
const (
	maxSpecFileBytes = 8 << 20
	maxLockFileBytes = 64 << 20
)

// NotRegularError is a path that is not a regular file: a named pipe
// would block the read, a device would never end it.
type NotRegularError struct{ Mode fs.FileMode }

func (e *NotRegularError) Error() string {
	return "it is " + filekind.Of(e.Mode) + ", not a regular file"
}

// TooLargeError is a file over its size limit.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string { return "it is larger than " + sizeName(e.Limit) }

// rootFS is the spec directory opened through os.Root: reads stay inside
// it, Stat does not open the file, and files are opened without blocking.
type rootFS struct{ root *os.Root }

func (r rootFS) Open(name string) (fs.File, error)          { return r.root.FS().Open(name) }
func (r rootFS) Stat(name string) (fs.FileInfo, error)      { return r.root.Stat(name) }
func (r rootFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(r.root.FS(), name) }

// readRegular reads name if it is a regular file (after symlinks inside
// fsys) of at most limit bytes. The type is checked before opening, since
// opening a named pipe blocks until a writer comes, and again on the open
// file, since the path may have changed in between.
func readRegular(fsys fs.FS, name string, limit int64) ([]byte, error) {
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &NotRegularError{info.Mode()}
	}
	if info.Size() > limit {
		return nil, &TooLargeError{limit}
	}
	var f fs.File
	if r, ok := fsys.(rootFS); ok {
		f, err = r.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	} else {
		f, err = fsys.Open(name)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, &NotRegularError{info.Mode()}
	}
	// A regular file may still grow, or report no size (/proc).
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{limit}
	}
	return b, nil
}

// fileProblem describes why readRegular failed for a spec or lock file, as
// a diagnostic's summary and detail; what names the file.
func fileProblem(what, name string, err error) (summary, detail string) {
	var nr *NotRegularError
	var tl *TooLargeError
	switch {
	case errors.As(err, &nr):
		return "Not a regular file", fmt.Sprintf("%s %s is %s; toolgen reads only regular files, so that reading can neither block nor go on without end. Replace it with a regular file, or move it out of the spec directory.", what, name, filekind.Of(nr.Mode))
	case errors.As(err, &tl):
		detail = fmt.Sprintf("%s %s is larger than %s, the most toolgen reads.", what, name, sizeName(tl.Limit))
		if what == "Spec file" {
			detail += " Split it into several files in the same directory; toolgen merges them."
		}
		return "File too large", detail
	case isEscape(err):
		return "Cannot read " + lower(what), fmt.Sprintf("%s %s is a symlink that leads out of the spec directory; toolgen reads only files inside it. Copy the file into the directory, or point the symlink at a file inside it.", what, name)
	}
	return "Cannot read " + lower(what), fmt.Sprintf("Reading %s: %s.", name, unwrapPathErr(err))
}

func lower(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}

func sizeName(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
