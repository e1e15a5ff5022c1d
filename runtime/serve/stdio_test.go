package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// rawClient speaks newline-delimited JSON-RPC to ServeIO by hand, so that
// it can send what no MCP client would.
type rawClient struct {
	t    *testing.T
	w    io.WriteCloser
	mu   sync.Mutex
	got  map[string]map[string]any // responses by id (as JSON text)
	done chan error                // ServeIO's result
}

func startRaw(t *testing.T, s *Server) *rawClient {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	c := &rawClient{t: t, w: cw, got: map[string]map[string]any{}, done: make(chan error, 1)}
	go func() { c.done <- s.ServeIO(context.Background(), sr, sw); sw.Close() }()
	go func() {
		sc := bufio.NewScanner(cr)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var ms []map[string]any // a batch's responses, as go-sdk writes them
			if err := json.Unmarshal(sc.Bytes(), &ms); err != nil {
				var m map[string]any
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					t.Errorf("server wrote a line that is not a JSON object or array: %.200q", sc.Bytes())
					continue
				}
				ms = []map[string]any{m}
			}
			for _, m := range ms {
				id, _ := json.Marshal(m["id"])
				c.mu.Lock()
				c.got[string(id)] = m
				c.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cw.Close()
		select {
		case err := <-c.done:
			if err != nil {
				t.Errorf("ServeIO = %v after the client hung up", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeIO did not return after the client hung up")
		}
	})
	return c
}

func (c *rawClient) send(line []byte) {
	c.t.Helper()
	if _, err := c.w.Write(line); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// wait returns the response with this id (JSON text: 3, "abc").
func (c *rawClient) wait(id string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c.mu.Lock()
		m := c.got[id]
		c.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case err := <-c.done:
			c.t.Fatalf("ServeIO ended (%v) before answering id %s", err, id)
		default:
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("no response with id %s", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (c *rawClient) has(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.got[id] != nil
}

func (c *rawClient) initialize() {
	c.send([]byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n"))
	c.wait(`"init"`)
	c.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
}

// badFrame is a hostile line and the error code it must be answered with
// under its id, or 0 if it has no id to answer and is dropped.
type hostileFrame struct {
	name string
	line []byte
	id   string // JSON text of the id to be answered, "" to drop
	code int64
}

func nested(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }

// hostileFrames are lines that ended serve --stdio before.
func hostileFrames() []hostileFrame {
	binary := make([]byte, 0, 256)
	for b := range 256 {
		if b != '\n' {
			binary = append(binary, byte(b))
		}
	}
	huge := append([]byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`),
		bytes.Repeat([]byte("x"), 100<<20)...)
	huge = append(huge, `"}}}`...)
	return []hostileFrame{
		{"not JSON", []byte("hello there"), "", 0},
		{"binary", binary, "", 0},
		{"100k deep arguments", []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"a":` + nested(100000) + `}}}`), "7", jsonrpc.CodeParseError},
		{"100 MB frame", huge, "8", jsonrpc.CodeParseError},
		{"cut short", []byte(`{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"echo","arguments":{`), `"abc"`, jsonrpc.CodeParseError},
		{"two values", []byte(`{"jsonrpc":"2.0","id":12,"method":"ping"} {}`), "12", jsonrpc.CodeParseError},
		{"wrong version", []byte(`{"jsonrpc":"1.0","id":9,"method":"tools/list"}`), "9", jsonrpc.CodeInvalidRequest},
		{"object id", []byte(`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`), "", 0},
		{"null id, cut short", []byte(`{"jsonrpc":"2.0","id":null,"method":`), "", 0},
		{"scalar", []byte(`42`), "", 0},
		{"empty batch", []byte(`[]`), "", 0},
		{"batch with a duplicate id", []byte(`[{"jsonrpc":"2.0","id":20,"method":"ping"},{"jsonrpc":"2.0","id":20,"method":"ping"}]`), "", 0},
		{"600 deep, under go-sdk's limit", []byte(`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"echo","arguments":{"a":` + nested(600) + `}}}`), "21", jsonrpc.CodeParseError},
		{"a lone CR", []byte("\r"), "", 0},
	}
}

// Every hostile line is answered (when it has an id) or dropped, and the
// request after it is answered: one bad line never ends the connection.
func TestStdioSurvivesHostileFrames(t *testing.T) {
	s := New(newFakeSession(), Options{})
	defer s.Close()
	c := startRaw(t, s)
	c.initialize()
	answered := 0
	for i, f := range hostileFrames() {
		c.send(append(f.line, '\n'))
		next := fmt.Sprint(1000 + i)
		c.send([]byte(`{"jsonrpc":"2.0","id":` + next + `,"method":"tools/list"}` + "\n"))
		if r, _ := c.wait(next)["result"].(map[string]any); r == nil || len(r["tools"].([]any)) == 0 {
			t.Errorf("%s: tools/list after it = %v", f.name, c.wait(next))
		}
		if f.id == "" {
			continue
		}
		e, _ := c.wait(f.id)["error"].(map[string]any)
		if e == nil || e["code"] != float64(f.code) {
			t.Errorf("%s: answer %v, want error code %d", f.name, c.wait(f.id), f.code)
			continue
		}
		answered++
	}
	t.Logf("%d hostile frames survived, %d answered with an error under their id", len(hostileFrames()), answered)
	// A CRLF line ending is a line ending.
	c.send([]byte(`{"jsonrpc":"2.0","id":"crlf","method":"ping"}` + "\r\n"))
	c.wait(`"crlf"`)
}

// An oversized line streams past: never held whole.
func TestOversizedLineNotBuffered(t *testing.T) {
	const max = 1 << 20
	var bad []badFrame
	line := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":5,"params":"`), &repeatReader{n: 100 << 20},
		strings.NewReader("\"}\n"+`{"jsonrpc":"2.0","id":6,"method":"ping"}`+"\n"))
	r := newFrameReader(io.NopCloser(line), max, func(b badFrame) { bad = append(bad, b) })
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	out, err := readFrames(r)
	goruntime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"jsonrpc":"2.0","id":6,"method":"ping"}`+"\n" {
		t.Errorf("passed on %.100q", out)
	}
	if len(bad) != 1 || !bad[0].hasID || bad[0].id.Raw() != int64(5) || bad[0].size != 100<<20+len(`{"jsonrpc":"2.0","id":5,"params":""}`) {
		t.Errorf("bad frames %+v", bad)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 20<<20 || cap(r.line) > 2*max {
		t.Errorf("reading a 100 MiB line allocated %d bytes (line buffer %d): it was held whole", alloc, cap(r.line))
	}
}

type repeatReader struct{ n int }

var xs = bytes.Repeat([]byte("x"), 64<<10)

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n)], xs)
	r.n -= n
	return n, nil
}

// A configured cap is the cap.
func TestStdioMaxMessageBytes(t *testing.T) {
	s := New(newFakeSession(), Options{MaxMessageBytes: 1000})
	defer s.Close()
	c := startRaw(t, s)
	c.initialize()
	c.send([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("y", 1000) + `"}}}` + "\n"))
	if e, _ := c.wait("1")["error"].(map[string]any); e == nil || !strings.Contains(fmt.Sprint(e["message"]), "over the 1000-byte limit") {
		t.Errorf("over the cap: %v", c.wait("1"))
	}
	c.send([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"short"}}}` + "\n"))
	if r, _ := c.wait("2")["result"].(map[string]any); r == nil {
		t.Errorf("under the cap: %v", c.wait("2"))
	}
}

func TestRequestID(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"x"}`:          "7",
		` {"id" : "a\"b", "method":"x"`:                  `"a\"b"`,
		`{"params":{"id":3},"id":4}`:                     "4",
		`{"params":[{"id":3}],"x":"\"id\":5","id":-2,`:   "-2",
		`{"method":"x","id":`:                            "",
		`{"id":null}`:                                    "",
		`{"id":1.5}`:                                     "",
		`{"id":true}`:                                    "",
		`{"id":{"a":1}}`:                                 "",
		`[{"id":1}]`:                                     "",
		`{"a":"id","b":1}`:                               "",
		"\x00\xff{\"id\":1}":                             "",
		`{"a":[[[[[[` + `"id":9`:                         "",
		`{"a":"unterminated, "id":3`:                     "",
		`{"id":12345678901234,"method":"x"}`:             "12345678901234",
		`{"id":"` + strings.Repeat("z", 10) + `","m":1}`: `"zzzzzzzzzz"`,
	} {
		id, ok := requestID([]byte(in))
		got := ""
		if ok {
			b, _ := json.Marshal(id.Raw())
			got = string(b)
		}
		if got != want {
			t.Errorf("requestID(%q) = %s, want %s", in, got, want)
		}
	}
}

// The stdio framing, fuzzed: whatever precedes it, a valid request on its
// own line is answered, and the server writes only JSON-RPC.
func FuzzStdioFrames(f *testing.F) {
	for _, fr := range hostileFrames() {
		if len(fr.line) < 1<<20 {
			f.Add(fr.line)
		}
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"\\u0000\"}}}\r"))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}]`))
	sess := newFakeSession()
	sess.setTools(func(ts []runtime.ToolInfo) []runtime.ToolInfo { // no tool that blocks
		return slices.DeleteFunc(ts, func(t runtime.ToolInfo) bool { return t.Name == "slow" })
	})
	f.Fuzz(func(t *testing.T, in []byte) {
		s := New(sess, Options{MaxMessageBytes: 4096})
		defer s.Close()
		c := startRaw(t, s)
		c.initialize()
		c.send(append(in, '\n'))
		c.send([]byte(`{"jsonrpc":"2.0","id":"after-fuzz-q7","method":"ping"}` + "\n"))
		if r := c.wait(`"after-fuzz-q7"`); r["error"] != nil {
			t.Fatalf("ping after %q: %v", in, r)
		}
	})
}

// The frame filter alone, fuzzed fast: whatever the input, what it passes
// on is one JSON-RPC message (or batch) per line within the limits, and
// every other line is reported.
func FuzzFrameReader(f *testing.F) {
	for _, fr := range hostileFrames() {
		if len(fr.line) < 1<<20 {
			f.Add(append(fr.line, '\n'))
		}
	}
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n  \n[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]"))
	f.Add([]byte(`{"id":"\"\\","jsonrpc":"2.0","method":"x"}`))
	f.Add([]byte(`{"jsonrpc":"2\u002e0","\u006dethod":null,"id":1e3}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":5,"result":{},"error":{"code":1.5,"message":"x"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":5,"id":null,"method":"x","method":7}`))
	const max = 256
	f.Fuzz(func(t *testing.T, in []byte) {
		lines := 0
		for _, l := range bytes.Split(in, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 || len(l) > max {
				lines++
			}
		}
		bad := 0
		r := newFrameReader(io.NopCloser(bytes.NewReader(in)), max, func(b badFrame) {
			bad++
			if b.hasID && !b.id.IsValid() {
				t.Errorf("answering under an invalid id %v", b.id)
			}
		})
		out, err := readFrames(r)
		if err != nil {
			t.Fatal(err)
		}
		passed := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
		if len(out) == 0 {
			passed = nil
		}
		for _, p := range passed {
			if len(p) > max || deeperThan(p, MaxDepth) || !json.Valid(p) {
				t.Fatalf("passed on %q", p)
			}
			if p[0] == '{' {
				if _, err := jsonrpc.DecodeMessage(p); err != nil {
					t.Fatalf("passed on %q: %v", p, err)
				}
			} else if p[0] != '[' {
				t.Fatalf("passed on %q", p)
			}
		}
		if len(passed)+bad != lines {
			t.Fatalf("%d lines in, %d passed and %d reported", lines, len(passed), bad)
		}
		// The envelope check refuses exactly what go-sdk would.
		for _, l := range bytes.Split(in, []byte("\n")) {
			if l = bytes.TrimSpace(l); len(l) > 0 && l[0] == '{' && !deeperThan(l, MaxDepth) && json.Valid(l) {
				_, want := jsonrpc.DecodeMessage(l)
				if got := checkEnvelope(l); (got == nil) != (want == nil) {
					t.Fatalf("checkEnvelope(%q) = %v, DecodeMessage: %v", l, got, want)
				}
			}
		}
	})
}

// What the frame checks cost a call over stdio: go-sdk's own IOTransport
// (the baseline, which one bad line ends) against ServeIO, for a small
// call and one with 1 MiB of arguments.
func BenchmarkStdioCall(b *testing.B) {
	for _, size := range []int{16, 1 << 20} {
		args, _ := json.Marshal(map[string]string{"text": strings.Repeat("a", size)})
		for _, via := range []string{"gosdk-io", "serve-stdio"} {
			b.Run(fmt.Sprintf("%s/%dB", via, size), func(b *testing.B) {
				s := New(newFakeSession(), Options{})
				defer s.Close()
				cr, sw := io.Pipe()
				sr, cw := io.Pipe()
				done := make(chan error, 1)
				go func() {
					if via == "serve-stdio" {
						done <- s.ServeIO(context.Background(), sr, sw)
					} else {
						done <- s.mcp.Run(context.Background(), &mcp.IOTransport{Reader: sr, Writer: sw})
					}
				}()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
					Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
				if err != nil {
					b.Fatal(err)
				}
				params := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(args)}
				b.ReportAllocs()
				for b.Loop() {
					if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
						b.Fatal(err, res)
					}
				}
				cs.Close()
				<-done
			})
		}
	}
}

// checkEnvelope refuses exactly what go-sdk's DecodeMessage refuses.
func TestCheckEnvelopeMatchesGoSDK(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":2.0,"id":1,"method":"ping"}`,
		`{"id":1,"method":"ping"}`,
		`{"jsonrpc":"2\u002e0","\u006dethod":null,"id":1e3}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":7}`,
		`{"jsonrpc":"2.0","id":1,"method":{}}`,
		`{"jsonrpc":"2.0","id":5,"id":null,"method":"x"}`,
		`{"jsonrpc":"2.0","id":null,"id":5}`,
		`{"jsonrpc":"2.0","method":"x","method":7}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":1.5,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":5,"error":null}`,
		`{"jsonrpc":"2.0","id":5,"error":"boom"}`,
		`{"JSONRPC":"2.0","id":1,"method":"ping"}`,
		`{ "jsonrpc" : "2.0" , "id" : 1 , "method" : "ping" , "params" : {"a":[1,{"b":"}"}]} }`,
		`{}`,
	} {
		_, want := jsonrpc.DecodeMessage([]byte(in))
		if got := checkEnvelope([]byte(in)); (got == nil) != (want == nil) {
			t.Errorf("checkEnvelope(%s) = %v, DecodeMessage: %v", in, got, want)
		}
	}
}

