#!/usr/bin/env bash
# Runs N replicas of an agent behind HAProxy (round robin, no stickiness)
# with one redis-server, all on loopback, until Ctrl-C; then stops them.
#
#   make replicas build            # Debian's redis-server and haproxy
#   go build -o bin/replicas-agent ./examples/replicas
#   deploy/local/run.sh bin/replicas-agent 3 8080
#
# MCP clients use http://127.0.0.1:8080/mcp. The replica tests
# (examples/replicas) start the same processes with the same HAProxy
# settings.
set -euo pipefail

AGENT=${1:?usage: run.sh AGENT_BINARY [REPLICAS] [PORT]}
N=${2:-3}
PORT=${3:-8080}
REDIS_PORT=${REDIS_PORT:-$((PORT + 100))}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/toolgen-replicas.XXXXXX")
pids=()

stop() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  echo "stopped; logs in $DIR"
}
trap stop EXIT
trap "exit 130" INT TERM

redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$DIR" --save '' \
  --appendonly yes --daemonize no --logfile "$DIR/redis.log" &
pids+=($!)

backends=""
for i in $(seq 1 "$N"); do
  p=$((PORT + i))
  REPLICA="r$i" "$AGENT" serve --http "127.0.0.1:$p" --store "redis://127.0.0.1:$REDIS_PORT/0" \
    >"$DIR/r$i.log" 2>&1 &
  pids+=($!)
  backends+="  server r$i 127.0.0.1:$p check"$'\n'
done

cat >"$DIR/haproxy.cfg" <<CFG
global
  maxconn 4000
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  retries 2
  option redispatch
  retry-on conn-failure empty-response response-timeout
frontend agents
  bind 127.0.0.1:$PORT
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk GET /readyz
  default-server inter 300ms fall 2 rise 2
  timeout check 3s
$backends
CFG
haproxy -db -f "$DIR/haproxy.cfg" >"$DIR/haproxy.log" 2>&1 &
pids+=($!)

echo "$N replicas of $AGENT behind http://127.0.0.1:$PORT/mcp, redis on 127.0.0.1:$REDIS_PORT; logs in $DIR"
wait -n
