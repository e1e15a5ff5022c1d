package serve

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// sdkEncoding is the result as the lean path wrote it before: go-sdk's
// MarshalJSON through an encoder without HTML escaping.
func sdkEncoding(t testing.TB, res *mcp.CallToolResult) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// checkSame fails when appendTextResult encodes res differently from
// go-sdk, or declines a text-only result that go-sdk can encode.
func checkSame(t *testing.T, res *mcp.CallToolResult) {
	t.Helper()
	want, werr := sdkEncoding(t, res)
	prefix := []byte(`{"jsonrpc":"2.0","id":7,"result":`)
	got, ok := appendTextResult(bytes.Clone(prefix), res)
	if !ok {
		if werr == nil {
			t.Fatalf("declined a text result go-sdk encodes: %s", want)
		}
		if !bytes.Equal(got, prefix) {
			t.Fatalf("declined but changed dst: %q", got)
		}
		return
	}
	if werr != nil {
		t.Fatalf("encoded %s where go-sdk fails: %v", got, werr)
	}
	if got := got[len(prefix):]; !bytes.Equal(got, want) {
		t.Fatalf("encoding differs\n got %s\nwant %s", got, want)
	}
}

// pieces random strings are made of: what JSON escapes, what HTML
// escaping adds, JavaScript's line separators, invalid UTF-8, multibyte
// text.
var pieces = []string{"a", "Z", " ", "\"", "\\", "/", "<", ">", "&", "\b", "\f", "\n", "\r", "\t", "\x00", "\x01",
	"\x1f", "\x7f", "\u2028", "\u2029", "\u2027", "\u202a", "é", "日本", "😀", "\ufffd", "\xff", "\xe2\x80", "\xed\xa0\x80",
	"\xc0\xaf", "</script>", "\u00a0", "\\u0041"}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(12); n > 0; n-- {
		if r.IntN(8) == 0 {
			b.WriteByte(byte(r.IntN(256)))
			continue
		}
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func randomResult(r *rand.Rand) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: r.IntN(2) == 0}
	switch n := r.IntN(5); n {
	case 0:
		// nil content: go-sdk writes null
	default:
		res.Content = []mcp.Content{}
		for range n - 1 {
			res.Content = append(res.Content, &mcp.TextContent{Text: randomText(r)})
		}
	}
	switch r.IntN(5) {
	case 1:
		s, _ := json.Marshal(randomText(r))
		res.StructuredContent = json.RawMessage(`{ "a" : [1, 2.50, ` + string(s) + `], "h":"<&>"}`)
	case 2:
		res.StructuredContent = map[string]any{"t": randomText(r), "n": r.IntN(100)}
	case 3:
		res.StructuredContent = json.RawMessage(`{"broken":`) // go-sdk fails: so must this
	case 4:
		res.StructuredContent = randomText(r)
	}
	if r.IntN(2) == 0 {
		res.Meta = mcp.Meta{"toolgen/kind": "mcp", randomText(r): randomText(r), "latency": 1.25}
	} else if r.IntN(4) == 0 {
		res.Meta = mcp.Meta{} // empty: omitted
	}
	return res
}

func TestTextResultMatchesSDK(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2))
	for range 20000 {
		checkSame(t, randomResult(r))
	}
	for _, s := range pieces {
		checkSame(t, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}})
	}
	for b := range 256 {
		checkSame(t, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x" + string(rune(b)) + string([]byte{byte(b)})}}})
	}
}

// Anything but plain text blocks goes the reflective way.
func TestTextResultDeclines(t *testing.T) {
	for name, res := range map[string]*mcp.CallToolResult{
		"image":            {Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}}},
		"block meta":       {Content: []mcp.Content{&mcp.TextContent{Text: "a", Meta: mcp.Meta{"k": 1}}}},
		"annotations":      {Content: []mcp.Content{&mcp.TextContent{Text: "a", Annotations: &mcp.Annotations{Priority: 1}}}},
		"nil block":        {Content: []mcp.Content{(*mcp.TextContent)(nil)}},
		"request state":    {Content: []mcp.Content{}, RequestState: "s"},
		"input requests":   {Content: []mcp.Content{}, InputRequests: mcp.InputRequestMap{}},
		"bad structured":   {Content: []mcp.Content{}, StructuredContent: json.RawMessage(`{`)},
		"unencodable meta": {Content: []mcp.Content{}, Meta: mcp.Meta{"f": func() {}}},
	} {
		if got, ok := appendTextResult([]byte("x"), res); ok || string(got) != "x" {
			t.Errorf("%s: encoded by hand: %q", name, got)
		}
	}
}

