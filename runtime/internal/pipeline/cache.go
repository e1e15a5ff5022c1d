package pipeline

import (
	"sync"
	"time"
)

// Cache keeps successful tool outputs for a server's cache TTL, keyed by
// tool and arguments. It belongs to one agent context.
type Cache struct {
	mu sync.Mutex
	m  map[string]cached
}

type cached struct {
	out     Output
	expires time.Time
}

// maxCached bounds the entries; expired ones are swept when it is reached.
const maxCached = 4096

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{m: map[string]cached{}} }

// Get returns the output cached under key, if it has not expired.
func (c *Cache) Get(key string) (Output, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	if !ok {
		return Output{}, false
	}
	if time.Now().After(v.expires) {
		delete(c.m, key)
		return Output{}, false
	}
	return v.out, true
}

// Put caches out under key for ttl; a full cache drops expired entries
// first, and the new one when none has expired.
func (c *Cache) Put(key string, out Output, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if len(c.m) >= maxCached {
		for k, v := range c.m {
			if now.After(v.expires) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCached {
			return
		}
	}
	c.m[key] = cached{out, now.Add(ttl)}
}
