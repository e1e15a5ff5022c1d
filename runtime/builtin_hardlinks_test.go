package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// A policy's allow_hardlinks reaches fs_read: without it a hard link to a file outside the
// allowed paths is refused, with it the file is read.
func TestPolicyAllowHardlinks(t *testing.T) {
	for _, allow := range []bool{false, true} {
		f := newFixture(decl.Agent{Name: "a", Use: useTools("read_file")})
		for i := range f.reg.Policies {
			f.reg.Policies[i].AllowHardlinks = allow
		}
		opts := f.opts(&events{})
		opts.Workdir = workspace(t)
		if err := os.Link(filepath.Join(opts.Workdir, "secret.txt"), filepath.Join(opts.Workdir, "workspace", "link.txt")); err != nil {
			t.Fatal(err)
		}
		s := open(t, f.reg, "a", opts)
		r := call(t, s, "read_file", `{"path":"workspace/link.txt"}`)
		if allow != r.OK || allow != strings.Contains(r.Result, "secret") {
			t.Errorf("allow_hardlinks = %v: read through a hard link = %+v", allow, r)
		}
	}
}
