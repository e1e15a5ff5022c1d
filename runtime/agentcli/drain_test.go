package agentcli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A client that writes its requests and closes its input at once (a
// script piping a file in) gets an answer to every one of them before the
// agent exits: initialize, Go tool calls, upstream calls to
// server-everything, a list and a ping. The agent used to exit at the end
// of its input with none answered.
func TestStdioAnswersEveryRequestBeforeExit(t *testing.T) {
	var in bytes.Buffer
	want := map[string]bool{}
	req := func(id int, method, params string) {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		want[fmt.Sprint(id)] = true
	}
	req(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"script","version":"1"}}`)
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	id := 2
	for i := range 10 {
		req(id, "tools/call", fmt.Sprintf(`{"name":"shout","arguments":{"text":"call %d"}}`, i))
		id++
		req(id, "tools/call", fmt.Sprintf(`{"name":"everything__echo","arguments":{"message":"echo %d"}}`, i))
		id++
	}
	req(id, "tools/list", `{}`)
	req(id+1, "ping", `{}`)

	cmd := exec.Command(agentBin, "serve", "--stdio", "--agent", "helper")
	cmd.Dir, cmd.Env = repoRoot, agentEnv
	cmd.Stdin = &in // closed as soon as it is read
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent: %v\n%s", err, stderr.String())
	}
	got := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.ID == nil {
			continue // a notification
		}
		if msg.Error != nil || msg.Result == nil {
			t.Errorf("request %s failed: %s", msg.ID, sc.Bytes())
		}
		if bytes.Contains(msg.Result, []byte(`"isError":true`)) {
			t.Errorf("request %s: error result: %s", msg.ID, msg.Result)
		}
		got[string(msg.ID)] = true
	}
	for id := range want {
		if !got[id] {
			t.Errorf("request %s never answered", id)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d answers for %d requests:\n%s\nstderr:\n%s", len(got), len(want), out, stderr.String())
	}
	if t.Failed() && !strings.Contains(string(out), `"id":1`) {
		t.Log("not even initialize was answered")
	}
}

// A host that closes its end of the agent's stdout ends the agent as EOF
// on stdin does: exit status 0, after stopping its upstream servers. The
// write to a closed stdout used to kill it with SIGPIPE, no teardown run.
func TestStdioHostClosingStdoutEndsCleanly(t *testing.T) {
	cmd := exec.Command(agentBin, "serve", "--stdio", "--agent", "helper")
	cmd.Dir, cmd.Env = repoRoot, agentEnv
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"leaver","version":"1"}}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"up"}}}`)
	br := bufio.NewReader(out)
	for answered := 0; answered < 2; {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("agent's stdout: %v\nstderr:\n%s", err, stderr.String())
		}
		if bytes.Contains(line, []byte(`"id":`)) {
			answered++
		}
	}
	upstreams := descendants(t, cmd.Process.Pid)
	if len(upstreams) == 0 {
		t.Fatal("the agent started no upstream server")
	}
	out.Close()
	for i := range 20 { // answers to these have nowhere to go
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"gone"}}}`+"\n", 10+i)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agent after its host closed stdout: %v (want exit status 0)\nstderr:\n%s", err, stderr.String())
	}
	// The agent waited for its servers before exiting; a reaper may still
	// need a moment for a grandchild, so allow a few seconds.
	deadline := time.Now().Add(5 * time.Second)
	for left := alive(upstreams); len(left) > 0; left = alive(upstreams) {
		if time.Now().After(deadline) {
			t.Fatalf("upstream servers outlived the agent: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
