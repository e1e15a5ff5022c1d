#!/usr/bin/env bash
# The MCP conformance suite against both halves of toolgen, in two pinned
# versions (both from testdata/npm, on its Node 22):
#
#   @modelcontextprotocol/conformance 0.1.16   the suite up to 2025-11-25
#   conformance-next (0.2.0-alpha.12)           run with --requirements 2026-07-28:
#                                               exactly what that revision requires,
#                                               at its wire, plus the extension and
#                                               pending scenarios (reported, judged)
#
#   client       client scenarios (0.1.16) against testdata/conformance/client,
#                which connects through internal/mcpconn exactly as the runtime
#                does; judged against client-baseline.json
#   server       server scenarios (0.1.16) against an agent binary's
#                `serve --http` (server.sh; AGENT=binary picks it); judged
#                against server-baseline.json
#   client-next  the same client, --requirements 2026-07-28; judged against
#                client-2026-07-28-baseline.json
#   server-next  the same server, --requirements 2026-07-28 (SUITE=next
#                server.sh); judged against server-2026-07-28-baseline.json
#   server-skills  the Skills extension's server scenarios (sep-2640-skills-*,
#                conformance-next at 2026-07-28, --force) against the
#                examples/skills agent's `serve --http`; judged against
#                server-skills-baseline.json
#   client-skills  the Skills extension's client scenarios (sep-2640-client-*,
#                conformance-next at 2026-07-28, --force) against the same
#                client; judged against client-skills-baseline.json
#   all          all six (what `make conformance` runs)
#
#   testdata/conformance/run.sh [client|server|client-next|server-next|server-skills|client-skills|all] [SCENARIO...]
#
# Exit 1 on an unexpected failure, or on an expected failure that now passes
# (the baseline is stale).
set -euo pipefail
cd "$(dirname "$0")/../.."
. testdata/conformance/suite.sh

what=${1:-all}
[ $# -gt 0 ] && shift

# client SUITE: every client scenario (or the named ones) of one suite
# version against testdata/conformance/client.
client() {
  local which=$1; shift
  suite_select "$which"
  local work; work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  go build -o "$work/client" ./testdata/conformance/client
  local out="$work/out" log="$work/suite.log"
  mkdir -p "$out"; : >"$log"
  local scenarios=("$@")
  if [ "$which" = next ] && [ ${#scenarios[@]} -eq 0 ]; then
    echo "conformance: client scenarios required by $REVISION against internal/mcpconn"
    "$node" "$suite" client --command "$work/client" --requirements "$REVISION" --timeout 15000 -o "$out" >"$log" 2>&1 || true
    mapfile -t scenarios < <(summary_names "$log")
  else
    if [ ${#scenarios[@]} -eq 0 ] && [ "$which" = skills ]; then
      mapfile -t scenarios < <("$node" "$suite" list --client | sed -n 's/^  - \(sep-2640-client-[a-z0-9-]*\).*/\1/p')
      [ ${#scenarios[@]} -gt 0 ] || { echo "conformance: the suite lists no sep-2640-client-* scenario" >&2; return 1; }
    elif [ ${#scenarios[@]} -eq 0 ]; then
      mapfile -t scenarios < <("$node" "$suite" list --client | sed -n 's/^  - \([a-z0-9/_.-]*\).*/\1/p')
    fi
    echo "conformance: ${#scenarios[@]} client scenarios ($which suite) against internal/mcpconn"
    for s in "${scenarios[@]}"; do
      "$node" "$suite" client --command "$work/client" --scenario "$s" "${wire[@]}" --timeout 15000 -o "$out" >>"$log" 2>&1 || true
    done
  fi
  outcomes "$out" "" "$log" "${scenarios[@]}" >"$work/outcomes"
  if [ "$which" = next ]; then
    # --requirements starts every scenario at once: on a loaded machine a
    # client can miss its startup timeout before it sends anything. Each
    # scenario that failed runs again on its own; that run decides.
    local again=() o
    while read -r s o _; do [ "$o" = pass ] || again+=("$s"); done <"$work/outcomes"
    if [ ${#again[@]} -gt 0 ]; then
      echo "conformance: ${#again[@]} failed in the parallel run; running each again on its own"
      local out2="$work/out2"; mkdir -p "$out2"
      for s in "${again[@]}"; do
        "$node" "$suite" client --command "$work/client" --scenario "$s" "${wire[@]}" --force --timeout 15000 -o "$out2" >>"$log" 2>&1 || true
      done
      outcomes "$out2" "" "$log" "${again[@]}" >"$work/again"
      "$node" -e 'const fs=require("fs");const a=new Map(fs.readFileSync(process.argv[2],"utf8").trim().split("\n").map(l=>[l.split(" ")[0],l]));
        process.stdout.write(fs.readFileSync(process.argv[1],"utf8").trim().split("\n").map(l=>a.get(l.split(" ")[0])||l).join("\n")+"\n")' \
        "$work/outcomes" "$work/again" >"$work/outcomes2"
      mv "$work/outcomes2" "$work/outcomes"
    fi
  fi
  "$node" testdata/conformance/judge.js "testdata/conformance/$client_baseline" "$work/outcomes" "client, $which suite"
}

# Server scenarios: the serving side's script. It takes AGENT=binary (an
# agent that supports `serve --http ADDR`), SUITE and scenario names.
server() {
  local which=$1; shift
  SUITE=$which testdata/conformance/server.sh "$@"
}

case $what in
  client) client stable "$@" ;;
  server) server stable "$@" ;;
  client-next) client next "$@" ;;
  server-next) server next "$@" ;;
  server-skills) server skills "$@" ;;
  client-skills) client skills "$@" ;;
  all)
    rc=0
    client stable || rc=1
    server stable || rc=1
    client next || rc=1
    server next || rc=1
    server skills || rc=1
    client skills || rc=1
    exit $rc
    ;;
  *) echo "usage: $0 [client|server|client-next|server-next|server-skills|client-skills|all] [SCENARIO...]" >&2; exit 2 ;;
esac
