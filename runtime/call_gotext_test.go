package runtime

import (
	"context"
	"encoding/json"
	"testing"
)

func TestCallGoStringResultIsText(t *testing.T) {
	cases := []struct {
		name string
		out  string
		want string
	}{
		{"string", `"line one\nline \"two\""`, "line one\nline \"two\""},
		{"object", `{"a":1}`, `{"a":1}`},
		{"number", `42`, `42`},
		{"empty", ``, ``},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(c.out), nil }
			got, err := callGo(context.Background(), fn, json.RawMessage(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("callGo = %q, want %q", got, c.want)
			}
		})
	}
}
