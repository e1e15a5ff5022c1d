package filekind

import (
	"io/fs"
	"testing"
)

func TestOf(t *testing.T) {
	for _, c := range []struct {
		mode fs.FileMode
		want string
	}{
		{fs.ModeNamedPipe, "a named pipe (FIFO)"},
		{fs.ModeSocket, "a socket"},
		{fs.ModeDevice | fs.ModeCharDevice, "a character device"},
		{fs.ModeDevice, "a device"},
		{fs.ModeDir | 0o755, "a directory"},
		{fs.ModeSymlink, "a symbolic link"},
		{0o644, "a regular file"},
		{fs.ModeIrregular, "a special file"},
	} {
		if got := Of(c.mode); got != c.want {
			t.Errorf("Of(%v) = %q, want %q", c.mode, got, c.want)
		}
	}
}
