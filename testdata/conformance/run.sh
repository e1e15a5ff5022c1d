#!/usr/bin/env bash
# The MCP conformance suite (@modelcontextprotocol/conformance on Node 22,
# both pinned in testdata/npm) against both halves of toolgen:
#
#   client  every client scenario against testdata/conformance/client, which
#           connects through internal/mcpconn exactly as the runtime does;
#           judged against client-baseline.json.
#   server  every server scenario against an agent binary's `serve --http`;
#           delegated to server.sh (AGENT=path/to/binary picks the binary),
#           judged against server-baseline.json.
#
#   testdata/conformance/run.sh [client|server|all] [SCENARIO...]
#
# Exit 1 on an unexpected failure, or on an expected failure that now passes
# (the baseline is stale). `make conformance` runs `run.sh all`.
set -euo pipefail
cd "$(dirname "$0")/../.."

nm=testdata/npm/node_modules
node=$nm/.bin/node
suite=$nm/@modelcontextprotocol/conformance/dist/index.js
[ -x "$node" ] && [ -f "$suite" ] || { echo "conformance: npm packages missing; run make npm" >&2; exit 1; }

what=${1:-all}
[ $# -gt 0 ] && shift

client() {
  local baseline=testdata/conformance/client-baseline.json
  local work; work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  go build -o "$work/client" ./testdata/conformance/client
  local scenarios=("$@")
  if [ ${#scenarios[@]} -eq 0 ]; then
    mapfile -t scenarios < <("$node" "$suite" list --client | sed -n 's/^  - \([a-z0-9/_.-]*\).*/\1/p')
  fi
  echo "conformance: ${#scenarios[@]} client scenarios against internal/mcpconn"
  mkdir -p "$work/out"; : >"$work/outcomes"
  for s in "${scenarios[@]}"; do
    local out="$work/out/${s//\//_}"
    "$node" "$suite" client --command "$work/client" --scenario "$s" --timeout 15000 -o "$out" >"$out.log" 2>&1 || true
    local checks; checks=$(find "$out" -name checks.json 2>/dev/null | head -n1)
    local o=error
    if [ -n "$checks" ]; then
      # Passed when no check failed or warned (the suite's own OVERALL rule).
      if "$node" -e 'const c=require(process.argv[1]); process.exit(c.some(x=>x.status==="FAILURE"||x.status==="WARNING")?1:0)' "$(realpath "$checks")"; then
        o=pass
      else
        o=fail
      fi
    fi
    echo "$s $o ${checks:-$out.log}" >>"$work/outcomes"
  done
  "$node" - "$baseline" "$work/outcomes" <<'JS'
const fs = require('fs');
const [baselinePath, outcomesPath] = process.argv.slice(2);
const expected = JSON.parse(fs.readFileSync(baselinePath, 'utf8')).expected_failures || {};
let bad = 0; const counts = {pass: 0, 'expected-fail': 0, FAIL: 0, 'UNEXPECTED-PASS': 0, ERROR: 0};
for (const line of fs.readFileSync(outcomesPath, 'utf8').trim().split('\n')) {
  const [s, o, where] = line.split(' ');
  let verdict;
  if (o === 'pass') verdict = s in expected ? 'UNEXPECTED-PASS' : 'pass';
  else if (o === 'fail') verdict = s in expected ? 'expected-fail' : 'FAIL';
  else verdict = s in expected ? 'expected-fail' : 'ERROR';
  counts[verdict]++;
  console.log(`  ${verdict.padEnd(16)} ${s}${verdict === 'expected-fail' ? '  (' + expected[s] + ')' : ''}`);
  if (verdict === 'FAIL' || verdict === 'ERROR') {
    bad++;
    try {
      for (const c of JSON.parse(fs.readFileSync(where, 'utf8')))
        if (c.status === 'FAILURE' || c.status === 'WARNING') console.log(`      ${c.id}: ${c.errorMessage || c.description || ''}`);
    } catch { console.log('      ' + fs.readFileSync(where, 'utf8').split('\n').slice(-10).join('\n      ')); }
  }
  if (verdict === 'UNEXPECTED-PASS') { bad++; console.log(`      passes now: remove it from ${baselinePath}`); }
}
console.log(`conformance (client): ${counts.pass} passed, ${counts['expected-fail']} expected failures, ${counts.FAIL} failed, ${counts['UNEXPECTED-PASS']} unexpectedly passed, ${counts.ERROR} did not run`);
process.exit(bad ? 1 : 0);
JS
}

# Server scenarios: the serving side's script. It takes AGENT=binary (an
# agent that supports `serve --http ADDR`) and scenario names.
server() {
  testdata/conformance/server.sh "$@"
}

case $what in
  client) client "$@" ;;
  server) server "$@" ;;
  all)
    rc=0
    client || rc=1
    server || rc=1
    exit $rc
    ;;
  *) echo "usage: $0 [client|server|all] [SCENARIO...]" >&2; exit 2 ;;
esac
