#!/usr/bin/env bash
# Server half of the MCP conformance suite (Node 22 and the suite from
# testdata/npm): every server scenario the suite lists runs against an agent
# binary's streamable HTTP server on loopback, and each outcome is judged
# against the suite's baseline (expected failures with reasons). Exit 1 on
# an unexpected failure, or on an expected failure that now passes (the
# baseline is stale).
#
#   SUITE=stable  0.1.16, --suite all; server-baseline.json (the default)
#   SUITE=next    0.2.0-alpha.12, --requirements 2026-07-28;
#                 server-2026-07-28-baseline.json
#   SUITE=skills  0.2.0-alpha.12, the sep-2640-skills-* scenarios one by one
#                 at 2026-07-28 (--force: extension scenarios);
#                 server-skills-baseline.json; the agent defaults to
#                 examples/skills (a writer agent serving one skill)
#
#   testdata/conformance/server.sh [SCENARIO...]
#
# AGENT=path/to/agent-binary uses that binary instead of building
# examples/conformance (its spec provides the tools the scenarios call, and
# proxies bin/conformance-upstream, built here, for a binary resource and a
# resource template).
set -euo pipefail
cd "$(dirname "$0")/../.."

. testdata/conformance/suite.sh
which=${SUITE:-stable}
suite_select "$which"

agent=${AGENT:-}
if [ -z "$agent" ] && [ "$which" = skills ]; then
  go build -o bin/skills-agent ./examples/skills
  agent=bin/skills-agent
fi
if [ -z "$agent" ]; then
  [ -f generated/conformance/registry_gen.go ] || go generate ./examples/conformance
  go build -o bin/conformance-agent ./examples/conformance
  agent=bin/conformance-agent
fi
# The server the conformance agent proxies (its spec runs bin/conformance-upstream).
go build -o bin/conformance-upstream ./examples/conformance/upstream

work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# Port 0: the agent picks a free port and prints "serving agent A on URL".
TOOLGEN_LOG=${TOOLGEN_LOG:-warn} "$agent" serve --http 127.0.0.1:0 2>"$work/agent.log" &
pid=$!
url=
for _ in $(seq 1 200); do
  url=$(sed -n 's/^serving agent .* on \(http:.*\)$/\1/p' "$work/agent.log" | head -n1)
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/agent.log" >&2; echo "conformance: agent exited" >&2; exit 1; }
  sleep 0.05
done
[ -n "$url" ] || { cat "$work/agent.log" >&2; echo "conformance: agent did not start" >&2; exit 1; }
echo "conformance: server scenarios against $agent at $url"

out="$work/out"
log="$work/suite.log"
: >"$log"
if [ $# -gt 0 ] || [ "$which" = skills ]; then
  scenarios=("$@")
  if [ ${#scenarios[@]} -eq 0 ]; then
    mapfile -t scenarios < <("$node" "$suite" list --server | sed -n 's/^  - \(sep-2640-skills-[a-z0-9-]*\).*/\1/p')
    [ ${#scenarios[@]} -gt 0 ] || { echo "conformance: the suite lists no sep-2640-skills-* scenario" >&2; exit 1; }
  fi
  for s in "${scenarios[@]}"; do
    "$node" "$suite" server --url "$url" --scenario "$s" "${wire[@]}" -o "$out" >>"$log" 2>&1 || true
  done
elif [ "$which" = next ]; then
  # Exactly what the revision requires, at its wire, plus the extension
  # (tasks) and pending scenarios, which the suite runs and reports.
  "$node" "$suite" server --url "$url" --requirements "$REVISION" -o "$out" >"$log" 2>&1 || true
  mapfile -t scenarios < <(summary_names "$log")
else
  # All server scenarios the suite lists (pending ones too: --suite all).
  mapfile -t scenarios < <("$node" "$suite" list --server | sed -n 's/^  - \([a-z0-9-]*\).*/\1/p')
  "$node" "$suite" server --url "$url" --suite all -o "$out" >"$log" 2>&1 || true
fi
outcomes "$out" server- "$log" "${scenarios[@]}" >"$work/outcomes"
"$node" testdata/conformance/judge.js "testdata/conformance/$server_baseline" "$work/outcomes" "server, $which suite"
