package templates

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDiffApplies checks Diff against patch(1) on random edits, new files
// and stale outputs: applying the diff to the directory must leave what
// Write leaves.
func TestDiffApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch(1) not installed")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	t.Chdir(t.TempDir())
	for i := range 200 {
		dir := fmt.Sprintf("out%d", i)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		a := randomLines(rng, rng.IntN(40))
		b := mutate(rng, a)
		if i%17 == 0 {
			b = randomLines(rng, rng.IntN(40)) // unrelated texts
		}
		as, bs := Header+"\n"+strings.Join(a, ""), Header+"\n"+strings.Join(b, "")
		if i%23 == 0 {
			bs = strings.TrimSuffix(bs, "\n") // no newline at end
		}
		write(t, filepath.Join(dir, "f.go"), as)
		files := map[string][]byte{"f.go": []byte(bs)}
		if i%5 == 0 {
			files["new.go"] = []byte(Header + "\n" + strings.Join(randomLines(rng, 1+rng.IntN(5)), ""))
		}
		if i%7 == 0 {
			write(t, filepath.Join(dir, "stale.go"), Header+"\n"+strings.Join(randomLines(rng, 1+rng.IntN(5)), ""))
		}
		d, err := Diff(dir, files)
		if err != nil {
			t.Fatal(err)
		}
		if len(d) == 0 {
			if as != bs || len(files) > 1 {
				t.Fatalf("case %d: no diff for different files", i)
			}
			continue
		}
		cmd := exec.Command("patch", "-s", "-p0", "-E")
		cmd.Stdin = strings.NewReader(string(d))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("case %d: patch failed: %v\n%s\ndiff:\n%s", i, err, out, d)
		}
		for name, want := range files {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || string(got) != string(want) {
				t.Fatalf("case %d: %s after patch = %q, %v; want %q\ndiff:\n%s", i, name, got, err, want, d)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "stale.go")); !os.IsNotExist(err) {
			t.Fatalf("case %d: the stale output survived the patch\ndiff:\n%s", i, d)
		}
		if d, err := Diff(dir, files); err != nil || len(d) != 0 {
			t.Fatalf("case %d: diff after patch: %v\n%s", i, err, d)
		}
	}
}

// TestDiffSmallHunks: a few changed lines in a long file give small hunks,
// however far apart (a registry of thousands of tools changes in places).
func TestDiffSmallHunks(t *testing.T) {
	dir := t.TempDir()
	var a, b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&a, "\t// tool %d\n\t},\n", i)
		if i%200 == 0 {
			fmt.Fprintf(&b, "\t// tool %d, changed\n\t},\n", i)
		} else {
			fmt.Fprintf(&b, "\t// tool %d\n\t},\n", i)
		}
	}
	write(t, filepath.Join(dir, "f.go"), a.String())
	d, err := Diff(dir, map[string][]byte{"f.go": []byte(b.String())})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(d), "\n-\t// tool"); n != 100 {
		t.Errorf("%d lines removed, want 100", n)
	}
	if len(d) > 100*200 {
		t.Errorf("diff of 100 changed lines is %d bytes", len(d))
	}
	path := filepath.ToSlash(filepath.Join(dir, "f.go"))
	if want := "--- " + path + "\n+++ " + path + "\n@@ -1,4 +1,4 @@\n-\t// tool 0\n+\t// tool 0, changed\n"; !strings.Contains(string(d), want) {
		t.Errorf("diff does not start with\n%s\ngot\n%.300s", want, d)
	}
}

// TestWrite: changed files are replaced, unchanged ones keep their
// modification time, stale outputs go, other files stay.
func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gen")
	files := map[string][]byte{"a_gen.go": []byte(Header + "\npackage a\n"), "b_gen.go": []byte(Header + "\npackage a\n\nvar B = 1\n")}
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for name := range files {
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(dir, "stale_gen.go"), Header+"\npackage a\n")
	write(t, filepath.Join(dir, "mine.go"), "package a\n")
	files["b_gen.go"] = []byte(Header + "\npackage a\n\nvar B = 2\n")
	if err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "a_gen.go")); err != nil || !st.ModTime().Equal(old) {
		t.Errorf("unchanged a_gen.go was rewritten")
	}
	if st, err := os.Stat(filepath.Join(dir, "b_gen.go")); err != nil || st.ModTime().Equal(old) {
		t.Errorf("changed b_gen.go kept its old modification time")
	}
	if _, err := os.Stat(filepath.Join(dir, "stale_gen.go")); !os.IsNotExist(err) {
		t.Errorf("stale output kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "mine.go")); err != nil {
		t.Errorf("a file without the header was removed: %v", err)
	}
	if d, err := Diff(dir, files); err != nil || len(d) != 0 {
		t.Errorf("Diff after Write: %v\n%s", err, d)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func randomLines(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d\n", rng.IntN(8))
	}
	return out
}

func mutate(rng *rand.Rand, a []string) []string {
	b := append([]string(nil), a...)
	for range rng.IntN(5) {
		switch i := rng.IntN(len(b) + 1); rng.IntN(3) {
		case 0:
			b = append(b[:i], append([]string{fmt.Sprintf("new %d\n", rng.IntN(100))}, b[i:]...)...)
		case 1:
			if i < len(b) {
				b = append(b[:i], b[i+1:]...)
			}
		case 2:
			if i < len(b) {
				b[i] = "changed\n"
			}
		}
	}
	return b
}
