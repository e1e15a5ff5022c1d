// Package storetest checks that a store.Store behaves as the runtime
// expects; every store package runs it against a live store.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/store"
)

// Run checks st. prefix keeps this run's keys apart from others in the
// same store.
func Run(t *testing.T, st store.Store, prefix string) {
	ctx := context.Background()
	k := func(s string) string { return prefix + s }

	t.Run("keys", func(t *testing.T) {
		if _, ok, err := st.Get(ctx, k("absent")); ok || err != nil {
			t.Fatalf("Get(absent) = ok %v, %v", ok, err)
		}
		must(t, st.Set(ctx, k("a"), []byte("one"), 0))
		if v, ok, err := st.Get(ctx, k("a")); !ok || err != nil || string(v) != "one" {
			t.Fatalf("Get(a) = %q %v %v", v, ok, err)
		}
		if ok, err := st.SetNew(ctx, k("a"), []byte("two"), 0); ok || err != nil {
			t.Fatalf("SetNew over a present key = %v, %v; want false", ok, err)
		}
		if ok, err := st.SetNew(ctx, k("b"), []byte("two"), 0); !ok || err != nil {
			t.Fatalf("SetNew(b) = %v, %v; want true", ok, err)
		}
		if ok, err := st.Swap(ctx, k("a"), []byte("nope"), []byte("three"), 0); ok || err != nil {
			t.Fatalf("Swap with a wrong old value = %v, %v", ok, err)
		}
		if ok, err := st.Swap(ctx, k("a"), []byte("one"), []byte("three"), 0); !ok || err != nil {
			t.Fatalf("Swap = %v, %v", ok, err)
		}
		if ok, err := st.Swap(ctx, k("absent"), nil, []byte("x"), 0); ok || err != nil {
			t.Fatalf("Swap of an absent key = %v, %v", ok, err)
		}
		if v, _, _ := st.Get(ctx, k("a")); string(v) != "three" {
			t.Fatalf("after Swap: %q", v)
		}
		must(t, st.Delete(ctx, k("a"), k("b"), k("never")))
		if _, ok, _ := st.Get(ctx, k("a")); ok {
			t.Fatal("a survived Delete")
		}
	})

	t.Run("ttl", func(t *testing.T) {
		must(t, st.Set(ctx, k("short"), []byte("x"), 50*time.Millisecond))
		if ok, _ := st.SetNew(ctx, k("short"), []byte("y"), 0); ok {
			t.Fatal("SetNew replaced a live key")
		}
		waitGone(t, func() bool { _, ok, _ := st.Get(ctx, k("short")); return !ok })
		if ok, err := st.SetNew(ctx, k("short"), []byte("y"), 0); !ok || err != nil {
			t.Fatalf("SetNew after expiry = %v, %v", ok, err)
		}
	})

	t.Run("take", func(t *testing.T) {
		if ok, used, err := st.Take(ctx, k("c"), 3, 5, time.Minute); !ok || used != 3 || err != nil {
			t.Fatalf("Take 3 of 5 = %v %d %v", ok, used, err)
		}
		if ok, used, err := st.Take(ctx, k("c"), 3, 5, time.Minute); ok || used != 3 || err != nil {
			t.Fatalf("Take 3 more of 5 = %v %d %v; want refused at 3", ok, used, err)
		}
		if ok, used, _ := st.Take(ctx, k("c"), 2, 5, time.Minute); !ok || used != 5 {
			t.Fatalf("Take the last 2 = %v %d", ok, used)
		}
		// The window starts at the first addition and ends the counter.
		st.Take(ctx, k("w"), 1, 1, 50*time.Millisecond)
		waitGone(t, func() bool { ok, _, _ := st.Take(ctx, k("w"), 1, 1, 50*time.Millisecond); return ok })
	})

	t.Run("take_concurrent", func(t *testing.T) {
		// 8 writers, 200 takes, a limit of 50: exactly 50 succeed.
		var granted atomic.Int64
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 25 {
					ok, _, err := st.Take(ctx, k("race"), 1, 50, time.Minute)
					if err != nil {
						t.Errorf("writer %d: %v", w, err)
						return
					}
					if ok {
						granted.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		if g := granted.Load(); g != 50 {
			t.Fatalf("granted %d of a limit of 50", g)
		}
	})

	t.Run("blob", func(t *testing.T) {
		data := []byte(strings.Repeat("0123456789", 1000))
		must(t, st.PutBlob(ctx, k("blob"), data, time.Minute))
		chunk, size, err := st.ReadBlob(ctx, k("blob"), 9995, 100)
		if err != nil || size != len(data) || string(chunk) != "56789" {
			t.Fatalf("ReadBlob tail = %q %d %v", chunk, size, err)
		}
		chunk, _, _ = st.ReadBlob(ctx, k("blob"), 10, 5)
		if string(chunk) != "01234" {
			t.Fatalf("ReadBlob middle = %q", chunk)
		}
		if _, _, err := st.ReadBlob(ctx, k("no-blob"), 0, 10); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("ReadBlob(absent) = %v; want ErrNotFound", err)
		}
	})

	t.Run("list", func(t *testing.T) {
		for i := range 5 {
			must(t, st.Append(ctx, k("list"), fmt.Appendf(nil, "e%d", i), 3, time.Minute))
		}
		got, err := st.List(ctx, k("list"), 10)
		if err != nil || len(got) != 3 || string(got[0]) != "e2" || string(got[2]) != "e4" {
			t.Fatalf("List = %q %v; want the newest 3, oldest first", got, err)
		}
		got, _ = st.List(ctx, k("list"), 2)
		if len(got) != 2 || string(got[0]) != "e3" {
			t.Fatalf("List(2) = %q", got)
		}
		if got, err := st.List(ctx, k("no-list"), 2); len(got) != 0 || err != nil {
			t.Fatalf("List(absent) = %q %v", got, err)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// waitGone polls cond for up to 5 s: expiry is the store's own clock.
func waitGone(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("the key did not expire within 5 s")
}
