package event

// The agent loop's events (runtime/internal/loop logs them).
const (
	AgentTurn        = "agent.turn"         // agent, turn, tool_calls, tokens_in/out (+ subagent_tokens_in/out), latency_ms
	ModelRequest     = "model.request"      // model, agent, turn, status, latency_ms, tokens_in/out, stop_reason or error
	AgentHandoff     = "agent.handoff"      // from, to, turn
	AgentRun         = "agent.run"          // agent, status, turns, tool_calls, tokens_in/out, latency_ms, error
	ModelToolSkipped = "model.tool_skipped" // a tool no model can be given (its name or schema); the rest go on
)

// SkillLoad: the loop loaded a skill's file for the model (skill_load):
// agent, skill, path, bytes, or error (a digest that does not match).
const SkillLoad = "skill.load"

// SkillVerifyFailed: an upstream skill's file did not match the server's
// listing (size, digest or frontmatter) and was not handed on.
const SkillVerifyFailed = "skill.verify_failed"
