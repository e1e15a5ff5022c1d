package builtin

import (
	"path/filepath"
	"strings"
)

// Scope is the sentence a builtin tool's description ends with: the
// directories it may touch (relative policy paths resolved against
// workdir) or the commands it may run, so that a model, and a person
// reading a host's tool list, see the confinement and the base it was
// resolved against. It is empty for an unknown builtin.
func Scope(builtin, workdir string, allowedPaths, allowedCommands []string) string {
	if abs, err := filepath.Abs(workdir); err == nil {
		workdir = abs
	}
	dirs := func() string {
		out := make([]string, len(allowedPaths))
		for i, p := range allowedPaths {
			if !filepath.IsAbs(p) {
				p = filepath.Join(workdir, p)
			}
			out[i] = filepath.Clean(p)
		}
		return strings.Join(out, ", ")
	}
	switch builtin {
	case "fs_read":
		return "Reads only inside " + dirs() + "; relative paths start at " + workdir + "."
	case "fs_write":
		return "Writes only inside " + dirs() + "; relative paths start at " + workdir + "."
	case "shell_exec":
		return "Runs only " + strings.Join(allowedCommands, ", ") + " (no shell), inside " + workdir + "."
	}
	return ""
}
