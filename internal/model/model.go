package model

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Model answers one turn of a conversation. A Model is safe for concurrent
// use: parallel sub-agents share one.
type Model interface {
	Generate(ctx context.Context, req *Request) (*Response, error)
}

// Config is a model block of the spec, with its secrets already read.
type Config struct {
	// Label is the spec's name for the model ("fast"); errors start with it.
	Label string
	// Provider is "openai" (Chat Completions, any compatible server) or
	// "anthropic" (Messages API).
	Provider string
	// Name is the provider's model name ("gpt-4.1-mini", "claude-sonnet-4-5").
	Name string
	// BaseURL follows each SDK's convention: OpenAI and compatible servers
	// end in "/v1"; Anthropic is the host root. Empty means the provider's own.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer" (openai) or "x-api-key"
	// (anthropic). It never appears in errors.
	APIKey string
	// MaxTokens caps each answer. Zero means the server's default for openai
	// and DefaultAnthropicMaxTokens for anthropic, which requires one.
	MaxTokens int
	// Temperature is sent only when set (reasoning models reject it).
	Temperature *float64
	// Timeout bounds each attempt, including reading a streamed answer.
	// Zero leaves the SDK's own limits.
	Timeout time.Duration
	// Headers are added to every request. Their values are scrubbed from
	// errors like the key, as they often carry credentials.
	Headers map[string]string
	// MaxRetries bounds the SDK's retries of 408, 409, 429 and 5xx answers
	// and connection errors. Nil means DefaultMaxRetries; 0 means none.
	MaxRetries *int
	// HTTPClient replaces the shared default client (tests, proxies).
	HTTPClient *http.Client
}

const (
	// DefaultMaxRetries is both SDKs' own default.
	DefaultMaxRetries = 2
	// DefaultAnthropicMaxTokens is the answer cap sent when MaxTokens is zero.
	// It stays below the size for which the Anthropic SDK refuses a plain
	// (non-streamed) request.
	DefaultAnthropicMaxTokens = 8192
	// MaxRetryAfter is the longest server-directed wait honoured; a longer
	// Retry-After ends the call with the server's error instead of hanging.
	MaxRetryAfter = 2 * time.Minute
)

// Providers lists the known providers, for errors and validation.
var Providers = []string{"anthropic", "openai"}

// ProviderPackage is the package that links a provider into a binary: the
// generated registry imports it when the spec declares a model of that
// provider, and it registers itself with Register.
func ProviderPackage(provider string) string {
	return "github.com/toolgen-dev/toolgen/runtime/models/" + provider
}

var (
	registryMu sync.RWMutex
	registry   = map[string]func(Config) Model{}
)

// Register makes a provider's implementation known to New; its package
// calls it from init (the database/sql driver pattern), so a binary pays
// for a provider's SDK only when something imports that package.
func Register(provider string, newModel func(Config) Model) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[provider]; dup {
		panic("model: provider " + provider + " registered twice")
	}
	registry[provider] = newModel
}

// New returns the Model that cfg describes. It does not contact the server.
func New(cfg Config) (Model, error) {
	if cfg.Name == "" {
		return nil, fmt.Errorf("%s: no model name", cfg.Describe())
	}
	if cfg.MaxTokens < 0 {
		return nil, fmt.Errorf("%s: max_tokens must not be negative, got %d", cfg.Describe(), cfg.MaxTokens)
	}
	if cfg.MaxRetries != nil && *cfg.MaxRetries < 0 {
		return nil, fmt.Errorf("%s: max_retries must not be negative, got %d", cfg.Describe(), *cfg.MaxRetries)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("%s: timeout must not be negative, got %s", cfg.Describe(), cfg.Timeout)
	}
	registryMu.RLock()
	newModel := registry[cfg.Provider]
	registryMu.RUnlock()
	if newModel != nil {
		return newModel(cfg), nil
	}
	if slices.Contains(Providers, cfg.Provider) {
		return nil, fmt.Errorf("%s: provider %q is not linked into this binary; import _ %q "+
			"(toolgen generate adds it to the registry of a spec that declares a %s model; regenerate and rebuild)",
			cfg.Describe(), cfg.Provider, ProviderPackage(cfg.Provider), cfg.Provider)
	}
	return nil, fmt.Errorf("%s: unknown provider %q; known providers: %s",
		cfg.Describe(), cfg.Provider, strings.Join(Providers, ", "))
}

// Describe names the model the way every error does: `model fast (openai gpt-4.1-mini)`.
func (c *Config) Describe() string {
	var b strings.Builder
	b.WriteString("model ")
	if c.Label != "" {
		b.WriteString(c.Label)
		b.WriteByte(' ')
	}
	b.WriteByte('(')
	b.WriteString(c.Provider)
	if c.Name != "" {
		b.WriteByte(' ')
		b.WriteString(c.Name)
	}
	b.WriteByte(')')
	return b.String()
}

// SpecOptions are the request options the spec sets (base URL, key,
// timeout, headers), made with one SDK's own option constructors. This and
// the other exported helpers below serve the provider packages.
func SpecOptions[O any](c *Config, baseURL, apiKey func(string) O, timeout func(time.Duration) O, header func(k, v string) O) []O {
	var opts []O
	if c.BaseURL != "" {
		opts = append(opts, baseURL(c.BaseURL))
	}
	if c.APIKey != "" {
		opts = append(opts, apiKey(c.APIKey))
	}
	if c.Timeout > 0 {
		opts = append(opts, timeout(c.Timeout))
	}
	for _, k := range SortedKeys(c.Headers) {
		opts = append(opts, header(k, c.Headers[k]))
	}
	return opts
}

