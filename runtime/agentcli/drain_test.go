package agentcli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
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
