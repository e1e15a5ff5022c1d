// Package filekind names what kind of file a mode is, in words, for the
// errors of everything that reads only regular files: the spec loader's
// file() and spec files (hcl) and the builtin file tools (runtime).
package filekind

import "io/fs"

// Of says what kind of file m is: "a named pipe (FIFO)", "a socket", "a
// character device", "a device", "a directory", "a symbolic link", "a
// regular file" or "a special file".
func Of(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}
