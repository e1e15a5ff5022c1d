#!/bin/sh
# make weight: what a binary costs, side by side in one run. Each build
# starts from an empty build cache (module cache warm, no network), so the
# CPU and memory are a user's first `go build`. Numbers depend on the
# machine and its load; compare the ratios.
#
#   scripts/weight/weight.sh [-p N]     (-p is passed to go build)
set -eu
cd "$(dirname "$0")/../.."
P=${1:-}
[ "$P" = "-p" ] && P="-p ${2:-1}"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

measure() { # name pkg [extra pkgs for go list]
	name=$1 pkg=$2
	pkgs=$(go list -deps "$pkg" | wc -l)
	GOCACHE="$tmp/cache-$name" GOPROXY=off GOFLAGS=-mod=mod \
		/usr/bin/time -v -o "$tmp/time-$name" go build $P -o "$tmp/bin-$name" "$pkg"
	size=$(stat -c %s "$tmp/bin-$name")
	user=$(sed -n 's/.*User time (seconds): //p' "$tmp/time-$name")
	sys=$(sed -n 's/.*System time (seconds): //p' "$tmp/time-$name")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time-$name")
	echo "$name $pkgs $size $user $sys $rss" >>"$tmp/rows"
}

measure plain ./scripts/weight/plainserver
measure agent ./scripts/weight/agent
measure toolgen ./cmd/toolgen

awk '
	{ n[NR]=$1; pk[NR]=$2; sz[NR]=$3; cpu[NR]=$4+$5; us[NR]=$4; sy[NR]=$5; rss[NR]=$6 }
	END {
		printf "%-8s %9s %10s %22s %12s\n", "build", "packages", "binary", "cold CPU user+sys", "peak RSS"
		for (i = 1; i <= NR; i++)
			printf "%-8s %9d %8.1f MB %8.1f + %5.1f s %9.0f MB\n", n[i], pk[i], sz[i]/1e6, us[i], sy[i], rss[i]/1024
		printf "\nagent / plain:   packages %.2fx  binary %.2fx  CPU %.2fx  RSS %.2fx   (target <= 1.5x)\n", pk[2]/pk[1], sz[2]/sz[1], cpu[2]/cpu[1], rss[2]/rss[1]
		printf "toolgen / agent: CPU %.2fx   (target <= 2x)\n", cpu[3]/cpu[2]
	}' "$tmp/rows"
