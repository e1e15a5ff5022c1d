package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/toolgen-dev/toolgen/internal/filekind"
)

// FSWrite is the fs_write builtin: it writes or appends a text file inside the allowed paths.
type FSWrite struct {
	dirs *allowedDirs
}

// NewFSWrite opens every allowed path (relative ones against workdir) as an os.Root, creating
// allowed directories that do not exist yet. Existing files with several hard links are
// refused unless allowHardlinks is set.
func NewFSWrite(workdir string, allowedPaths []string, allowHardlinks bool) (*FSWrite, error) {
	dirs, err := openAllowedDirs(workdir, allowedPaths, true)
	if err != nil {
		return nil, fmt.Errorf("fs_write: %w", err)
	}
	dirs.allowHardlinks = allowHardlinks
	return &FSWrite{dirs: dirs}, nil
}

// Close releases the root handles.
func (t *FSWrite) Close() error { return t.dirs.close() }

// Schema is the JSON Schema of fs_write's arguments.
func (t *FSWrite) Schema() json.RawMessage { return fsWriteSchema }

var fsWriteSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"path":{"type":"string","description":"File to write, relative to the working directory or absolute; must lie inside an allowed path."},` +
	`"content":{"type":"string","description":"Text to write."},` +
	`"append":{"type":"boolean","description":"Append to the file instead of replacing it. Default false."},` +
	`"create_dirs":{"type":"boolean","description":"Create missing parent directories. Default false."}` +
	`},"required":["path","content"],"additionalProperties":false}`)

type fsWriteArgs struct {
	Path       string  `json:"path"`
	Content    *string `json:"content"`
	Append     bool    `json:"append"`
	CreateDirs bool    `json:"create_dirs"`
}

// Call writes args.content to args.path.
func (t *FSWrite) Call(ctx context.Context, args json.RawMessage) (string, error) {
	var a fsWriteArgs
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	if a.Content == nil {
		return "", errors.New(`"content" is required (use "" to write an empty file)`)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var n int
	err := t.dirs.do(a.Path, func(d *allowedDir, rel string) (err error) {
		if rel == "." || strings.HasSuffix(rel, "/") {
			return userErrorf("path %q names a directory; give a file name", a.Path)
		}
		if a.CreateDirs {
			if dir := path.Dir(rel); dir != "." {
				if err := d.root.MkdirAll(dir, 0o755); err != nil {
					return err
				}
			}
		}
		flag := os.O_WRONLY | os.O_CREATE | syscall.O_NONBLOCK // a FIFO without a reader fails instead of blocking
		if a.Append {
			flag |= os.O_APPEND
		}
		f, err := d.root.OpenFile(rel, flag, 0o644)
		if errors.Is(err, fs.ErrNotExist) && !a.CreateDirs {
			return userErrorf("path %q: the parent directory does not exist (set create_dirs to create it)", a.Path)
		} else if err != nil {
			return err
		}
		defer func() {
			if cerr := f.Close(); err == nil && cerr != nil {
				err = userErrorf("writing %q: %v", a.Path, describeOSError(cerr))
			}
		}()
		fi, err := f.Stat()
		switch {
		case err != nil:
			return err
		case !fi.Mode().IsRegular():
			return userErrorf("path %q is %s, not a regular file", a.Path, filekind.Of(fi.Mode()))
		}
		if err := t.dirs.checkLinks(a.Path, fi); err != nil {
			return err
		}
		// Truncate only after these checks, so that a device, a pipe or a file with another name
		// outside is never touched.
		if !a.Append {
			if err := f.Truncate(0); err != nil {
				return err
			}
		}
		n, err = f.WriteString(*a.Content)
		if err != nil {
			return userErrorf("writing %q: %v (%d bytes written)", a.Path, describeOSError(err), n)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if a.Append {
		return fmt.Sprintf("appended %d bytes to %s", n, a.Path), nil
	}
	return fmt.Sprintf("wrote %d bytes to %s", n, a.Path), nil
}
