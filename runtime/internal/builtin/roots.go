package builtin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// allowedDir is one allowed path opened as an os.Root. Every file access of fs_read and fs_write
// goes through one of these handles, so the kernel-level checks of os.Root (no "..", absolute
// or symlink escape) apply to the whole path after the root.
type allowedDir struct {
	name  string     // as the policy wrote it, for messages
	parts [][]string // path components of the absolute directory (and of its real path, if different)
	root  *os.Root
}

// allowedDirs is the set of roots of one tool plus the directory relative paths start from.
type allowedDirs struct {
	workdir        string
	dirs           []allowedDir // longest directory first, so nested roots match most specifically
	allowHardlinks bool         // the policy's allow_hardlinks
}

// openAllowedDirs opens every allowed path as a root. Relative allowed paths are relative to
// workdir (the current directory when empty). With create, missing directories are made first:
// a write policy commonly names an output directory that does not exist yet.
func openAllowedDirs(workdir string, allowed []string, create bool) (*allowedDirs, error) {
	if len(allowed) == 0 {
		return nil, errors.New("no allowed paths given")
	}
	if workdir == "" {
		workdir = "."
	}
	absWork, err := filepath.Abs(workdir)
	if err != nil {
		return nil, fmt.Errorf("workdir %q: %w", workdir, err)
	}
	ds := &allowedDirs{workdir: absWork}
	for _, name := range allowed {
		d, err := openAllowedDir(absWork, name, create)
		if err != nil {
			ds.close()
			return nil, err
		}
		ds.dirs = append(ds.dirs, d)
	}
	// sort, not slices: one shared stable sort rather than one compiled for
	// this type (search.Build says more).
	sort.SliceStable(ds.dirs, func(i, j int) bool { return len(ds.dirs[i].parts[0]) > len(ds.dirs[j].parts[0]) })
	return ds, nil
}

func openAllowedDir(workdir, name string, create bool) (allowedDir, error) {
	if name == "" || strings.ContainsRune(name, 0) {
		return allowedDir{}, fmt.Errorf("allowed path %q is not a valid path", name)
	}
	dir := name
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(workdir, dir)
	}
	dir = filepath.Clean(dir)
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return allowedDir{}, fmt.Errorf("allowed path %q: %w", name, describeOSError(err))
		}
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return allowedDir{}, fmt.Errorf("allowed path %q: %w", name, describeOSError(err))
	}
	d := allowedDir{name: name, root: r, parts: [][]string{components(dir)}}
	// An absolute request may name the directory by its real path (say /private/tmp for /tmp).
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		d.parts = append(d.parts, components(real))
	}
	return d, nil
}

func (ds *allowedDirs) close() error {
	var errs []error
	for _, d := range ds.dirs {
		errs = append(errs, d.root.Close())
	}
	return errors.Join(errs...)
}

// names lists the allowed paths for error messages.
func (ds *allowedDirs) names() string {
	var names []string
	for _, d := range ds.dirs {
		names = append(names, fmt.Sprintf("%q", d.name))
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// match lists the allowed roots a requested path lies in, most specific first, each with the
// path relative to that root. A root is chosen by the leading components of the path; the rest,
// including any ".." and symlinks, is left for os.Root to resolve, so it cannot climb out. A path
// whose leading components only reach a root after lexical cleaning ("other/../workspace/f")
// is matched cleaned.
func (ds *allowedDirs) match(p string) ([]rootedPath, error) {
	if p == "" {
		return nil, errors.New(`"path" is required`)
	}
	if strings.ContainsRune(p, 0) {
		return nil, fmt.Errorf("path %q contains a NUL byte", p)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = ds.workdir + string(filepath.Separator) + p
	}
	dirSlash := strings.HasSuffix(p, "/")
	out := ds.matchComponents(components(abs), dirSlash)
	if len(out) == 0 {
		out = ds.matchComponents(components(filepath.Clean(abs)), dirSlash)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("path %q is outside the allowed paths (%s)", p, ds.names())
	}
	return out, nil
}

func (ds *allowedDirs) matchComponents(comps []string, dirSlash bool) []rootedPath {
	var out []rootedPath
	for i := range ds.dirs {
		d := &ds.dirs[i]
		for _, prefix := range d.parts {
			if len(comps) < len(prefix) || !slices.Equal(comps[:len(prefix)], prefix) {
				continue
			}
			rel := strings.Join(comps[len(prefix):], "/")
			if rel == "" {
				rel = "."
			} else if dirSlash {
				rel += "/" // keep "file/" an error, as it is for the OS
			}
			out = append(out, rootedPath{d, rel})
			break
		}
	}
	return out
}

// rootedPath is a requested path relative to one allowed root.
type rootedPath struct {
	dir *allowedDir
	rel string
}

// do runs op on the requested path inside the most specific allowed root. When the path leaves
// that root (say "out/../notes.txt" with roots "." and "out"), the next root that contains it
// gets a try, so nested roots allow exactly their union. Errors are worded for the model.
func (ds *allowedDirs) do(p string, op func(d *allowedDir, rel string) error) error {
	matches, err := ds.match(p)
	if err != nil {
		return err
	}
	for _, m := range matches {
		err = op(m.dir, m.rel)
		if !isEscape(err) {
			break
		}
	}
	if err != nil {
		return pathError(p, matches[len(matches)-1].dir, err)
	}
	return nil
}

// checkLinks refuses a regular file that has more than one name, unless the policy allows hard
// links. os.Root confines names, not files: a hard link inside an allowed directory is the same
// file as its other names, which may lie anywhere on the file system. fi must come from the open
// file (fstat), so the answer is about the file actually read or written, whatever the path
// names by now.
func (ds *allowedDirs) checkLinks(p string, fi fs.FileInfo) error {
	if ds.allowHardlinks || !fi.Mode().IsRegular() {
		return nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return userErrorf("path %q is a file with %d hard links, and another of its names may lie outside the allowed paths; hard links are refused unless the policy sets allow_hardlinks = true", p, st.Nlink)
	}
	return nil
}

// components splits a path into its names, dropping empty and "." names, which never change
// what a path refers to.
func components(p string) []string {
	var out []string
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// pathError turns an error from an os.Root operation on the requested path p into a message for
// the model: what went wrong, in words, without the absolute root directory.
func pathError(p string, d *allowedDir, err error) error {
	var msg *userError
	switch {
	case errors.As(err, &msg):
		return msg
	case isEscape(err):
		return fmt.Errorf("path %q escapes the allowed path %q (through \"..\" or a symbolic link that leads outside it)", p, d.name)
	}
	return fmt.Errorf("path %q: %w", p, describeOSError(err))
}

// userError is an error already worded for the model; pathError passes it through.
type userError struct{ msg string }

func (e *userError) Error() string { return e.msg }

func userErrorf(format string, args ...any) error {
	return &userError{fmt.Sprintf(format, args...)}
}

// isEscape reports whether os.Root refused a path for leaving the root. The sentinel is not
// exported, so its text is the contract (stable since Go 1.24).
func isEscape(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err.Error() == "path escapes from parent"
}

// describeOSError strips the operation and path from OS errors and names the common causes.
func describeOSError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file or directory")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied")
	case errors.Is(err, syscall.ENOTDIR), err.Error() == "not a directory":
		return errors.New("not a directory")
	case errors.Is(err, syscall.EISDIR):
		return errors.New("is a directory")
	case errors.Is(err, syscall.ELOOP):
		return errors.New("too many levels of symbolic links")
	case errors.Is(err, syscall.ENAMETOOLONG):
		return errors.New("path is too long or has too many \"..\" or symlink steps")
	}
	return err
}
