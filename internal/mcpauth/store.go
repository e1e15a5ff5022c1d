package mcpauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Store keeps the tokens of logged-in servers: one JSON file per server URL
// and client, mode 0600 in a directory of mode 0700, written by rename so a
// reader never sees half a file, and locked while one process refreshes so
// two agents sharing a login never spend one refresh token twice.
type Store struct {
	dir string
}

// DefaultStore is the per-user store: $XDG_STATE_HOME/toolgen/oauth, or
// ~/.local/state/toolgen/oauth when XDG_STATE_HOME is unset.
func DefaultStore() (*Store, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" || !filepath.IsAbs(base) { // the XDG spec says to ignore a relative path
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("token store: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return OpenStore(filepath.Join(base, "toolgen", "oauth")), nil
}

// OpenStore is a store in dir, created (0700) on the first write.
func OpenStore(dir string) *Store { return &Store{dir: dir} }

// Dir is where the store keeps its files.
func (s *Store) Dir() string { return s.dir }

// Key names one login: the server's URL and the client it logged in as
// (a client_id, a client metadata URL, or "dynamic" for a client the
// authorization server registered).
type Key struct {
	ServerURL string
	Client    string
}

// file is the entry's base name: the host for people looking at the
// directory, a hash of the whole key for uniqueness.
func (k Key) file() string {
	sum := sha256.Sum256([]byte(k.ServerURL + "\x00" + k.Client))
	host := k.ServerURL
	if i := strings.Index(host, "://"); i >= 0 {
		host = host[i+3:]
	}
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	host = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, host)
	if len(host) > 64 {
		host = host[:64]
	}
	return host + "-" + hex.EncodeToString(sum[:8])
}

// Entry is what a login leaves behind: enough to refresh the token without
// the user (the token endpoint and the client), never the configured
// client secret, which is read from the environment at run time.
type Entry struct {
	ServerURL string `json:"server_url"`
	Issuer    string `json:"issuer,omitempty"`
	TokenURL  string `json:"token_url"`
	ClientID  string `json:"client_id"`
	// ClientSecret is a secret the authorization server issued at dynamic
	// registration: nowhere else to keep it.
	ClientSecret string           `json:"client_secret,omitempty"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style"`
	Scopes       []string         `json:"scopes,omitempty"`
	// WantScopes are scopes a server asked for (step-up) while serving,
	// which the next login requests too.
	WantScopes []string `json:"want_scopes,omitempty"`
	// Resource is the server's resource identifier (RFC 9728) when the
	// token is obtained without a user (client_credentials, enterprise).
	Resource string    `json:"resource,omitempty"`
	Token    Token     `json:"token"`
	IDP      *IDPLogin `json:"idp,omitempty"`
	SavedAt  time.Time `json:"saved_at"`
}

// IDPLogin is the enterprise identity provider's side of a login: the ID
// token exchanged for the server's tokens, and how to get a new one.
type IDPLogin struct {
	TokenURL     string `json:"token_url"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token,omitempty"`
}

// Token is an OAuth token as stored.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

func (t Token) oauth2() *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, Expiry: t.Expiry}
}

func (s *Store) path(k Key) string { return filepath.Join(s.dir, k.file()+".json") }

// Load returns the entry for k, or nil when there is none.
func (s *Store) Load(k Key) (*Entry, error) {
	b, err := os.ReadFile(s.path(k))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("token store: %s: %w", s.path(k), err)
	}
	if e.ServerURL != k.ServerURL { // a hash collision, or a file copied by hand
		return nil, nil
	}
	return &e, nil
}

// Save writes the entry for k: a temporary file in the same directory,
// synced, then renamed over the old one.
func (s *Store) Save(k Key, e *Entry) error {
	if err := s.mkdir(); err != nil {
		return err
	}
	e.ServerURL = k.ServerURL
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	f, err := os.CreateTemp(s.dir, "."+k.file()+"-*.tmp") // CreateTemp makes it 0600
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.path(k))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

// Delete removes the entry for k (a logout); no entry is not an error.
func (s *Store) Delete(k Key) error {
	if err := os.Remove(s.path(k)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

// Lock takes the entry's lock, shared by every process using the store,
// and returns its release. Hold it from reading a token to saving its
// refreshed successor.
func (s *Store) Lock(k Key) (unlock func(), err error) {
	if err := s.mkdir(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(s.dir, k.file()+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("token store: lock: %w", err)
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}

// mkdir creates the directory 0700 and refuses one others can read: the
// files hold credentials.
func (s *Store) mkdir() error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	fi, err := os.Stat(s.dir)
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(s.dir, 0o700); err != nil {
			return fmt.Errorf("token store: %s is readable by others and cannot be fixed: %w", s.dir, err)
		}
	}
	return nil
}