func FuzzTextResult(f *testing.F) {
	f.Add("hello", "", false, false)
	f.Add("<a href=\"x\">&amp;\u2028\u2029</a>\x00\xff", `{"k":"<>"}`, true, true)
	f.Fuzz(func(t *testing.T, text, structured string, isError, meta bool) {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}, &mcp.TextContent{Text: structured}}, IsError: isError}
		if structured != "" {
			res.StructuredContent = json.RawMessage(structured)
		}
		if meta {
			res.Meta = mcp.Meta{text: structured}
		}
		checkSame(t, res)
	})
}

// BenchmarkRespondText is the lean path's response to a text result.
func BenchmarkRespondText(b *testing.B) {
	lc := &leanCalls{out: &lockedWriter{w: nopWriteCloser{}}}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Echo: hello world, a line of the usual length <with> some \"quotes\"\n"}}}
	b.ReportAllocs()
	for b.Loop() {
		head := append(make([]byte, 0, 60), `{"jsonrpc":"2.0","id":12345,"result":`...)
		lc.respond(head, res)
	}
}

type nopWriteCloser struct{}

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriteCloser) Close() error                { return nil }

// The lean path writes a plain or error runtime.Result straight from r:
// byte for byte what go-sdk writes for toCallToolResult(r).
func TestPlainResultMatchesSDK(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 3))
	prefix := []byte(`{"jsonrpc":"2.0","id":7,"result":`)
	latencies := []time.Duration{0, 1, 999, time.Microsecond, 1234567 * time.Nanosecond, time.Hour, -time.Millisecond, 1<<63 - 1}
	for i := range 20000 {
		res := runtime.Result{OK: r.IntN(2) == 0, Latency: latencies[i%len(latencies)]}
		if r.IntN(3) > 0 {
			res.Latency = time.Duration(r.Int64N(int64(time.Minute)))
		}
		if res.OK || r.IntN(4) > 0 {
			res.Result = randomText(r)
		}
		if !res.OK && r.IntN(4) > 0 {
			res.Error = randomText(r)
		}
		if r.IntN(3) > 0 {
			res.Kind = runtime.ToolKind(randomText(r))
		}
		if r.IntN(2) == 0 {
			res.Namespace = randomText(r)
		}
		if r.IntN(10) == 0 { // rich, but an error the runtime failed: a plain error result
			res.Rich = &runtime.Rich{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}
			res.OK = false
		}
		want, err := sdkEncoding(t, toCallToolResult(res))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendPlainResult(bytes.Clone(prefix), res)
		if !ok {
			t.Fatalf("declined %+v", res)
		}
		if got := got[len(prefix):]; !bytes.Equal(got, want) {
			t.Fatalf("encoding differs\n got %s\nwant %s", got, want)
		}
	}
	rich := runtime.Result{OK: true, Rich: &runtime.Rich{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}}
	if got, ok := appendPlainResult([]byte("x"), rich); ok || string(got) != "x" {
		t.Errorf("encoded a rich result by hand: %q", got)
	}
}

func FuzzPlainResult(f *testing.F) {
	f.Add("hello", "", "mcp", "ns", int64(1234567), true)
	f.Add("<a>\u2028\xff", "boom\x00", "", "", int64(-1), false)
	f.Fuzz(func(t *testing.T, text, errText, kind, ns string, latency int64, ok bool) {
		res := runtime.Result{OK: ok, Result: text, Error: errText, Kind: runtime.ToolKind(kind), Namespace: ns, Latency: time.Duration(latency)}
		want, err := sdkEncoding(t, toCallToolResult(res))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := appendPlainResult(nil, res)
		if !bytes.Equal(got, want) {
			t.Fatalf("encoding differs\n got %s\nwant %s", got, want)
		}
	})
}

// BenchmarkRespondResult is the lean path's response to a proxied text
// result as the runtime returns it: through the go-sdk result (the path
// before) and written straight from the runtime.Result.
func BenchmarkRespondResult(b *testing.B) {
	lc := &leanCalls{out: &lockedWriter{w: nopWriteCloser{}}}
	r := runtime.Result{OK: true, Result: "Echo: hello world, a line of the usual length <with> some \"quotes\"\n",
		Latency: 1234567 * time.Nanosecond, Kind: "mcp", Namespace: "everything"}
	b.Run("via=sdk-result", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			head := append(make([]byte, 0, 60), `{"jsonrpc":"2.0","id":12345,"result":`...)
			lc.respond(head, toCallToolResult(r))
		}
	})
	b.Run("via=plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			head := append(make([]byte, 0, 60), `{"jsonrpc":"2.0","id":12345,"result":`...)
			line, _ := appendPlainResult(head, r)
			lc.out.Write(append(line, "}\n"...))
		}
	})
}
