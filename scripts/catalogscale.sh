#!/bin/sh
# Measures a catalog of N server tools recorded in a lock file, for each
# N given: toolgen generate's peak RSS and CPU, then the build of the
# generated package (its dependencies built first, so the figure is the
# package's own compile), and the size of registry_gen.go.
#
#	go build -o bin/toolgen ./cmd/toolgen && scripts/catalogscale.sh 1000 10000 50000
#
# TOOLGEN names another toolgen binary (to compare with main's). Numbers
# depend on the machine and its load; run it on a quiet one.
set -eu
toolgen=${TOOLGEN:-bin/toolgen}
out=scripts/catalogscale/out
trap 'rm -rf "$out"' EXIT
go build ./runtime/... # the generated package's dependencies, so they are cached
printf '| tools | generate peak RSS | generate CPU | compile CPU | compile peak RSS | registry_gen.go | index_gen.go |\n'
printf '| --- | --- | --- | --- | --- | --- | --- |\n'
for n in "$@"; do
	dir=$out/n$n
	rm -rf "$dir"
	go run ./scripts/catalogscale -tools "$n" -dir "$dir/spec"
	/usr/bin/time -f '%M %U %S' -o "$dir/gen.time" "$toolgen" generate -o "$dir/gen" "$dir/spec" >/dev/null
	/usr/bin/time -f '%M %U %S' -o "$dir/build.time" go build -o /dev/null "./$dir/gen"
	read -r grss guser gsys <"$dir/gen.time"
	read -r brss buser bsys <"$dir/build.time"
	reg=$(wc -c <"$dir/gen/registry_gen.go")
	idx=$(wc -c <"$dir/gen/index_gen.go")
	awk -v n="$n" -v grss="$grss" -v gu="$guser" -v gs="$gsys" -v brss="$brss" -v bu="$buser" -v bs="$bsys" -v reg="$reg" -v idx="$idx" 'BEGIN {
		printf "| %d | %.0f MB | %.1f s | %.1f s | %.0f MB | %.1f MB | %.1f MB |\n", n, grss/1024, gu+gs, bu+bs, brss/1024, reg/1e6, idx/1e6 }'
done
