#!/usr/bin/env bash
# Server half of the MCP conformance suite (@modelcontextprotocol/conformance,
# Node 22, both from testdata/npm): every server scenario the suite lists runs
# against an agent binary's streamable HTTP server on loopback, and each
# outcome is judged against server-baseline.json (expected failures with
# reasons). Exit 1 on an unexpected failure, or on an expected failure that
# now passes (the baseline is stale).
#
#   testdata/conformance/server.sh [SCENARIO...]
#
# AGENT=path/to/agent-binary uses that binary instead of building
# examples/conformance (its spec provides the tools the scenarios call, and
# proxies bin/conformance-upstream, built here, for a binary resource and a
# resource template).
set -euo pipefail
cd "$(dirname "$0")/../.."

nm=testdata/npm/node_modules
node=$nm/.bin/node
suite=$nm/@modelcontextprotocol/conformance/dist/index.js
baseline=testdata/conformance/server-baseline.json
[ -x "$node" ] && [ -f "$suite" ] || { echo "conformance: npm packages missing; run make npm" >&2; exit 1; }

agent=${AGENT:-}
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

# All server scenarios the suite lists (pending ones too: --suite all), in
# one run of the suite; or just the named ones. Each is judged by its
# checks.json: passed when no check failed or warned (the suite's OVERALL rule).
out="$work/out"
if [ $# -gt 0 ]; then
  scenarios=("$@")
  for s in "${scenarios[@]}"; do
    "$node" "$suite" server --url "$url" --scenario "$s" -o "$out" >>"$work/suite.log" 2>&1 || true
  done
else
  mapfile -t scenarios < <("$node" "$suite" list --server | sed -n 's/^  - \([a-z0-9-]*\).*/\1/p')
  "$node" "$suite" server --url "$url" --suite all -o "$out" >"$work/suite.log" 2>&1 || true
fi
declare -A outcome
for s in "${scenarios[@]}"; do
  checks=$(ls -d "$out/server-$s-"[0-9]*/checks.json 2>/dev/null | head -n1)
  if [ -z "$checks" ]; then
    outcome[$s]=error
  elif "$node" -e 'const c=require(process.argv[1]); process.exit(c.some(x=>x.status==="FAILURE"||x.status==="WARNING")?1:0)' "$(realpath "$checks")"; then
    outcome[$s]=pass
  else
    outcome[$s]=fail
  fi
done

# Judge against the baseline: {"expected_failures": {"scenario": "reason"}}.
printf '%s\n' "${scenarios[@]}" | while read -r s; do echo "$s ${outcome[$s]}"; done >"$work/outcomes"
"$node" - "$baseline" "$work/outcomes" "$work" <<'JS'
const fs = require('fs');
const [baselinePath, outcomesPath, work] = process.argv.slice(2);
const expected = JSON.parse(fs.readFileSync(baselinePath, 'utf8')).expected_failures || {};
let bad = 0, counts = {pass: 0, 'expected-fail': 0, FAIL: 0, 'UNEXPECTED-PASS': 0, ERROR: 0};
for (const line of fs.readFileSync(outcomesPath, 'utf8').trim().split('\n')) {
  const [s, o] = line.split(' ');
  let verdict;
  if (o === 'pass') verdict = s in expected ? 'UNEXPECTED-PASS' : 'pass';
  else if (o === 'fail') verdict = s in expected ? 'expected-fail' : 'FAIL';
  else verdict = 'ERROR';
  counts[verdict]++;
  const note = verdict === 'expected-fail' ? '  (' + expected[s] + ')' : '';
  console.log(`  ${verdict.padEnd(16)} ${s}${note}`);
  if (verdict === 'FAIL' || verdict === 'ERROR') {
    bad++;
    try {
      const dir = fs.readdirSync(`${work}/out`).find(d => d.startsWith(`server-${s}-`) && /^\d/.test(d.slice(`server-${s}-`.length)));
      for (const c of JSON.parse(fs.readFileSync(`${work}/out/${dir}/checks.json`, 'utf8')))
        if (c.status === 'FAILURE' || c.status === 'WARNING') console.log(`      ${c.id}: ${c.errorMessage || ''}`);
    } catch { console.log('      (no checks recorded; see the suite output)'); }
  }
  if (verdict === 'UNEXPECTED-PASS') { bad++; console.log(`      passes now: remove it from ${baselinePath}`); }
}
console.log(`conformance (server): ${counts.pass} passed, ${counts['expected-fail']} expected failures, ${counts.FAIL} failed, ${counts['UNEXPECTED-PASS']} unexpectedly passed, ${counts.ERROR} did not run`);
process.exit(bad ? 1 : 0);
JS
