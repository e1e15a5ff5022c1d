package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync/atomic"
)

// A conversation grows by a message or two per turn, and the whole of it
// goes to the model every turn. So each message's wire form (made by the
// SDK's own types) is kept with the message and reused, and a request body
// is those bytes joined: a turn encodes only what is new.

// Slot names a provider's wire form of a message (and of a Toolset).
type Slot int

// The providers' slots.
const (
	OpenAI Slot = iota
	Anthropic
	nslots
)

// wire holds a message's encoded forms, one per provider. Copies of a
// Message share it; the atomic slots make sharing across goroutines safe.
type wire struct {
	slots [nslots]atomic.Pointer[encoded]
}

type encoded struct {
	from msgKey
	json []byte
}

// msgKey is what an encoding was made from: a message whose fields were
// reassigned since then is encoded again.
type msgKey struct {
	role    Role
	text    string
	callID  string
	isError bool
	calls   *ToolCall
	ncalls  int
}

func keyOf(m *Message) msgKey {
	k := msgKey{role: m.Role, text: m.Text, callID: m.ToolCallID, isError: m.IsError, ncalls: len(m.ToolCalls)}
	if len(m.ToolCalls) > 0 {
		k.calls = &m.ToolCalls[0]
	}
	return k
}

// EncodeOnce returns m's encoding from slot when it is still m's, else
// makes it with enc (and keeps it when m has a wire).
func EncodeOnce(m *Message, slot Slot, enc func() ([]byte, error)) ([]byte, error) {
	if m.wire == nil {
		return enc()
	}
	p := &m.wire.slots[slot]
	k := keyOf(m)
	if e := p.Load(); e != nil && e.from == k {
		return e.json, nil
	}
	b, err := enc()
	if err != nil {
		return nil, err
	}
	p.Store(&encoded{from: k, json: b})
	return b, nil
}

// Encoded is the wire form kept for m in slot, nil when none is kept
// (a Message literal, or not sent yet).
func (m *Message) Encoded(slot Slot) []byte {
	if m.wire == nil {
		return nil
	}
	if e := m.wire.slots[slot].Load(); e != nil {
		return e.json
	}
	return nil
}

// TextCache keeps the last encoding of one text, such as a system prompt,
// which is the same on every turn of an agent.
type TextCache struct {
	last atomic.Pointer[encodedText]
}

type encodedText struct {
	text string
	json []byte
}

// Get returns text's encoding, made by enc when text changed.
func (c *TextCache) Get(text string, enc func() ([]byte, error)) ([]byte, error) {
	if e := c.last.Load(); e != nil && e.text == text {
		return e.json, nil
	}
	b, err := enc()
	if err != nil {
		return nil, err
	}
	c.last.Store(&encodedText{text: text, json: b})
	return b, nil
}

// JSONArray joins encoded values into a JSON array.
func JSONArray(parts [][]byte) []byte {
	n := 2
	for _, p := range parts {
		n += len(p) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, p := range parts {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p...)
	}
	return append(out, ']')
}

// Field is one member that JoinObject adds: Value as it is, or, when
// Items is set, the JSON array of Items.
type Field struct {
	Key   string
	Value []byte
	Items [][]byte
}

// JoinObject adds fields to the JSON object head, which the SDK marshalled
// without them, in one allocation. The values are sent as they are: no
// re-encoding or compaction.
func JoinObject(head []byte, fields ...Field) []byte {
	head = bytes.TrimRight(head, " \n")
	n := len(head)
	for _, f := range fields {
		n += len(f.Key) + len(f.Value) + 6
		for _, it := range f.Items {
			n += len(it) + 1
		}
	}
	out := make([]byte, 0, n)
	out = append(out, head[:len(head)-1]...)
	sep := len(bytes.TrimSpace(head[1:len(head)-1])) > 0
	for _, f := range fields {
		if sep {
			out = append(out, ',')
		}
		sep = true
		out = append(out, '"')
		out = append(out, f.Key...)
		out = append(out, '"', ':')
		if f.Items == nil {
			out = append(out, f.Value...)
			continue
		}
		out = append(out, '[')
		for i, it := range f.Items {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, it...)
		}
		out = append(out, ']')
	}
	return append(out, '}')
}

// BodyStart is what every provider's request body starts from: its params,
// encoded by the SDK, and the messages field (each message's encoding
// reused).
func BodyStart[P json.Marshaler](c *Config, req *Request, params func(*Request) (P, error), messages func(*Request) ([][]byte, error)) ([]byte, []Field, error) {
	p, err := params(req)
	if err != nil {
		return nil, nil, err
	}
	b, err := p.MarshalJSON()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", c.Describe(), err)
	}
	msgs, err := messages(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", c.Describe(), err)
	}
	return b, []Field{{Key: "messages", Items: msgs}}, nil
}
