package hcl

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLockRoundTrip(t *testing.T) {
	l := &Lock{Servers: map[string]*LockServer{
		"b": {Tools: []LockTool{
			{Name: "z", InputSchema: json.RawMessage(`{ "type": "object" }`)},
			{Name: "a", Description: "first"},
		}},
		"a": {Tools: []LockTool{}},
	}}
	b, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 1,
  "servers": {
    "a": {
      "tools": []
    },
    "b": {
      "tools": [
        {
          "name": "a",
          "description": "first",
          "hash": "` + ToolHash("a", "first", nil) + `"
        },
        {
          "name": "z",
          "inputSchema": {
            "type": "object"
          },
          "hash": "` + ToolHash("z", "", json.RawMessage(`{"type":"object"}`)) + `"
        }
      ]
    }
  }
}
`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("Marshal (-want +got):\n%s", diff)
	}
	back, err := ParseLock(b)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := back.Marshal()
	if diff := cmp.Diff(string(b), string(again)); diff != "" {
		t.Errorf("Marshal(ParseLock(x)) != x (-want +got):\n%s", diff)
	}
}

func TestToolHash(t *testing.T) {
	base := ToolHash("echo", "Echo.", json.RawMessage(`{"type":"object"}`))
	if !strings.HasPrefix(base, "sha256:") || len(base) != len("sha256:")+64 {
		t.Fatalf("hash %q", base)
	}
	if got := ToolHash("echo", "Echo.", json.RawMessage("{ \"type\" : \"object\" }\n")); got != base {
		t.Errorf("whitespace in the schema changed the hash")
	}
	for _, other := range []string{
		ToolHash("echo2", "Echo.", json.RawMessage(`{"type":"object"}`)),
		ToolHash("echo", "Echo!", json.RawMessage(`{"type":"object"}`)),
		ToolHash("echo", "Echo.", json.RawMessage(`{"type":"object","properties":{}}`)),
		ToolHash("echoE", "cho.", json.RawMessage(`{"type":"object"}`)),
	} {
		if other == base {
			t.Errorf("a different tool has the same hash")
		}
	}
}

func TestLockErrors(t *testing.T) {
	spec := []byte("tool \"t\" {\n  description = \"T.\"\n  go = \"example.com/t.T\"\n}\nagent \"a\" {\n  tools { use = [tool.t] }\n}\n")
	for _, tc := range []struct {
		name, lock, want string
		line             int
	}{
		{"syntax", "{\n  \"version\": 1,\n  \"servers\": {,}\n}\n", "Invalid lock file", 3},
		{"version", `{"version": 2, "servers": {}}`, "Invalid lock file", 1},
		{"unknown field", `{"version": 1, "servers": {}, "extra": true}`, "Invalid lock file", 1},
		{"duplicate tool", `{"version": 1, "servers": {"s": {"tools": [{"name": "a"}, {"name": "a"}]}}}`, "Invalid lock file", 1},
		{"trailing data", "{\"version\": 1, \"servers\": {}}\n\n  garbage\n", "Invalid lock file", 3},
		{"second object", "{\"version\": 1, \"servers\": {}}\n{\"version\": 1}\n", "Invalid lock file", 2},
		{"wrong type", "{\n\"version\": 1,\n\"servers\": {\"s\": {\"tools\": [{\"name\": 7}]}}}", "Invalid lock file", 3},
		{"undeclared server", "{\n\"version\": 1,\n\"servers\": {\"gone\": {\"tools\": []}}}", "Locked server not declared", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, diags := LoadFiles("spec", map[string][]byte{"main.hcl": spec, LockFileName: []byte(tc.lock)})
			if len(diags) != 1 {
				t.Fatalf("want one diagnostic, got %v", diags)
			}
			d := diags[0]
			if d.Summary != tc.want || d.Subject == nil || d.Subject.Start.Line != tc.line || d.Subject.Filename != filepath.Join("spec", LockFileName) {
				t.Errorf("got %q at %v, want %q on line %d of the lock file", d.Summary, d.Subject, tc.want, tc.line)
			}
		})
	}
}
