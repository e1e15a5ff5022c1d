package agentcli

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/toolgen-dev/toolgen/runtime"
)

// maxPromptBytes bounds a prompt read from stdin.
const maxPromptBytes = 4 << 20

// run is `run [--agent A] [--json] [--max-turns N] PROMPT`: the agent
// answers the prompt on its model, with its tools and sub-agents. The
// answer goes to stdout; a run that fails (max_turns, a model error, no
// model) exits 1 with the reason on stderr.
func (c *cli) run(args []string) int {
	fs := c.flags("run")
	agent := fs.String("agent", "", "the agent (default: the first)")
	asJSON := fs.Bool("json", false, "print {answer, status, agent, turns, usage, tool_calls, error} as JSON")
	maxTurns := fs.Int("max-turns", 0, "model calls before the run fails (default: the agent's max_turns)")
	stream := fs.Bool("stream", false, "ask the model for streamed answers")
	pos, err := parse(fs, args)
	if err != nil {
		return parseExit(err)
	}
	if *maxTurns < 0 {
		return c.usageErr(fs, "--max-turns must be at least 1")
	}
	prompt := strings.Join(pos, " ")
	if len(pos) == 0 || prompt == "-" {
		b, err := io.ReadAll(io.LimitReader(c.opts.Stdin, maxPromptBytes+1))
		if err != nil {
			return c.fail(exitFail, fmt.Errorf("read the prompt from stdin: %w", err))
		}
		if len(b) > maxPromptBytes {
			return c.fail(exitFail, fmt.Errorf("the prompt on stdin is larger than %d bytes", maxPromptBytes))
		}
		prompt = string(b)
	}
	if strings.TrimSpace(prompt) == "" {
		return c.usageErr(fs, "no prompt: give it as arguments or on stdin")
	}
	sess, _, err := c.open(*agent, slog.LevelWarn)
	if err != nil {
		return c.fail(exitFail, err)
	}
	defer sess.Close()
	res, err := sess.Run(c.ctx, prompt, runtime.RunOptions{MaxTurns: *maxTurns, Stream: *stream})
	if *asJSON {
		if code := c.printJSON(res); code != exitOK {
			return code
		}
	} else if err == nil {
		fmt.Fprintln(c.stdout, res.Answer)
	}
	if err != nil {
		return c.fail(exitFail, err)
	}
	return exitOK
}
