// Command replicas-agent is an agent meant to run as several replicas
// behind a load balancer, sharing a Redis store (deploy/ and the replica
// tests run it):
//
//	replicas-agent serve --http 127.0.0.1:8080 --store redis://127.0.0.1:6379/0
//
// The spec's toolgen { store = "redis" } makes the generated registry link
// the Redis store; an agent without it links no Redis client and refuses a
// redis:// store, saying what to declare.
package main

//go:generate go tool toolgen generate -o ../../generated/replicas ./spec

import (
	"os"

	"github.com/toolgen-dev/toolgen/generated/replicas"
	"github.com/toolgen-dev/toolgen/runtime/agentcli"
)

func main() { os.Exit(agentcli.Main(replicas.Registry, os.Args[1:])) }
