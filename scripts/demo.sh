#!/usr/bin/env bash
# The toolgen demo, end to end on a fresh checkout (after `make npm`):
# generate the demo agent from examples/demo/spec, build it, and drive the
# binary: list, search, call a builtin and an upstream MCP tool, watch a
# blocked call get refused, show server health; then build the team
# example and, when a model key is set, run its lead. `make demo` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

agent=bin/demo-agent
nm=testdata/npm/node_modules
# Events (server.start, tool.blocked …) go to stderr; keep the demo to
# warnings unless asked.
export TOOLGEN_LOG=${TOOLGEN_LOG:-warn}

if [ -t 1 ]; then bold=$'\033[1m' dim=$'\033[2m' off=$'\033[0m'; else bold= dim= off=; fi
n=0
step() { n=$((n + 1)); printf '\n%s== %d. %s%s\n' "$bold" "$n" "$1" "$off"; }
# show prints a command as one would type it: arguments with spaces or
# JSON in single quotes.
show() {
  local out= a
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./=:-]+$ ]]; then out+=" $a"; else out+=" '$a'"; fi
  done
  printf '%s$%s%s\n' "$dim" "$out" "$off"
}
run() { show "$@"; "$@"; }

# The spec starts server-everything with the Node 22 that `make npm`
# installs (testdata/npm/node_modules/.bin/node).
if [ ! -x "$nm/.bin/node" ] || [ ! -d "$nm/@modelcontextprotocol/server-everything" ]; then
  echo "demo: run 'make npm' first (installs server-everything and Node 22 into $nm)" >&2
  exit 1
fi

step "Generate the demo agent's Go code from examples/demo/spec"
run go generate ./examples/demo
ls generated/demo

step "Build the agent binary"
run go build -o "$agent" ./examples/demo
ls -l "$agent" | awk '{print $5, "bytes", $9}'

step "Agents in the binary"
run "$agent" agents

step "The default agent's MCP surface: assistant uses discovery, so it starts with tool_find/tool_load"
run "$agent" tools

step "What operator (no discovery) exposes directly"
run "$agent" tools --agent operator

step "Search the assistant's loadable tools: find \"read a file\""
run "$agent" find "read a file"

step "Call a builtin: read_file (fs_read, confined to examples/demo/workspace)"
run "$agent" call read_file '{"path":"examples/demo/workspace/hello.txt"}'

step "Call a Go function tool: word_count"
run "$agent" call word_count '{"text":"the quick brown fox jumps over the lazy dog"}'

step "Call an upstream MCP tool: server-everything's echo, namespaced everything__echo"
run "$agent" call everything__echo '{"message":"hello from the demo agent"}'

step "A blocked call: run_command is in the assistant's pool but not in tools.allowed"
show "$agent" call run_command '{"command":"ls"}'
if "$agent" call run_command '{"command":"ls"}'; then
  echo "demo: the blocked call succeeded" >&2
  exit 1
else
  echo "-> refused (exit $?): not allowed for this agent"
fi

step "Servers and their health"
run "$agent" status

step "Agents that run on a model: the team example (examples/team)"
team=bin/team-agent
run go generate ./examples/team
run go build -o "$team" ./examples/team
run "$team" agents
prompt="When is the release? Ask the reader to read examples/team/workspace/notes.md."
if [ -n "${OPENAI_API_KEY:-}" ]; then
  run "$team" run --agent lead "$prompt"
elif [ -n "${ANTHROPIC_API_KEY:-}" ]; then
  run "$team" run --agent lead_claude "$prompt"
else
  cat <<EOF
-> no model key is set, so the team does not run here. To see the lead delegate to its reader:
   OPENAI_API_KEY=sk-... $team run --agent lead '$prompt'
   ANTHROPIC_API_KEY=sk-ant-... $team run --agent lead_claude '$prompt'
   For a local Ollama set OPENAI_BASE_URL=http://localhost:11434/v1, OPENAI_API_KEY=ollama
   and OPENAI_MODEL=qwen3 (a model you pulled); the spec reads the model name with env().
EOF
fi

printf '\n%sdone:%s %s serve --stdio (or --http 127.0.0.1:8080) puts this agent in any MCP host.\n' "$bold" "$off" "$agent"