// Retries is MaxRetries, or DefaultMaxRetries when unset.
func (c *Config) Retries() int {
	if c.MaxRetries == nil {
		return DefaultMaxRetries
	}
	return *c.MaxRetries
}

// secrets are the values scrubbed from every error.
func (c *Config) secrets() []string {
	s := make([]string, 0, 1+len(c.Headers))
	if c.APIKey != "" {
		s = append(s, c.APIKey)
	}
	keys := make([]string, 0, len(c.Headers))
	for k := range c.Headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		// Very short values cannot be credentials and would mangle the text.
		if v := c.Headers[k]; len(v) >= 4 {
			s = append(s, v)
		}
	}
	return s
}

// Client is HTTPClient, or the shared default client.
func (c *Config) Client() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return sharedClient()
}

// sharedClient lets every model reuse connections. Like the SDKs' own
// default it bounds the wait for response headers, so a server that accepts
// and never answers fails instead of hanging; streamed bodies are not bounded.
var sharedClient = sync.OnceValue(func() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t = t.Clone()
		t.ResponseHeaderTimeout = 10 * time.Minute
		return &http.Client{Transport: t}
	}
	return &http.Client{Transport: http.DefaultTransport}
})

// Role says who wrote a message.
type Role string

const (
	User      Role = "user"
	Assistant Role = "assistant"
	// ToolResult is the result of one tool call, sent back to the model.
	ToolResult Role = "tool"
)

// Message is one entry of a conversation.
type Message struct {
	Role Role
	// Text is the user's or assistant's text, or a tool result's content.
	Text string
	// ToolCalls are the calls an assistant message asks for, in order.
	ToolCalls []ToolCall
	// ToolCallID is the call a ToolResult message answers.
	ToolCallID string
	// IsError marks a ToolResult message that reports a failed call. Anthropic
	// receives the flag; OpenAI has none, so the text must say it.
	IsError bool
	// Raw is the provider's own form of an assistant message that Generate
	// returned (Anthropic blocks including thinking, exactly as received).
	// Keep it with the message: the same provider is sent it back unchanged;
	// another provider rebuilds the message from Text and ToolCalls.
	Raw any

	// wire keeps the encoded forms, so later turns do not encode it again.
	wire *wire
}

// NewUserMessage is a user's message. Like Response.Message (and unlike a
// Message literal, which works too) it is encoded for the wire once and
// reused on every later turn. Treat a sent message as immutable: replace
// it rather than edit it.
func NewUserMessage(text string) Message {
	return Message{Role: User, Text: text, wire: new(wire)}
}

// NewToolResult is the result of the call with callID, encoded once like
// NewUserMessage. isError marks a failed call.
func NewToolResult(callID, text string, isError bool) Message {
	return Message{Role: ToolResult, ToolCallID: callID, Text: text, IsError: isError, wire: new(wire)}
}

// Keep is m with a wire cache of its own, empty: like NewUserMessage, it is
// encoded once and reused on later turns. Providers return their answers
// this way.
func Keep(m Message) Message {
	m.wire = new(wire)
	return m
}

// ToolCall is one call the model asks for.
type ToolCall struct {
	// ID pairs the call with its result (Message.ToolCallID).
	ID   string
	Name string
	// Args is the model's JSON text for the arguments ("{}" when it sent
	// none). Models can write invalid JSON: whoever runs the call reports
	// that back as an error result.
	Args json.RawMessage
}

// Request is one turn: the conversation so far and what the model may use.
type Request struct {
	System   string
	Messages []Message
	// Tools is the tool surface, converted once by NewToolset and reused
	// every turn until the surface changes.
	Tools *Toolset
	// JSONSchema, when set, asks for the answer as JSON matching the schema
	// (OpenAI: response_format json_schema, strict; Anthropic: a tool the
	// model is forced to call). Tools may still be declared, for the history
	// that used them, but are not called: the answer ends the conversation.
	// OpenAI's strict mode needs every property required and
	// additionalProperties false.
	JSONSchema json.RawMessage
	// JSONName names that answer for the model; default "answer".
	JSONName string
	// Stream asks for the answer as a stream (accumulated here). Anthropic
	// also streams without it when MaxTokens is too large for a plain
	// request, as its SDK requires.
	Stream bool
}

// AnswerName names the JSON answer: JSONName, default "answer".
func (r *Request) AnswerName() string {
	if r.JSONName == "" {
		return "answer"
	}
	return r.JSONName
}

// Response is the model's answer to one turn.
type Response struct {
	// Message is the assistant message to append to the conversation; its
	// Text and ToolCalls are the answer. Parallel calls come together.
	Message
	// JSON is the structured answer when the request had a JSONSchema.
	JSON json.RawMessage
	// StopReason is one of the Stop constants, or the provider's own word
	// for anything else.
	StopReason string
	Usage      Usage
	// Latency is the whole call, retries and streaming included.
	Latency time.Duration
}

// Why a turn ended, in the same words for both providers.
const (
	StopEnd       = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens"
	StopRefusal   = "refusal"
)

// Usage counts tokens. InputTokens is everything the model read, cached or
// not, so the two providers compare; the cache counts are parts of it.
type Usage struct {
	InputTokens      int64
	OutputTokens     int64
	CacheReadTokens  int64
	CacheWriteTokens int64
}

// Add sums usage over turns and sub-agents.
func (u *Usage) Add(v Usage) {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CacheReadTokens += v.CacheReadTokens
	u.CacheWriteTokens += v.CacheWriteTokens
}

// ValidJSONArgs returns args, or "{}" when the model sent none.
func ValidJSONArgs(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(args)
}

// SortedKeys are m's keys in order, so headers go out deterministically.
func SortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
