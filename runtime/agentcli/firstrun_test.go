package agentcli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// agentEnvRun runs the built binary with extra environment entries.
func agentEnvRun(t *testing.T, extra []string, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, args...)
	cmd.Dir = repoRoot
	cmd.Env = append(append([]string{}, agentEnv...), extra...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return outcome{code, out.String(), errb.String()}
}

// Issue 21 item 22: `tools` printed "no tools" and exited 0 when every
// server of the agent was down. It exits 1 and says why each is down.
func TestToolsFailsWhenEveryServerIsRed(t *testing.T) {
	broken := []string{"TESTAGENT_NODE=/nonexistent/node"}
	for _, args := range [][]string{{"tools", "--agent", "gateway"}, {"tools", "--agent", "gateway", "--json"}} {
		o := agentEnvRun(t, broken, args...)
		if o.code != 1 || !strings.Contains(o.stderr, "server everything is unavailable") || !strings.Contains(o.stderr, "/nonexistent/node") {
			t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, o.code, o.stdout, o.stderr)
		}
	}
	// helper's own tools are still listed; its one server is down all the same
	o := agentEnvRun(t, broken, "tools", "--agent", "helper")
	o.want(t, 1)
	if !strings.Contains(o.stdout, "read_file") || !strings.Contains(o.stderr, "server everything is unavailable") {
		t.Errorf("helper:\nstdout:\n%s\nstderr:\n%s", o.stdout, o.stderr)
	}
}

// Issue 21 item 22: read_file's offset said "counting from 1" while its
// schema allowed 0. The schema's minimum is 1, so a 0 is refused by the
// argument check, and 1 is the first line.
func TestReadFileOffsetCountsFromOne(t *testing.T) {
	o := agent(t, "tools", "--agent", "helper", "--json")
	o.want(t, 0)
	var tools []struct {
		Name        string
		InputSchema struct {
			Properties map[string]struct {
				Minimum     *float64
				Description string
			}
		}
	}
	if err := json.Unmarshal([]byte(o.stdout), &tools); err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if tl.Name != "read_file" {
			continue
		}
		off := tl.InputSchema.Properties["offset"]
		if off.Minimum == nil || *off.Minimum != 1 || !strings.Contains(off.Description, "counting from 1") {
			t.Errorf("offset: minimum %v, %q", off.Minimum, off.Description)
		}
	}
	o = agent(t, "call", "--agent", "helper", "read_file", `{"path":"go.mod","offset":0}`)
	if o.code != 1 || !strings.Contains(o.stdout+o.stderr, "offset") {
		t.Errorf("offset 0: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	o = agent(t, "call", "--agent", "helper", "read_file", `{"path":"go.mod","offset":1,"limit":1}`)
	o.want(t, 0)
	if r := callResult(t, o); !strings.HasPrefix(r.Result, "module ") {
		t.Errorf("offset 1: %q", r.Result)
	}
}
