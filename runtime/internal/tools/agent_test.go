package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// spawnerFunc runs each agent with fn; every agent is spawnable.
type spawnerFunc func(agent, prompt string) (string, error)

func (f spawnerFunc) Run(_ context.Context, agent, prompt string) (string, error) {
	return f(agent, prompt)
}

func (spawnerFunc) Spawnable() []AgentInfo { return []AgentInfo{{Name: "ok"}, {Name: "bad"}} }

func spawnChildren(agent, prompt string) (string, error) {
	if agent == "bad" {
		return "", errors.New("model error: 500")
	}
	return "answer to " + prompt, nil
}

// One failing child does not fail the call: each child has its result.
func TestSpawnAgentsOneChildFails(t *testing.T) {
	tool := SpawnAgents(spawnerFunc(spawnChildren))
	out, err := tool.Run(context.Background(), json.RawMessage(`{"agents":[{"agent":"ok","prompt":"a"},{"agent":"bad","prompt":"b"}]}`))
	if err != nil {
		t.Fatalf("error %v", err)
	}
	want := `[{"agent":"ok","ok":true,"result":"answer to a"},{"agent":"bad","ok":false,"error":"model error: 500"}]`
	if out != want {
		t.Errorf("got %s\nwant %s", out, want)
	}
}

// When every child fails the call is an error, still naming each failure.
func TestSpawnAgentsAllFail(t *testing.T) {
	tool := SpawnAgents(spawnerFunc(spawnChildren))
	_, err := tool.Run(context.Background(), json.RawMessage(`{"agents":[{"agent":"bad","prompt":"a"},{"agent":"bad","prompt":"b"}]}`))
	if err == nil || !strings.HasPrefix(err.Error(), "all 2 sub-agents failed: ") || strings.Count(err.Error(), "model error: 500") != 2 {
		t.Errorf("error %v", err)
	}
}
