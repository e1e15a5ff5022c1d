package mcpconn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The package's connections take task calls, as in an agent that links
// runtime/tasks.
func init() { LinkTasks() }

// taskAgent builds examples/conformance, an agent binary that serves the
// Tasks extension (slow_compute runs as a task for a host that asks).
func taskAgent(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds an agent binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "conformance")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/conformance").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type taskWire struct {
	ResultType string          `json:"resultType"`
	TaskID     string          `json:"taskId"`
	Status     string          `json:"status"`
	Result     json.RawMessage `json:"result"`
}

func readTask(t *testing.T, raw json.RawMessage) taskWire {
	t.Helper()
	var w taskWire
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return w
}

// An upstream agent's task is created, polled, cancelled and collected
// through the connection, each answer as the server sent it; a call
// without the extension still gets the plain result on the same session.
func TestUpstreamTasks(t *testing.T) {
	bin := taskAgent(t)
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, Config{Name: "up", Command: bin, Args: []string{"serve"}, Dir: t.TempDir(), Logger: newRecorder().logger()})
	defer c.Release()
	upstreamTasks(t, c)
}

// The same over streamable HTTP: the agent's serve --http, a 2026-07-28
// server without sessions, answers task calls with JSON or SSE bodies.
func TestUpstreamTasksOverHTTP(t *testing.T) {
	bin := taskAgent(t)
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0")
	cmd.Dir = t.TempDir()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`serving agent .* on (http://\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	var url string
	select {
	case url = <-urls:
	case <-time.After(time.Minute):
		t.Fatal("serve --http did not start")
	}
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, Config{Name: "up", Transport: TransportHTTP, URL: url, Logger: newRecorder().logger()})
	defer c.Release()
	upstreamTasks(t, c)
}

func upstreamTasks(t *testing.T, c *Conn) {
	if !c.ServesTasks() {
		t.Fatalf("ServesTasks false on %s; capabilities %+v", c.ProtocolVersion(), c.Capabilities())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	send := func(method, id string) taskWire {
		t.Helper()
		raw, err := c.SendTask(ctx, method, json.RawMessage(`{"taskId":"`+id+`"}`))
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return readTask(t, raw)
	}

	raw, err := c.CallAsTask(ctx, "slow_compute", json.RawMessage(`{"seconds":600,"label":"long"}`))
	if err != nil {
		t.Fatal(err)
	}
	long := readTask(t, raw)
	if long.ResultType != "task" || long.TaskID == "" || long.Status != "working" {
		t.Fatalf("created: %s", raw)
	}
	if got := send("tasks/get", long.TaskID); got.Status != "working" || got.TaskID != long.TaskID {
		t.Fatalf("polled: %+v", got)
	}
	send("tasks/cancel", long.TaskID)
	if got := send("tasks/get", long.TaskID); got.Status != "cancelled" {
		t.Fatalf("after cancel: %+v", got)
	}

	raw, err = c.CallAsTask(ctx, "slow_compute", json.RawMessage(`{"seconds":0.1,"label":"short"}`))
	if err != nil {
		t.Fatal(err)
	}
	short := readTask(t, raw)
	var got taskWire
	for got = send("tasks/get", short.TaskID); got.Status == "working"; got = send("tasks/get", short.TaskID) {
		time.Sleep(50 * time.Millisecond)
	}
	if got.Status != "completed" || !strings.Contains(string(got.Result), "computed short") {
		t.Fatalf("collected: %+v %s", got, got.Result)
	}

	// Unknown task: the server's JSON-RPC error as it came.
	_, err = c.SendTask(ctx, "tasks/get", json.RawMessage(`{"taskId":"nope"}`))
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != -32602 {
		t.Errorf("unknown task: %v; want the server's -32602", err)
	}
	if _, err := c.SendTask(ctx, "tools/list", json.RawMessage(`{"taskId":"x"}`)); err == nil {
		t.Error("SendTask sent a method of no extension")
	}

	// The same session, a plain call: the plain result.
	r := call(t, c, "slow_compute", `{"seconds":0,"label":"plain"}`)
	if !strings.Contains(r.Text(), "computed plain") {
		t.Errorf("plain call: %+v", r)
	}
}

// The mark leaves a task call's params before they are written; the rest
// stays.
func TestUnmark(t *testing.T) {
	mark, out, ok := unmark(json.RawMessage(`{"name":"x","arguments":{"a":1},"_meta":{"` + taskMark + `":"m1","other":2}}`))
	if !ok || mark != "m1" || strings.Contains(string(out), taskMark) || !strings.Contains(string(out), `"other":2`) || !strings.Contains(string(out), `"arguments":{"a":1}`) {
		t.Errorf("unmark: %q %s %v", mark, out, ok)
	}
	for _, bad := range []string{`{"_meta":{}}`, `[`, `{"_meta":{"` + taskMark + `":3}}`} {
		if _, _, ok := unmark(json.RawMessage(bad)); ok {
			t.Errorf("unmark(%s) ok", bad)
		}
	}
}

// Whatever a server's HTTP answer holds, answerReader passes it on byte
// for byte and keeps only a marked call's result.
func FuzzAnswerReader(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"resultType\":\"task\",\"taskId\":\"t\"}}\n\n"), true, 5)
	f.Add([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`), false, 3)
	f.Add([]byte("data: {\"id\":7,\"result\"\r\ndata:\n\n"), true, 1)
	f.Fuzz(func(t *testing.T, body []byte, sse bool, chunk int) {
		if chunk <= 0 || chunk > 64 {
			chunk = 7
		}
		a := &taskAnswers{}
		req, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`))
		if err != nil {
			t.Fatal(err)
		}
		a.mark(req.(*jsonrpc.Request).ID, "m")
		r := &answerReader{ReadCloser: io.NopCloser(bytes.NewReader(body)), ans: a, sse: sse}
		var out bytes.Buffer
		buf := make([]byte, chunk)
		for {
			n, err := r.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if !bytes.Equal(out.Bytes(), body) {
			t.Fatalf("passed on %q; got %q", out.Bytes(), body)
		}
		if got := a.take("m"); got != nil && !json.Valid(got) {
			t.Fatalf("kept %q", got)
		}
	})
}
