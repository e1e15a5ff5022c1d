#!/bin/sh
# make features: what each optional part adds to the quick-start agent
# (scripts/weight/agent), built side by side with the build cache warm:
# the packages it pulls in and the binary size it adds. Then the parts
# every agent links, by their code size in that binary (go tool nm), to
# show which would be worth splitting next. Prints markdown for README.
#
#   scripts/weight/features.sh
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GOPROXY=off GOFLAGS=-mod=mod

go list -deps ./scripts/weight/agent | sort >"$tmp/base.deps"
go build -o "$tmp/agent" ./scripts/weight/agent
base=$(stat -c %s "$tmp/agent")
printf '| feature (declared by) | packages it pulls in | binary | adds |\n| --- | --- | --- | --- |\n'
printf '| quick-start agent (none) | %d | %.1f MB | — |\n' "$(wc -l <"$tmp/base.deps")" "$(echo "$base / 1000000" | bc -l)"
while read -r name why; do
	go list -deps "./scripts/weight/feature/$name" | sort >"$tmp/$name.deps"
	added=$(comm -13 "$tmp/base.deps" "$tmp/$name.deps" | grep -v '/scripts/weight/feature/' || true)
	n=$(printf '%s\n' "$added" | grep -c . || true)
	# the modules (or toolgen packages) behind the new packages, at most four
	mods=$(printf '%s\n' "$added" | grep '\.' | sed -E 's#^github\.com/toolgen-dev/toolgen/##; s#^([^/]+/[^/]+/[^/]+).*#\1#' | sort -u | head -4 | tr '\n' ' ')
	go build -o "$tmp/bin-$name" "./scripts/weight/feature/$name"
	size=$(stat -c %s "$tmp/bin-$name")
	printf '| %s (%s) | +%d: %s| %.1f MB | +%.1f MB |\n' "$name" "$why" "$n" "$mods" \
		"$(echo "$size / 1000000" | bc -l)" "$(echo "($size - $base) / 1000000" | bc -l)"
done <<'LIST'
openai model provider = "openai"
anthropic model provider = "anthropic"
telemetry toolgen { telemetry = true }
oauth a server's auth block
jwtauth main imports runtime/serve/jwtauth (serve --auth-issuer)
redis main imports runtime/store/redis (serve --store redis://)
websocket a server with transport = "ws"
skills a skill, or allow_skills/deny_skills on a server
rest a tool with a rest block
LIST

# Code (text symbols) per package of the quick-start agent, for the parts
# every agent links whatever its spec says.
go tool nm -size "$tmp/agent" | awk '$3 == "T" || $3 == "t" {
	n = split($4, p, "/"); last = p[n]; i = index(last, ".")
	if (i > 0) last = substr(last, 1, i - 1)
	pkg = ""; for (j = 1; j < n; j++) pkg = pkg p[j] "/"
	size[pkg last] += $2
} END { for (k in size) print k, size[k] }' >"$tmp/code"
printf '\n| always linked | package | code in the quick-start agent |\n| --- | --- | --- |\n'
while IFS='|' read -r pkg what; do
	printf '| %s | `%s` | %.0f KB |\n' "$what" "$pkg" "$(awk -v p="$pkg" '$1 == p { print $2 / 1000 }' "$tmp/code")"
done <<'LIST'
github.com/toolgen-dev/toolgen/runtime|the runtime root (sessions, pool, policy, dispatch)
github.com/toolgen-dev/toolgen/runtime/serve|serve (MCP server, HTTP)
github.com/toolgen-dev/toolgen/internal/mcpconn|upstream MCP client
github.com/toolgen-dev/toolgen/runtime/agentcli|the agent's command line
github.com/toolgen-dev/toolgen/runtime/internal/builtin|builtins (files, shell sandbox)
github.com/toolgen-dev/toolgen/runtime/search|search index
github.com/toolgen-dev/toolgen/runtime/internal/rest|REST tools
github.com/toolgen-dev/toolgen/internal/enrich|run-time enrichment
github.com/toolgen-dev/toolgen/runtime/internal/statuspage|status page
github.com/toolgen-dev/toolgen/internal/hostconfig|mcp-config snippets
github.com/toolgen-dev/toolgen/runtime/internal/finder|discovery (tool_find)
github.com/toolgen-dev/toolgen/internal/serveauth|serve --http bearer auth
LIST
