# Shared by run.sh and server.sh (sourced): which suite version runs, and
# how its outcomes are read.

nm=testdata/npm/node_modules
node=$nm/.bin/node
REVISION=2026-07-28

# suite_select stable|next|skills sets suite (the suite's entry point), wire (extra
# arguments for a single scenario) and the baselines.
suite_select() {
  case $1 in
    stable)
      suite=$nm/@modelcontextprotocol/conformance/dist/index.js
      wire=()
      client_baseline=client-baseline.json
      server_baseline=server-baseline.json
      ;;
    next)
      suite=$nm/conformance-next/dist/index.js
      wire=(--spec-version "$REVISION")
      client_baseline=client-$REVISION-baseline.json
      server_baseline=server-$REVISION-baseline.json
      ;;
    skills)
      # The Skills extension's scenarios (sep-2640-skills-*): off the
      # revision timeline, so --requirements leaves them out and a single
      # run needs --force.
      suite=$nm/conformance-next/dist/index.js
      wire=(--spec-version "$REVISION" --force)
      client_baseline=client-skills-baseline.json
      server_baseline=server-skills-baseline.json
      need_success=1
      ;;
    *) echo "conformance: unknown suite $1 (stable, next or skills)" >&2; exit 2 ;;
  esac
  [ -x "$node" ] && [ -f "$suite" ] || { echo "conformance: npm packages missing; run make npm" >&2; exit 1; }
}

# summary_names LOG: the scenarios a --requirements run reported, in order.
summary_names() {
  sed -n '/SUMMARY ===/,/^Total:/p' "$1" | sed -n 's/^[✓✗] \([^:]*\): .*/\1/p'
}

# outcomes OUT PREFIX LOG SCENARIO...: one line per scenario for judge.js,
# from the checks.json the suite wrote under OUT/PREFIX<scenario>-<time>/.
# Passed when no check failed or warned (the suite's own OVERALL rule),
# and, with need_success set (the skills suite, whose scenarios SKIP every
# check when the extension is not advertised), when some check of its
# own (not the wire schema check every scenario adds) succeeded.
# Scenarios listed under "Not scored" in LOG are flagged unscored.
outcomes() {
  local out=$1 prefix=$2 log=$3; shift 3
  local unscored
  unscored=$(sed -n '/^Not scored/,$p' "$log" | sed -n 's/^  [✓✗] \([^ ]*\) (.*)$/\1/p')
  for s in "$@"; do
    local checks o=error flag=
    checks=$(ls -d "$out/$prefix$s-"[0-9]*/checks.json 2>/dev/null | head -n1 || true)
    if [ -n "$checks" ]; then
      if "$node" -e 'const c=require(process.argv[1]); process.exit(c.some(x=>x.status==="FAILURE"||x.status==="WARNING")||(process.argv[2]&&!c.some(x=>x.status==="SUCCESS"&&x.id!=="wire-schema-valid"))?1:0)' "$(realpath "$checks")" "${need_success:-}"; then
        o=pass
      else
        o=fail
      fi
    fi
    grep -qxF -- "$s" <<<"$unscored" && flag=unscored
    echo "$s $o ${checks:-$log} $flag"
  done
}
