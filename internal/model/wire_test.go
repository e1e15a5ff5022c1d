package model_test

import (
	"context"
	"strings"
	"testing"

	. "github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
)

// A conversation is encoded once: later turns reuse each message's wire
// form, and a message whose fields were replaced is encoded again.
func TestMessagesEncodedOnce(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			srv := modeltest.NewServer(t)
			srv.Respond(func(*modeltest.Request) modeltest.Turn {
				return modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "look", Args: `{}`}}}
			})
			cfg := Config{Provider: provider, Name: "m", BaseURL: srv.URL}
			if provider == "openai" {
				cfg.BaseURL = srv.OpenAIBaseURL()
			}
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ts, err := NewToolset([]Tool{{Name: "look"}})
			if err != nil {
				t.Fatal(err)
			}
			slot := OpenAI
			if provider == "anthropic" {
				slot = Anthropic
			}
			msgs := []Message{NewUserMessage("start")}
			for turn := range 3 {
				resp, err := m.Generate(context.Background(), &Request{Messages: msgs, Tools: ts})
				if err != nil {
					t.Fatal(err)
				}
				msgs = append(msgs, resp.Message, NewToolResult(resp.ToolCalls[0].ID, strings.Repeat("x", turn+1), false))
			}
			// Every message sent so far is kept encoded, but for the last
			// two (not sent yet) and, on Anthropic, the block that carried
			// the cache breakpoint (encoded afresh each time).
			sent := len(msgs) - 2
			if provider == "anthropic" {
				sent--
			}
			var before [][]byte
			for i := range msgs {
				before = append(before, msgs[i].Encoded(slot))
			}
			for i := range sent {
				if before[i] == nil {
					t.Errorf("message %d (%s) was not kept encoded", i, msgs[i].Role)
				}
			}
			// Replacing a sent message's text sends the new text.
			msgs[0].Text = "started over"
			if _, err := m.Generate(context.Background(), &Request{Messages: msgs, Tools: ts}); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if got := reqs[len(reqs)-1].Messages[0].Text; got != "started over" {
				t.Errorf("first message sent as %q after its text changed", got)
			}
			for i := 1; i < sent; i++ {
				if !sameBytes(msgs[i].Encoded(slot), before[i]) {
					t.Errorf("message %d was encoded again", i)
				}
			}
		})
	}
}

// sameBytes says whether a and b are the very same encoding, not a copy.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
