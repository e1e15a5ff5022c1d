package scaffold

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// ToolgenModule is the module of toolgen and its runtime.
const ToolgenModule = "github.com/toolgen-dev/toolgen"

// ToolgenSetup is what a module (mf; nil when there is none yet) needs
// before `go mod tidy` can find toolgen's runtime: nothing when go.mod
// replaces the module already; `go get` of this toolgen's release when it
// is one; otherwise — toolgen is not published as a module — a replace to
// the clone this toolgen was built from.
func ToolgenSetup(mf *modfile.File) []string {
	if mf != nil {
		for _, r := range mf.Replace {
			if r.Old.Path == ToolgenModule {
				return nil
			}
		}
	}
	if v := releaseVersion(); v != "" {
		return []string{"go get " + ToolgenModule + "@" + v}
	}
	return []string{"go mod edit -replace " + ToolgenModule + "=" + sourceDir()}
}

// releaseVersion is this toolgen's module version when it is a tagged
// release or a pseudo-version (`go install …@v`); "" for a build from a
// clone.
func releaseVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
	for _, m := range mods {
		if m.Path == ToolgenModule && m.Replace == nil && semver.IsValid(m.Version) {
			return m.Version
		}
	}
	return ""
}

// sourceDir is the clone this toolgen was built from, when the build kept
// its path (not -trimpath) and the clone is still there; else a
// placeholder the user fills in.
func sourceDir() string {
	_, file, _, ok := goruntime.Caller(0)
	if ok && filepath.IsAbs(file) {
		root := filepath.Dir(filepath.Dir(filepath.Dir(file))) // internal/scaffold/module.go
		if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err == nil && modfile.ModulePath(b) == ToolgenModule {
			return root
		}
	}
	return "/path/to/your/toolgen/clone"
}
