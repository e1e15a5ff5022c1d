package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// Tool is one tool the model may call.
type Tool struct {
	// Name must match ^[a-zA-Z0-9_-]{1,64}$, the set both providers accept
	// (the runtime's exposed names already do).
	Name        string
	Description string
	// InputSchema is a JSON Schema object, sent as written. Empty means an
	// object with no declared properties.
	InputSchema json.RawMessage
}

// Toolset is a tool surface ready for the wire. Each provider's "tools"
// array is encoded once, on first use, and every turn splices those bytes
// into its request: build a new Toolset only when the surface changes. A
// Toolset is immutable and safe to share.
type Toolset struct {
	tools []Tool
	index map[string]bool
	wires [nslots]struct {
		once sync.Once
		json []byte
	}
}

// Wire is the provider's "tools" array, encoded by tool (the provider's
// form of one tool; last marks the final one) on first use and kept; nil
// when there are no tools.
func (ts *Toolset) Wire(slot Slot, tool func(t Tool, last bool) []byte) []byte {
	if ts.Len() == 0 {
		return nil
	}
	w := &ts.wires[slot]
	w.once.Do(func() {
		parts := make([][]byte, len(ts.tools))
		for i, t := range ts.tools {
			parts[i] = tool(t, i == len(ts.tools)-1)
		}
		w.json = JSONArray(parts)
	})
	return w.json
}

// NewToolset checks the tools and prepares them for the wire.
func NewToolset(tools []Tool) (*Toolset, error) {
	ts := &Toolset{tools: make([]Tool, len(tools)), index: make(map[string]bool, len(tools))}
	for i, t := range tools {
		if !validToolName(t.Name) {
			return nil, fmt.Errorf("tool %q: a name must be 1 to 64 letters, digits, '_' or '-'", t.Name)
		}
		if ts.index[t.Name] {
			return nil, fmt.Errorf("tool %q is listed twice", t.Name)
		}
		ts.index[t.Name] = true
		schema, err := CompactSchema(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %q: input schema: %v", t.Name, err)
		}
		t.InputSchema = schema
		ts.tools[i] = t
	}
	return ts, nil
}

// Len is the number of tools.
func (ts *Toolset) Len() int {
	if ts == nil {
		return 0
	}
	return len(ts.tools)
}

// Has reports whether the surface has a tool of that name.
func (ts *Toolset) Has(name string) bool { return ts != nil && ts.index[name] }

func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// CompactSchema checks that s is a JSON object schema and compacts it, so
// each turn sends fewer bytes and the SDK's own compaction has less to do.
func CompactSchema(s json.RawMessage) (json.RawMessage, error) {
	s = bytes.TrimSpace(s)
	if len(s) == 0 || string(s) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	var head struct {
		Type any `json:"type"`
	}
	if s[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	if err := json.Unmarshal(s, &head); err != nil {
		return nil, err
	}
	if head.Type != nil && head.Type != "object" {
		return nil, fmt.Errorf(`"type" is %v; both providers need "object"`, head.Type)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// MustMarshal leaves <, > and & as written, so a schema goes out byte for
// byte as the tool declared it.
func MustMarshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only strings and checked raw JSON go in; this is a bug.
		panic(fmt.Sprintf("model: marshal tool: %v", err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
