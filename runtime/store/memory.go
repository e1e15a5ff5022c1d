package store

import (
	"bytes"
	"context"
	"sync"
	"time"
)

// Memory is the embedded store: a map in this process, for an agent that
// runs as one process. Expired keys are dropped when next touched and by
// a sweep every so many writes, so that a long run does not keep them.
type Memory struct {
	mu     sync.Mutex
	keys   map[string]entry
	lists  map[string]list
	writes int
	now    func() time.Time
}

type entry struct {
	value   []byte
	expires time.Time // zero: never
}

type list struct {
	items   [][]byte
	expires time.Time
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty embedded store.
func NewMemory() *Memory {
	return &Memory{keys: map[string]entry{}, lists: map[string]list{}, now: time.Now}
}

func (m *Memory) Name() string { return "memory" }

func (m *Memory) Ping(context.Context) error { return nil }
func (m *Memory) Close() error               { return nil }

func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl <= 0 {
		return time.Time{}
	}
	return now.Add(ttl)
}

func live(exp, now time.Time) bool { return exp.IsZero() || now.Before(exp) }

// getLocked is a live key's entry.
func (m *Memory) getLocked(key string) (entry, bool) {
	e, ok := m.keys[key]
	if ok && !live(e.expires, m.now()) {
		delete(m.keys, key)
		return entry{}, false
	}
	return e, ok
}

func (m *Memory) setLocked(key string, value []byte, ttl time.Duration) {
	m.keys[key] = entry{bytes.Clone(value), expiry(m.now(), ttl)}
	if m.writes++; m.writes%1024 == 0 {
		m.sweepLocked()
	}
}

func (m *Memory) sweepLocked() {
	now := m.now()
	for k, e := range m.keys {
		if !live(e.expires, now) {
			delete(m.keys, k)
		}
	}
	for k, l := range m.lists {
		if !live(l.expires, now) {
			delete(m.lists, k)
		}
	}
}

func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.getLocked(key)
	return bytes.Clone(e.value), ok, nil
}

func (m *Memory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.setLocked(key, value, ttl)
	return nil
}

func (m *Memory) SetNew(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.getLocked(key); ok {
		return false, nil
	}
	m.setLocked(key, value, ttl)
	return true, nil
}

func (m *Memory) Swap(_ context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.getLocked(key)
	if !ok || !bytes.Equal(e.value, old) {
		return false, nil
	}
	m.setLocked(key, value, ttl)
	return true, nil
}

func (m *Memory) Delete(_ context.Context, keys ...string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		delete(m.keys, k)
		delete(m.lists, k)
	}
	return nil
}

func (m *Memory) Take(_ context.Context, key string, n, limit int64, window time.Duration) (bool, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.getLocked(key)
	var used int64
	if ok {
		used = decodeInt(e.value)
	}
	if used+n > limit {
		return false, used, nil
	}
	used += n
	if !ok {
		e.expires = expiry(m.now(), window)
	}
	m.keys[key] = entry{encodeInt(used), e.expires}
	return true, used, nil
}

func (m *Memory) PutBlob(ctx context.Context, key string, data []byte, ttl time.Duration) error {
	return m.Set(ctx, key, data, ttl)
}

func (m *Memory) ReadBlob(_ context.Context, key string, offset, n int) ([]byte, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.getLocked(key)
	if !ok {
		return nil, 0, ErrNotFound
	}
	size := len(e.value)
	offset = min(max(offset, 0), size)
	end := min(offset+max(n, 0), size)
	return bytes.Clone(e.value[offset:end]), size, nil
}

func (m *Memory) Append(_ context.Context, key string, value []byte, max int, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.lists[key]
	if !live(l.expires, m.now()) {
		l = list{}
	}
	l.items = append(l.items, bytes.Clone(value))
	if max > 0 && len(l.items) > max {
		l.items = append([][]byte(nil), l.items[len(l.items)-max:]...)
	}
	l.expires = expiry(m.now(), ttl)
	m.lists[key] = l
	return nil
}

func (m *Memory) List(_ context.Context, key string, n int) ([][]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.lists[key]
	if !ok || !live(l.expires, m.now()) {
		return nil, nil
	}
	items := l.items
	if n > 0 && len(items) > n {
		items = items[len(items)-n:]
	}
	out := make([][]byte, len(items))
	for i, v := range items {
		out[i] = bytes.Clone(v)
	}
	return out, nil
}
