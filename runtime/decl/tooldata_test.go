package decl

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every field of Tool but Go has its field in toolRecord, of the same
// type: a field added to Tool and not to the data would be lost by every
// generated registry.
func TestToolRecordCoversTool(t *testing.T) {
	tool, rec := reflect.TypeFor[Tool](), reflect.TypeFor[toolRecord]()
	for i := range tool.NumField() {
		f := tool.Field(i)
		if f.Name == "Go" {
			continue
		}
		rf, ok := rec.FieldByName(f.Name)
		if !ok || rf.Type != f.Type {
			t.Errorf("toolRecord lacks Tool.%s (%s)", f.Name, f.Type)
		}
	}
	if rec.NumField() != tool.NumField()-1 {
		t.Errorf("toolRecord has %d fields, Tool %d besides Go", rec.NumField(), tool.NumField()-1)
	}
}

func TestToolDataRoundTrip(t *testing.T) {
	yes := true
	fn := GoFunc(func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil })
	tools := []Tool{
		{Name: "go_tool", Kind: KindGo, Description: "Adds <a> & `b`.", RichResult: true, Queue: "q", Timeout: 3 * time.Second,
			InputSchema: json.RawMessage(`{"type":"object","description":"<html> & more"}`)},
		{Name: "gh__search", Kind: KindMCP, Server: "gh", Original: "search", Title: "Search", Category: "code",
			Keywords: []string{"find", "grep"}, RenamedFrom: []string{"old_search"}, Annotations: &ToolAnnotations{ReadOnly: &yes},
			OutputSchema: json.RawMessage(`{"type":"object"}`), Meta: json.RawMessage(`{"anthropic/searchHint":"code"}`)},
		{Name: "fetch", Kind: KindREST, REST: &REST{Method: "GET", URL: Value{{Lit: "https://x/{id}"}},
			Headers: []KeyValue{{Key: "Authorization", Value: Value{{Lit: "Bearer "}, {Env: "TOKEN", Default: "none", HasDefault: true}}}}}},
		{Name: "read", Kind: KindBuiltin, Policy: "ro", Description: "line one\nline two \u2028 ünïcode"},
	}
	data, err := EncodeTools(tools)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(data, "\n"); n != len(tools)+1 {
		t.Errorf("data has %d lines, want one per tool and the brackets:\n%s", n+1, data)
	}
	got := DecodeTools(data, map[string]GoFunc{"go_tool": fn})
	if got[0].Go == nil {
		t.Error("the Go tool lost its function")
	}
	got[0].Go = nil
	if !reflect.DeepEqual(got, tools) {
		t.Errorf("round trip:\ngot  %+v\nwant %+v", got, tools)
	}
}

func TestDecodeToolsRefusesBadData(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "toolgen generate") {
			t.Errorf("panic %v, want one that says to generate again", r)
		}
	}()
	DecodeTools(`[{"n":`, nil)
}
