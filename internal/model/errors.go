package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolgen-dev/toolgen/internal/redact"
)

// Error is a failed model call. Its text is safe to log and to show a
// model: the API key and header values are scrubbed out, and the SDK's
// error (which holds the request, headers included) is not kept.
type Error struct {
	// Model names the model: `model fast (openai gpt-4.1-mini)`.
	Model string
	// StatusCode is the server's HTTP status; 0 when no answer came.
	StatusCode int
	// Message says what went wrong: "401 Unauthorized: invalid x-api-key".
	Message string
	// cause is kept only for context errors, so errors.Is(err,
	// context.Canceled) works.
	cause error
}

func (e *Error) Error() string { return e.Model + ": " + e.Message }

func (e *Error) Unwrap() error { return e.cause }

// maxDetail bounds how much of a server's error body an error quotes.
const maxDetail = 500

// NewError turns any failure of a call into an *Error.
func (c *Config) NewError(ctx context.Context, status int, detail string, err error) *Error {
	e := &Error{Model: c.Describe(), StatusCode: status}
	switch {
	case ctx.Err() != nil:
		// The caller gave up; say so rather than quote a half-read stream.
		e.cause = ctx.Err()
		e.Message = ctx.Err().Error()
		if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
			e.Message += ": " + cause.Error()
		}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		// The SDK's own per-attempt timeout (Config.Timeout).
		e.cause = context.DeadlineExceeded
		e.Message = "timed out"
		if c.Timeout > 0 {
			e.Message = fmt.Sprintf("timed out after %s", c.Timeout)
		}
	case status != 0:
		e.Message = fmt.Sprintf("%d %s", status, http.StatusText(status))
		if detail != "" {
			e.Message += ": " + detail
		}
		if status == http.StatusNotFound {
			e.Message += c.baseURLHint()
		}
	default:
		e.Message = err.Error()
	}
	e.Message = redact.String(e.Message, c.secrets())
	return e
}

func (c *Config) baseURLHint() string {
	switch c.Provider {
	case "openai":
		return ` (check base_url: OpenAI-compatible servers end in "/v1", e.g. http://localhost:11434/v1)`
	case "anthropic":
		return ` (check base_url: for anthropic it is the host root, without "/v1")`
	}
	return ""
}

// ProviderMessage finds the human part of an error body: both providers
// (and most compatible servers) send {"error": {"message": ...}}.
func ProviderMessage(body string) string {
	body = strings.TrimSpace(body)
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal([]byte(body), &shape) == nil {
		var inner struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		var text string
		switch {
		case json.Unmarshal(shape.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(shape.Error, &text) == nil && text != "":
			return text
		case shape.Message != "":
			return shape.Message
		}
	}
	if len(body) > maxDetail {
		body = body[:maxDetail] + "…"
	}
	return body
}

// StreamError rewords an error event inside a stream ("received error while
// streaming: {json}") as the server's message.
func StreamError(err error) error {
	const prefix = "received error while streaming: "
	if s := err.Error(); strings.HasPrefix(s, prefix) {
		return errors.New("error in the stream: " + ProviderMessage(s[len(prefix):]))
	}
	return err
}
