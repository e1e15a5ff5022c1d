package cmd

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionBuildInfo builds toolgen twice from this checkout: as a
// release (-ldflags -X …Version) and as a plain build, stamped with the
// checkout's commit. Neither says "(devel)".
func TestVersionBuildInfo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds toolgen twice")
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"release", []string{"-ldflags", "-X github.com/toolgen-dev/toolgen/internal/cmd.Version=v9.8.7"}, "toolgen v9.8.7"},
		{"clone", nil, "toolgen devel"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "toolgen")
			args := append(append([]string{"build", "-o", bin}, c.flags...), "./cmd/toolgen")
			build := exec.Command("go", args...)
			build.Dir = root
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			out, err := exec.Command(bin, "version").Output()
			if err != nil {
				t.Fatal(err)
			}
			// the commit, when this build was stamped with one (not in every sandbox)
			want := c.want
			if m, _ := exec.Command("go", "version", "-m", bin).Output(); strings.Contains(string(m), "vcs.revision=") {
				rev := string(m)[strings.Index(string(m), "vcs.revision=")+len("vcs.revision="):]
				want += " (commit " + rev[:12]
			}
			if !strings.HasPrefix(string(out), want) || strings.Contains(string(out), "(devel)") {
				t.Errorf("toolgen version:\n%s\nwant %q", out, c.want)
			}
		})
	}
}
