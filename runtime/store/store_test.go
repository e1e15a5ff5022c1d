package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolgen-dev/toolgen/runtime/store"
	"github.com/toolgen-dev/toolgen/runtime/store/storetest"
)

func TestMemory(t *testing.T) { storetest.Run(t, store.NewMemory(), "t/") }

func TestOpen(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{"", "memory", "memory://"} {
		st, err := store.Open(ctx, u, nil)
		if err != nil || st.Name() != "memory" {
			t.Fatalf("Open(%q) = %v, %v", u, st, err)
		}
	}
	cases := []struct{ url, want string }{
		// The root package links no client: the error says what to add.
		{"redis://127.0.0.1:6379/0", `import _ "github.com/toolgen-dev/toolgen/runtime/store/redis"`},
		{"rediss://h:6380/0", `store scheme "rediss" is not linked`},
		{"etcd://h:1", `unknown store scheme "etcd" (linked: memory)`},
		{"127.0.0.1:6379", "want SCHEME://HOST:PORT"},
		{"redis://user:hunter2secret@h:1/0", "TOOLGEN_STORE_PASSWORD"},
	}
	for _, c := range cases {
		_, err := store.Open(ctx, c.url, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%q) = %v; want %q", c.url, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2secret") {
			t.Errorf("Open(%q) error shows the password: %v", c.url, err)
		}
	}
}

func TestRedact(t *testing.T) {
	got := store.Redact("rediss://u:pw@h:6380/2?password=x")
	if strings.Contains(got, "pw@") || strings.Contains(got, "password=x") {
		t.Fatalf("Redact = %q", got)
	}
}