// The frame checks alone, per message, against go-sdk decoding the same
// message once (which it does at least twice per message anyway).
func BenchmarkFrameCheck(b *testing.B) {
	for _, size := range []int{16, 1 << 20} {
		msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("a", size) + `"}}}`)
		b.Run(fmt.Sprintf("gosdk-decode/%dB", size), func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := jsonrpc.DecodeMessage(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("frame-check/%dB", size), func(b *testing.B) {
			r := newFrameReader(io.NopCloser(nil), 0, func(badFrame) { b.Fatal("refused") })
			b.SetBytes(int64(len(msg)))
			b.ReportAllocs()
			for b.Loop() {
				if r.check(msg, len(msg)) == nil {
					b.Fatal("refused")
				}
			}
		})
	}
}

// readFrames is every frame r passes on, one a line.
func readFrames(r *frameReader) ([]byte, error) {
	var out []byte
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(append(out, f...), '\n')
	}
}

// A client that stops reading (closes its end of our output) while its
// input stays open ends serving as EOF would, with no error: nothing more
// can reach it. A call answered on the lean path and one answered by
// go-sdk both find it gone. Before, the lean path dropped its write
// error and read on.
func TestStdioEndsWhenTheClientStopsReading(t *testing.T) {
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	} {
		s := New(newFakeSession(), Options{})
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- s.ServeIO(context.Background(), sr, sw) }()
		br := bufio.NewReader(cr)
		io.WriteString(cw, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
		if _, err := br.ReadBytes('\n'); err != nil {
			t.Fatal(err)
		}
		io.WriteString(cw, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		cr.Close()
		go io.WriteString(cw, req+"\n") // may block: nobody need read it once serving ends
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: ServeIO = %v; want nil (the client left)", req, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: ServeIO still serving a client that stopped reading", req)
		}
		cw.Close()
		s.Close()
	}
}
