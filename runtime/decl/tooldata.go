package decl

import (
	"bytes"
	"encoding/json"
	"time"
)

// Generated code carries a registry's tools as data, not as a composite
// literal the compiler type-checks field by field (protobuf-go's raw
// descriptors are the model): registry_gen.go holds one string constant,
// a JSON array with one tool per line, that DecodeTools turns into the
// Registry's Tools when the package initialises. At 50,000 tools the
// literal took half a minute and 1.5 GB to compile.
//
// toolRecord is one tool in that array; the short keys keep the data
// small, and a zero field is left out.
type toolRecord struct {
	Name         string           `json:"n"`
	Description  string           `json:"d,omitempty"`
	Kind         ToolKind         `json:"k"`
	InputSchema  json.RawMessage  `json:"i,omitempty"`
	Title        string           `json:"t,omitempty"`
	Annotations  *ToolAnnotations `json:"a,omitempty"`
	OutputSchema json.RawMessage  `json:"o,omitempty"`
	Meta         json.RawMessage  `json:"m,omitempty"`
	RichResult   bool             `json:"rich,omitempty"`
	Category     string           `json:"c,omitempty"`
	Keywords     []string         `json:"kw,omitempty"`
	RenamedFrom  []string         `json:"was,omitempty"`
	Policy       string           `json:"p,omitempty"`
	REST         *REST            `json:"r,omitempty"`
	Server       string           `json:"s,omitempty"`
	Original     string           `json:"orig,omitempty"`
	Queue        string           `json:"q,omitempty"`
	Timeout      time.Duration    `json:"to,omitempty"`
}

// EncodeTools writes tools in the form DecodeTools reads: a JSON array,
// one tool per line. Go functions are not data: the generated code hands
// them to DecodeTools by tool name.
func EncodeTools(tools []Tool) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // schemas and descriptions stay as written
	buf.WriteString("[\n")
	for i := range tools {
		t := &tools[i]
		if i > 0 {
			buf.WriteString(",\n")
		}
		rec := toolRecord{
			Name: t.Name, Description: t.Description, Kind: t.Kind, InputSchema: t.InputSchema,
			Title: t.Title, Annotations: t.Annotations, OutputSchema: t.OutputSchema, Meta: t.Meta,
			RichResult: t.RichResult, Category: t.Category, Keywords: t.Keywords, RenamedFrom: t.RenamedFrom,
			Policy: t.Policy, REST: t.REST, Server: t.Server, Original: t.Original, Queue: t.Queue, Timeout: t.Timeout,
		}
		if err := enc.Encode(&rec); err != nil {
			return "", err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
	}
	buf.WriteString("\n]")
	return buf.String(), nil
}

// DecodeTools reads the tools EncodeTools wrote, with the Go function of
// each Go tool from goFuncs (by tool name). The data is generated, so a
// failure is a toolgen bug or a hand-edited file: it panics while the
// package initialises, saying so.
func DecodeTools(data string, goFuncs map[string]GoFunc) []Tool {
	var recs []toolRecord
	if err := json.Unmarshal([]byte(data), &recs); err != nil {
		panic("decl: the generated tool data does not decode (" + err.Error() + "); run toolgen generate again")
	}
	tools := make([]Tool, len(recs))
	for i := range recs {
		r := &recs[i]
		tools[i] = Tool{
			Name: r.Name, Description: r.Description, Kind: r.Kind, InputSchema: r.InputSchema,
			Title: r.Title, Annotations: r.Annotations, OutputSchema: r.OutputSchema, Meta: r.Meta,
			RichResult: r.RichResult, Category: r.Category, Keywords: r.Keywords, RenamedFrom: r.RenamedFrom,
			Policy: r.Policy, REST: r.REST, Go: goFuncs[r.Name], Server: r.Server, Original: r.Original,
			Queue: r.Queue, Timeout: r.Timeout,
		}
	}
	return tools
}
