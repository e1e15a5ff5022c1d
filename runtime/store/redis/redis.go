// Package redis is the Redis store (store.Store) for agents that run as
// several replicas. Importing it registers the redis:// and rediss://
// (TLS) schemes with runtime/store; a binary that does not import it does
// not link a Redis client:
//
//	import _ "github.com/toolgen-dev/toolgen/runtime/store/redis"
//
// The URL is redis://[USER@]HOST:PORT/DB, with go-redis's query options
// (dial_timeout, pool_size …) and one of ours, prefix (default
// "toolgen:"), put before every key so that agents can share a database.
// The password comes from TOOLGEN_STORE_PASSWORD, never from the URL; a
// rediss:// store checks the server against the system's roots, or
// against the PEM file TOOLGEN_STORE_CA names.
package redis

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/toolgen-dev/toolgen/runtime/internal/fleet"
	"github.com/toolgen-dev/toolgen/runtime/serve"
	"github.com/toolgen-dev/toolgen/runtime/store"
)

// EnvCA names a PEM file of the CA that signed a rediss:// server's
// certificate, for a server whose certificate the system does not trust.
const EnvCA = "TOOLGEN_STORE_CA"

func init() {
	fleet.Enable()             // replicas sharing this store show each other on their status pages
	serve.EnableSharedRounds() // and answer each other's input-required rounds
	store.Register("redis", Open)
	store.Register("rediss", Open)
	// go-redis prints its connection errors to stderr; each operation
	// already returns them (store.Unavailable) to whoever can say more.
	goredis.SetLogger(quiet{})
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// Store is a store.Store on one Redis database.
type Store struct {
	c      *goredis.Client
	name   string // the URL without secrets
	prefix string
}

var _ store.Store = (*Store)(nil)

// Open connects to the Redis database u names (it does not wait for an
// answer: store.Open pings).
func Open(_ context.Context, u *url.URL, getenv func(string) (string, bool)) (store.Store, error) {
	name := store.Redact(u.String())
	q := u.Query()
	prefix := "toolgen:"
	if q.Has("prefix") {
		prefix = q.Get("prefix")
		q.Del("prefix")
	}
	clean := *u
	clean.RawQuery = q.Encode()
	o, err := goredis.ParseURL(clean.String())
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", name, err)
	}
	if o.Password != "" {
		return nil, fmt.Errorf("store %s: put the password in %s, not in the URL", name, store.EnvPassword)
	}
	if pw, ok := getenv(store.EnvPassword); ok {
		o.Password = pw
	}
	if o.TLSConfig != nil {
		if ca, ok := getenv(EnvCA); ok && ca != "" {
			pool, err := loadCA(ca)
			if err != nil {
				return nil, fmt.Errorf("store %s: %s: %w", name, EnvCA, err)
			}
			o.TLSConfig.RootCAs = pool
		}
	}
	// A store that is down must fail a call quickly, not hold it: one
	// retry, short timeouts, unless the URL says otherwise.
	if !q.Has("dial_timeout") {
		o.DialTimeout = time.Second
	}
	if !q.Has("read_timeout") {
		o.ReadTimeout = time.Second
	}
	if !q.Has("write_timeout") {
		o.WriteTimeout = time.Second
	}
	if !q.Has("max_retries") {
		o.MaxRetries = 1
	}
	if !q.Has("pool_timeout") {
		o.PoolTimeout = 2 * time.Second
	}
	o.DisableIdentity = true // no CLIENT SETINFO: older servers log an error for it
	return &Store{c: goredis.NewClient(o), name: name, prefix: prefix}, nil
}

func loadCA(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("no PEM certificate in " + path)
	}
	return pool, nil
}

// TLS returns the client's TLS settings (nil for redis://), for tests.
func (s *Store) TLS() *tls.Config { return s.c.Options().TLSConfig }

func (s *Store) Name() string { return s.name }

func (s *Store) Close() error { return s.c.Close() }

func (s *Store) Ping(ctx context.Context) error { return s.fail(s.c.Ping(ctx).Err()) }

