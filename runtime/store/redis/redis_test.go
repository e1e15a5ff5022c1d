package redis_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/store"
	"github.com/toolgen-dev/toolgen/runtime/store/redis"
	"github.com/toolgen-dev/toolgen/runtime/store/redis/redistest"
	"github.com/toolgen-dev/toolgen/runtime/store/storetest"
)

func open(t *testing.T, url string, env map[string]string) (store.Store, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return store.Open(ctx, url, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
}

func TestRedis(t *testing.T) {
	srv := redistest.Start(t)
	st, err := open(t, srv.URL()+"?prefix=t1:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Name() != srv.URL() {
		t.Errorf("Name = %q; want the URL %q", st.Name(), srv.URL())
	}
	storetest.Run(t, st, "k/")
}

// A store that went away fails each operation with an error naming it,
// and serves again once it is back, without a new client.
func TestRedisRestart(t *testing.T) {
	srv := redistest.Start(t)
	st, err := open(t, srv.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.Set(ctx, "kept", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	_, _, err = st.Get(ctx, "kept")
	var down *store.Unavailable
	if !errors.As(err, &down) || !strings.Contains(err.Error(), srv.URL()) {
		t.Fatalf("Get with the store down = %v; want store.Unavailable naming %s", err, srv.URL())
	}
	if _, _, err := st.Take(ctx, "c", 1, 5, time.Minute); !errors.As(err, &down) {
		t.Fatalf("Take with the store down = %v", err)
	}
	srv.Restart()
	var v []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if v, _, err = st.Get(ctx, "kept"); err == nil {
			break
		}
	}
	if err != nil || string(v) != "v" {
		t.Fatalf("after the restart: %q, %v", v, err)
	}
}

func TestRedisURL(t *testing.T) {
	srv := redistest.Start(t)
	// Nothing listens on port 1: Open fails at once, naming the store.
	if _, err := open(t, "redis://127.0.0.1:1/0", nil); err == nil || !strings.Contains(err.Error(), "shared store redis://127.0.0.1:1/0 is unavailable") {
		t.Errorf("Open(closed port) = %v", err)
	}
	if _, err := open(t, srv.URL()+"?bogus=1", nil); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("Open(unknown option) = %v", err)
	}
	if _, err := open(t, "redis://127.0.0.1:1/x", nil); err == nil || !strings.Contains(err.Error(), "database number") {
		t.Errorf("Open(bad db) = %v", err)
	}
	// The password comes from the environment and shows in no error.
	const pw = "s3cret-store-password"
	locked := redistest.Start(t, "--requirepass", pw)
	if _, err := open(t, locked.URL(), nil); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Errorf("Open without the password = %v; want NOAUTH", err)
	}
	if _, err := open(t, locked.URL(), map[string]string{store.EnvPassword: "wrong-password-x"}); err == nil || strings.Contains(err.Error(), "wrong-password-x") {
		t.Errorf("Open with a wrong password = %v", err)
	}
	st, err := open(t, locked.URL(), map[string]string{store.EnvPassword: pw})
	if err != nil {
		t.Fatalf("Open with %s: %v", store.EnvPassword, err)
	}
	if strings.Contains(st.Name(), pw) {
		t.Errorf("Name shows the password: %s", st.Name())
	}
	st.Close()
	if s, err := store.Open(context.Background(), "rediss://127.0.0.1:1/0", nil); err == nil {
		s.Close()
		t.Fatal("rediss to a closed port opened")
	}
	u := "rediss://127.0.0.1:1/0"
	s, _ := redis.Open(context.Background(), mustURL(t, u), func(string) (string, bool) { return "", false })
	if tls := s.(*redis.Store).TLS(); tls == nil || tls.ServerName != "127.0.0.1" {
		t.Errorf("rediss: TLS = %+v; want TLS to the host", tls)
	}
}
