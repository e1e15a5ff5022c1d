package store

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// EnvKey is the environment variable holding the key that seals secrets
// (upstream OAuth tokens) before they reach a shared store: 32 random
// bytes, base64 or hex (openssl rand -base64 32). Every replica reads the
// same one; the store never sees it.
const EnvKey = "TOOLGEN_STORE_KEY"

// Sealer encrypts values with AES-256-GCM, each bound to its store key
// (the key is the additional data), so a sealed value copied under
// another key does not open.
type Sealer struct{ aead cipher.AEAD }

// ErrNoKey is the error of a secret to be stored without EnvKey set.
var ErrNoKey = errors.New("refusing to keep secrets in a shared store unsealed: set " + EnvKey + " to 32 random bytes, base64 (openssl rand -base64 32), the same on every replica")

// NewSealer reads EnvKey through getenv.
func NewSealer(getenv func(string) (string, bool)) (*Sealer, error) {
	raw, _ := getenv(EnvKey)
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, ErrNoKey
	}
	key, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(key) != 32 {
		key, err = hex.DecodeString(raw)
	}
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("%s: want 32 bytes, base64 or hex (openssl rand -base64 32)", EnvKey)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts value for key: a random nonce, then the ciphertext.
func (s *Sealer) Seal(key string, value []byte) []byte {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(value)+s.aead.Overhead())
	rand.Read(nonce) // never fails (crypto/rand)
	return s.aead.Seal(nonce, nonce, value, []byte(key))
}

// Open decrypts what Seal made for key.
func (s *Sealer) Open(key string, sealed []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, fmt.Errorf("sealed value of %q is too short", key)
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(key))
	if err != nil {
		return nil, fmt.Errorf("sealed value of %q does not open: another %s, or altered", key, EnvKey)
	}
	return plain, nil
}

// Lock takes a lock shared by every replica on key (SetNew), waiting
// until it is free or ctx ends; it lasts at most ttl, so a replica that
// dies holding it does not block the others for longer. unlock releases
// it if it is still this holder's.
func Lock(ctx context.Context, st Store, key string, ttl time.Duration) (unlock func(), err error) {
	token := []byte(rand.Text())
	wait := 5 * time.Millisecond
	for {
		ok, err := st.SetNew(ctx, key, token, ttl)
		if err != nil {
			return nil, err
		}
		if ok {
			return func() {
				// Swap, not Delete: a lock that expired and was taken by
				// another replica is not ours to release.
				st.Swap(context.WithoutCancel(ctx), key, token, []byte("released"), time.Millisecond)
			}, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("lock %s in store %s: %w", key, st.Name(), ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}
