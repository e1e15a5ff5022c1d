package tools

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/runtime"
)

// The Tasks extension's scenarios (tasks-*): tools declared with
// task = "optional" or "required" run as tasks for hosts that declare the
// extension (runtime/tasks).

// GreetArgs names whom to greet.
type GreetArgs struct {
	Name string `json:"name"`
}

// Greet is the scenarios' plain call.
func Greet(ctx context.Context, a GreetArgs) (string, error) {
	return "Hello, " + a.Name + "!", nil
}

// SlowArgs say how long SlowCompute works.
type SlowArgs struct {
	Seconds float64 `json:"seconds"`
	Label   string  `json:"label,omitempty"`
}

// SlowCompute works for the given seconds, or until it is cancelled.
func SlowCompute(ctx context.Context, a SlowArgs) (string, error) {
	t := time.NewTimer(time.Duration(a.Seconds * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return fmt.Sprintf("computed %s after %gs", a.Label, a.Seconds), nil
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// FailingJob fails as a tool (an error result) after a second.
func FailingJob(ctx context.Context, _ NoArgs) (string, error) {
	select {
	case <-time.After(time.Second):
		return "", errors.New("the job failed, as it always does")
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// ProtocolErrorJob breaks inside the agent: its task fails.
func ProtocolErrorJob(ctx context.Context, _ NoArgs) (string, error) {
	panic("protocol_error_job breaks on purpose")
}

// DeleteArgs name the file ConfirmDelete asks about.
type DeleteArgs struct {
	Filename string `json:"filename"`
}

// ConfirmDelete asks the user to confirm, then answers.
func ConfirmDelete(ctx context.Context, a DeleteArgs) (string, error) {
	res, err := runtime.Elicit(ctx, &mcp.ElicitParams{Message: "Delete " + a.Filename + "?",
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"confirm": map[string]any{"type": "boolean"}}, "required": []string{"confirm"}}})
	if err != nil {
		return "", err
	}
	if res.Action != "accept" {
		return "kept " + a.Filename + " (" + res.Action + ")", nil
	}
	return "deleted " + a.Filename, nil
}

// MultiInput asks two questions at once.
func MultiInput(ctx context.Context, _ NoArgs) (string, error) {
	var wg sync.WaitGroup
	var names [2]string
	var errs [2]error
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			names[i], errs[i] = askName(ctx, fmt.Sprintf("Name %d?", i+1))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return "", err
	}
	return "got " + names[0] + " and " + names[1], nil
}

// GreetLater asks the user's name in an input-required round (user_name),
// then continues as a task that greets them after a moment
// (tasks-mrtr-composition): declared with task = "after_input".
func GreetLater(ctx context.Context, _ NoArgs) (string, error) {
	name, err := askName(runtime.AskAs(ctx, "user_name"), "What is your name?")
	if err != nil {
		return "", err
	}
	if err := runtime.ContinueAsTask(ctx); err != nil {
		return "", err
	}
	select {
	case <-time.After(200 * time.Millisecond):
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
	return "Hello, " + name + ", from a task!", nil
}