// fail wraps an error of the connection as store.Unavailable, naming the
// store; nil stays nil.
func (s *Store) fail(err error) error {
	if err == nil {
		return nil
	}
	return &store.Unavailable{Store: s.name, Err: err}
}

func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := s.c.Get(ctx, s.prefix+key).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.fail(err)
	}
	return v, true, nil
}

func (s *Store) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return s.fail(s.c.Set(ctx, s.prefix+key, value, ttl).Err())
}

func (s *Store) SetNew(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	err := s.c.SetArgs(ctx, s.prefix+key, value, goredis.SetArgs{Mode: "NX", TTL: ttl}).Err()
	if errors.Is(err, goredis.Nil) {
		return false, nil
	}
	return err == nil, s.fail(err)
}

// The scripts run atomically on the server: no other client's command
// falls between their read and their write.
var (
	swapScript = goredis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v ~= ARGV[1] then return 0 end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[2])
end
return 1`)
	takeScript = goredis.NewScript(`
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local n = tonumber(ARGV[1])
if used + n > tonumber(ARGV[2]) then return {0, used} end
used = redis.call('INCRBY', KEYS[1], n)
if used == n and tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, used}`)
	readScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local size = redis.call('STRLEN', KEYS[1])
if tonumber(ARGV[2]) < tonumber(ARGV[1]) then return {size, ''} end
return {size, redis.call('GETRANGE', KEYS[1], ARGV[1], ARGV[2])}`)
)

func (s *Store) Swap(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	n, err := swapScript.Run(ctx, s.c, []string{s.prefix + key}, old, value, ttl.Milliseconds()).Int()
	return n == 1, s.fail(err)
}

func (s *Store) Delete(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	full := make([]string, len(keys))
	for i, k := range keys {
		full[i] = s.prefix + k
	}
	return s.fail(s.c.Del(ctx, full...).Err())
}

func (s *Store) Take(ctx context.Context, key string, n, limit int64, window time.Duration) (bool, int64, error) {
	r, err := takeScript.Run(ctx, s.c, []string{s.prefix + key}, n, limit, window.Milliseconds()).Int64Slice()
	if err != nil {
		return false, 0, s.fail(err)
	}
	if len(r) != 2 {
		return false, 0, fmt.Errorf("store %s: unexpected answer %v to a take", s.name, r)
	}
	return r[0] == 1, r[1], nil
}

func (s *Store) PutBlob(ctx context.Context, key string, data []byte, ttl time.Duration) error {
	return s.Set(ctx, key, data, ttl)
}

func (s *Store) ReadBlob(ctx context.Context, key string, offset, n int) ([]byte, int, error) {
	offset = max(offset, 0)
	// GETRANGE's end is inclusive; an end before the start reads nothing.
	r, err := readScript.Run(ctx, s.c, []string{s.prefix + key}, offset, offset+n-1).Slice()
	if errors.Is(err, goredis.Nil) {
		return nil, 0, store.ErrNotFound
	}
	if err != nil {
		return nil, 0, s.fail(err)
	}
	size, _ := r[0].(int64)
	chunk, _ := r[1].(string)
	return []byte(chunk), int(size), nil
}

func (s *Store) Append(ctx context.Context, key string, value []byte, max int, ttl time.Duration) error {
	k := s.prefix + key
	_, err := s.c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.RPush(ctx, k, value)
		if max > 0 {
			p.LTrim(ctx, k, int64(-max), -1)
		}
		if ttl > 0 {
			p.PExpire(ctx, k, ttl)
		}
		return nil
	})
	return s.fail(err)
}

func (s *Store) List(ctx context.Context, key string, n int) ([][]byte, error) {
	start := int64(0)
	if n > 0 {
		start = int64(-n)
	}
	vs, err := s.c.LRange(ctx, s.prefix+key, start, -1).Result()
	if err != nil {
		return nil, s.fail(err)
	}
	out := make([][]byte, len(vs))
	for i, v := range vs {
		out[i] = []byte(v)
	}
	return out, nil
}
