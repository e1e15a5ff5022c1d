package runtime

import (
	"sync"
	"time"
)

// responseCache keeps successful tool outputs for a server's cache TTL,
// keyed by tool and arguments. It belongs to one agent context.
type responseCache struct {
	mu sync.Mutex
	m  map[string]cached
}

type cached struct {
	out     string
	expires time.Time
}

// maxCached bounds the entries; expired ones are swept when it is reached.
const maxCached = 4096

func newResponseCache() *responseCache { return &responseCache{m: map[string]cached{}} }

func (c *responseCache) get(key string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	if !ok {
		return "", false
	}
	if time.Now().After(v.expires) {
		delete(c.m, key)
		return "", false
	}
	return v.out, true
}

func (c *responseCache) put(key, out string, ttl time.Duration) {
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
