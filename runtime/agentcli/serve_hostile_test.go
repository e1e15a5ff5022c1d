package agentcli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// The agent binary under `serve --stdio` gets one hostile line after
// another, each followed by a valid tools/list: every tools/list is
// answered, a hostile line with an id gets a JSON-RPC error under it, and
// the process ends cleanly when stdin closes.
func TestServeStdioHostileFrames(t *testing.T) {
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	binary := make([]byte, 0, 256)
	for b := range 256 {
		if b != '\n' {
			binary = append(binary, byte(b))
		}
	}
	huge := []byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"shout","arguments":{"text":"` +
		strings.Repeat("x", 100<<20) + `"}}}`)
	frames := []struct {
		name string
		line []byte
		id   string // JSON text of the id answered with an error; "" when dropped
	}{
		{"not JSON", []byte("hello there"), ""},
		{"binary", binary, ""},
		{"100k deep arguments", []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"shout","arguments":{"a":` + nested(100000) + `}}}`), "7"},
		{"100 MB frame", huge, "8"},
		{"cut short", []byte(`{"jsonrpc":"2.0","id":"cut","method":"tools/call","params":{"name":"shout",`), `"cut"`},
		{"wrong version", []byte(`{"jsonrpc":"1.0","id":9,"method":"tools/list"}`), "9"},
		{"scalar", []byte(`"just a string"`), ""},
		{"empty batch", []byte(`[]`), ""},
	}

	cmd := exec.Command(agentBin, "serve", "--stdio", "--agent", "helper")
	cmd.Dir = repoRoot
	cmd.Env = agentEnv
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	var mu sync.Mutex
	got := map[string]map[string]any{}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("stdout line is not JSON-RPC: %.200q", sc.Bytes())
				continue
			}
			id, _ := json.Marshal(m["id"])
			mu.Lock()
			got[string(id)] = m
			mu.Unlock()
		}
	}()
	wait := func(id string) map[string]any {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			mu.Lock()
			m := got[id]
			mu.Unlock()
			if m != nil {
				return m
			}
			select {
			case <-readDone:
				t.Fatalf("the agent closed stdout before answering id %s\nstderr:\n%s", id, stderr.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("no answer with id %s\nstderr:\n%s", id, stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	send := func(line []byte) {
		t.Helper()
		if _, err := stdin.Write(append(line, '\n')); err != nil {
			t.Fatalf("write: %v\nstderr:\n%s", err, stderr.String())
		}
	}

	send([]byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`))
	wait(`"init"`)
	send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	survived, answered, withID := 0, 0, 0
	for i, f := range frames {
		send(f.line)
		next := fmt.Sprint(100 + i)
		send([]byte(`{"jsonrpc":"2.0","id":` + next + `,"method":"tools/list"}`))
		if r, _ := wait(next)["result"].(map[string]any); r != nil && len(r["tools"].([]any)) > 0 {
			survived++
		} else {
			t.Errorf("%s: tools/list after it = %v", f.name, wait(next))
		}
		if f.id == "" {
			continue
		}
		withID++
		if e, _ := wait(f.id)["error"].(map[string]any); e != nil {
			answered++
		} else {
			t.Errorf("%s: answer %v, want a JSON-RPC error", f.name, wait(f.id))
		}
	}
	t.Logf("frames survived %d/%d; errors answered %d/%d (the others have no id to answer)", survived, len(frames), answered, withID)

	stdin.Close()
	<-readDone
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve --stdio after stdin closed: %v\nstderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "serve.bad_message") {
		t.Errorf("no serve.bad_message event on stderr:\n%s", stderr.String())
	}
}
