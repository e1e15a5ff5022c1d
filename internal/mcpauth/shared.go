package mcpauth

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/store"
)

// TokenStore is where a Handler keeps logins: the per-user files (*Store,
// the default) or the store a fleet of replicas shares (SharedTokens).
// Lock is held from reading a token to saving its refreshed successor, by
// every process using the store: one refresh serves them all.
type TokenStore interface {
	Load(Key) (*Entry, error)
	Save(Key, *Entry) error
	Delete(Key) error
	Lock(Key) (unlock func(), err error)
	// Dir says where the tokens are, for messages.
	Dir() string
}

var _ TokenStore = (*Store)(nil)

// sharedOpTimeout bounds one read or write of the shared store; a lock
// waits as long as a refresh may take.
const sharedOpTimeout = 10 * time.Second

// SharedTokens keeps logins in a shared store, each entry sealed with
// AES-GCM under the key in TOOLGEN_STORE_KEY (store.Sealer). Without that
// key it stores and reads nothing: every use fails saying what to set.
func SharedTokens(st store.Store, getenv func(string) (string, bool)) TokenStore {
	s, err := store.NewSealer(getenv)
	return &sharedTokens{st: st, seal: s, sealErr: err}
}

type sharedTokens struct {
	st      store.Store
	seal    *store.Sealer
	sealErr error
}

func (s *sharedTokens) key(k Key) string { return store.PrefixOAuth + k.file() }

func (s *sharedTokens) Dir() string { return "shared store " + s.st.Name() + " (sealed)" }

func (s *sharedTokens) check() error {
	if s.sealErr != nil {
		return fmt.Errorf("token store: %w", s.sealErr)
	}
	return nil
}

func (s *sharedTokens) Load(k Key) (*Entry, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedOpTimeout)
	defer cancel()
	b, ok, err := s.st.Get(ctx, s.key(k))
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	if !ok {
		return nil, nil
	}
	plain, err := s.seal.Open(s.key(k), b)
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	var e Entry
	if err := json.Unmarshal(plain, &e); err != nil {
		return nil, fmt.Errorf("token store: %s: %w", s.key(k), err)
	}
	if e.ServerURL != k.ServerURL {
		return nil, nil
	}
	return &e, nil
}

func (s *sharedTokens) Save(k Key, e *Entry) error {
	if err := s.check(); err != nil {
		return err
	}
	e.ServerURL = k.ServerURL
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedOpTimeout)
	defer cancel()
	if err := s.st.Set(ctx, s.key(k), s.seal.Seal(s.key(k), b), 0); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

func (s *sharedTokens) Delete(k Key) error {
	ctx, cancel := context.WithTimeout(context.Background(), sharedOpTimeout)
	defer cancel()
	if err := s.st.Delete(ctx, s.key(k)); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

// Lock is the refresh lock of k across replicas; it expires after a
// refresh's longest time, so a replica dying mid-refresh holds no one up
// for long.
func (s *sharedTokens) Lock(k Key) (func(), error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), renewTimeout+sharedOpTimeout)
	defer cancel()
	unlock, err := store.Lock(ctx, s.st, s.key(k)+".lock", renewTimeout+sharedOpTimeout)
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	return unlock, nil
}
