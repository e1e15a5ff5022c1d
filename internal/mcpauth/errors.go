package mcpauth

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/toolgen-dev/toolgen/internal/redact"
	"golang.org/x/oauth2"
)

// ErrLoginRequired is what every [*LoginRequiredError] matches with
// errors.Is.
var ErrLoginRequired = errors.New("login required")

// LoginRequiredError says the server needs a user to log in again: no
// token was stored, or the stored one was revoked or expired and could not
// be refreshed, or the server asks for scopes the login did not grant.
// Its message ends with the command to run.
type LoginRequiredError struct {
	Server string
	Agent  string
	Reason string   // "not logged in", "the token was revoked", …
	Scopes []string // scopes the server asked for, when that is the reason
	Err    error    // the refusal that led here, if any (scrubbed)
}

func (e *LoginRequiredError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server %q needs a login (%s", e.Server, e.Reason)
	if len(e.Scopes) > 0 {
		fmt.Fprintf(&b, "; it asks for scope %q", strings.Join(e.Scopes, " "))
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	fmt.Fprintf(&b, "); run: %s login %s", e.Agent, e.Server)
	return b.String()
}

func (e *LoginRequiredError) Is(target error) bool { return target == ErrLoginRequired }

func (e *LoginRequiredError) Unwrap() error { return e.Err }

// invalidGrant reports whether the token endpoint refused a grant for good
// (RFC 6749 §5.2: revoked or expired refresh token, wrong client).
func invalidGrant(err error) bool {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return false
	}
	switch re.ErrorCode {
	case "invalid_grant", "invalid_client", "unauthorized_client":
		return true
	}
	return re.Response != nil && (re.Response.StatusCode == 400 || re.Response.StatusCode == 401) && re.ErrorCode == ""
}

// secrets is the set of values a Handler must never let out: the
// configured ones and every token it has seen. Errors pass through scrub.
type secrets struct {
	mu  sync.Mutex
	all []string
	r   *redact.Redactor
}

func (s *secrets) add(vs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := false
	for _, v := range vs {
		if v != "" && !redact.Short(v) && !contains(s.all, v) {
			s.all = append(s.all, v)
			changed = true
		}
	}
	if changed {
		s.r = redact.New(s.all)
	}
}

func (s *secrets) string(text string) string {
	s.mu.Lock()
	r := s.r
	s.mu.Unlock()
	return r.String(text)
}

// scrub returns err with every secret replaced in its message; errors.Is
// and errors.As still see what it wraps.
func (s *secrets) scrub(err error) error {
	if err == nil {
		return nil
	}
	msg := s.string(err.Error())
	if msg == err.Error() {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
