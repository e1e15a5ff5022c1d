// Package buildinfo says which build of a module a binary holds: the
// version a release stamped in with -ldflags, else the module version Go
// recorded, and the VCS revision, time and modified flag of the build.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Module describes module path as built into this binary: its version
// (release when set, from -ldflags -X), what replaced it, and for the main
// module the VCS stamp. ok is false when the binary does not hold it.
func Module(path, release string) (desc string, ok bool) {
	bi, found := debug.ReadBuildInfo()
	if !found {
		return "(no build information)", false
	}
	mod, main := &bi.Main, true
	if mod.Path != path {
		mod, main = nil, false
		for _, d := range bi.Deps {
			if d.Path == path {
				mod = d
			}
		}
		if mod == nil {
			return "", false
		}
	}
	v := mod.Version
	if release != "" {
		v = release
	}
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	if r := mod.Replace; r != nil {
		// `go tool toolgen` from a local checkout: go.mod's replace.
		v += " => " + r.Path
		if r.Version != "" {
			v += " " + r.Version
		}
	}
	if main {
		v += vcs(bi.Settings)
	}
	return v, true
}

// vcs is " (commit REV, TIME, modified)" from the build's settings, or ""
// when the build was not stamped (go run, -buildvcs=false).
func vcs(settings []debug.BuildSetting) string {
	var parts []string
	for _, s := range settings {
		switch {
		case s.Key == "vcs.revision":
			parts = append([]string{fmt.Sprintf("commit %.12s", s.Value)}, parts...)
		case s.Key == "vcs.time":
			parts = append(parts, s.Value)
		case s.Key == "vcs.modified" && s.Value == "true":
			parts = append(parts, "modified")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
