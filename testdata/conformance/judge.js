// Judges conformance outcomes against a baseline and prints one line per
// scenario. Used by run.sh and server.sh.
//
//   node judge.js BASELINE OUTCOMES LABEL
//
// OUTCOMES has one line per scenario: "NAME pass|fail|error CHECKS [unscored]",
// CHECKS being the scenario's checks.json (or a log when none was written).
// BASELINE is {"expected_failures": {"NAME": "reason"}}. Exit 1 on a
// failure the baseline does not expect, or an expected failure that passes
// now (the baseline is stale).
const fs = require('fs');
const [baselinePath, outcomesPath, label] = process.argv.slice(2);
const expected = JSON.parse(fs.readFileSync(baselinePath, 'utf8')).expected_failures || {};
let bad = 0;
const counts = {pass: 0, 'expected-fail': 0, FAIL: 0, 'UNEXPECTED-PASS': 0, ERROR: 0};
let scored = 0, scoredPassed = 0;
const text = fs.readFileSync(outcomesPath, 'utf8').trim();
for (const line of text ? text.split('\n') : []) {
  const [s, o, where, flag] = line.split(' ');
  let verdict;
  if (o === 'pass') verdict = s in expected ? 'UNEXPECTED-PASS' : 'pass';
  else if (s in expected) verdict = 'expected-fail';
  else verdict = o === 'fail' ? 'FAIL' : 'ERROR';
  counts[verdict]++;
  if (flag !== 'unscored') { scored++; if (o === 'pass') scoredPassed++; }
  const note = verdict === 'expected-fail' ? '  (' + expected[s] + ')' : '';
  console.log(`  ${verdict.padEnd(16)} ${s}${flag === 'unscored' ? ' [not scored]' : ''}${note}`);
  if (verdict === 'FAIL' || verdict === 'ERROR') {
    bad++;
    try {
      for (const c of JSON.parse(fs.readFileSync(where, 'utf8')))
        if (c.status === 'FAILURE' || c.status === 'WARNING') console.log(`      ${c.id}: ${c.errorMessage || c.description || ''}`);
    } catch {
      try { console.log('      ' + fs.readFileSync(where, 'utf8').split('\n').slice(-10).join('\n      ')); }
      catch { console.log('      (no checks recorded; see the suite output)'); }
    }
  }
  if (verdict === 'UNEXPECTED-PASS') { bad++; console.log(`      passes now: remove it from ${baselinePath}`); }
}
console.log(`conformance (${label}): ${counts.pass} passed, ${counts['expected-fail']} expected failures, ${counts.FAIL} failed, ${counts['UNEXPECTED-PASS']} unexpectedly passed, ${counts.ERROR} did not run; scored ${scoredPassed}/${scored}`);
process.exit(bad ? 1 : 0);
