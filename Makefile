# toolgen make targets. `make test` is what CI (.ci/run) runs.
GO      ?= go
NPM_DIR := testdata/npm
BIN     := bin

.PHONY: all build generate test update check-generated vet fmt bench bench-all demo ci npm chromium replicas eval fuzz conformance weight

all: build

build:
	$(GO) build -o $(BIN)/toolgen ./cmd/toolgen

# npm packages for tests (real MCP servers, the conformance suite, Node 22),
# installed from the committed lockfile.
npm: $(NPM_DIR)/node_modules/.installed
$(NPM_DIR)/node_modules/.installed: $(NPM_DIR)/package.json $(NPM_DIR)/package-lock.json
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Headless Chromium (Debian's package) for the status page's browser tests;
# `make test` sets TOOLGEN_REQUIRE_BROWSER so that a missing one fails.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
chromium:
	@command -v chromium >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

# Debian's redis-server and haproxy for the replica tests (examples/replicas,
# runtime/store/redis) and deploy/local/run.sh; the tests start their own
# processes on free loopback ports, never the system services. `make test`
# sets TOOLGEN_REQUIRE_REPLICAS so that missing ones fail.
replicas:
	@command -v redis-server >/dev/null && command -v haproxy >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server haproxy; }

# Each example's //go:generate line writes generated/<example>/.
generate:
	$(GO) generate ./examples/...

# Stale generated code fails the build: toolgen --check prints a unified
# diff per example, then a full regeneration must leave git clean (ent).
check-generated: build
	@for d in examples/*/spec; do \
	  [ -d "$$d" ] || continue; \
	  ./$(BIN)/toolgen generate --check -o generated/$$(basename $$(dirname $$d)) $$d || exit 1; \
	done
	$(MAKE) -s generate
	@test -z "$$(git status --porcelain -- generated)" || { git status --porcelain -- generated; echo "generated files are stale: run make generate"; exit 1; }

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

fmt:
	gofmt -w $$(git ls-files '*.go')

test: npm chromium replicas vet
	TOOLGEN_REQUIRE_BROWSER=1 TOOLGEN_REQUIRE_REPLICAS=1 $(GO) test -race -count=1 ./...
	$(MAKE) check-generated
	$(MAKE) conformance

update:
	$(GO) test ./internal/cmd ./hcl ./templates -update

# What a binary costs: the quick-start agent, a plain go-sdk server and
# toolgen, each built from an empty build cache (slow: minutes).
weight:
	scripts/weight/weight.sh
	scripts/weight/features.sh

# Issue 25's table of hot paths, each row measured in this run beside its
# floor (a few minutes); bench-all runs every benchmark (long).
bench:
	$(GO) run ./scripts/benchtable | tee bench.out

bench-all:
	$(GO) test -run '^$$' -bench . -benchmem -count 6 ./... ./templates/testdata/bench | tee bench.out
	$(GO) run ./scripts/servedbench | tee -a bench.out

# Tool-search quality without and with the shared enrichment, on the shared
# dev set and on the paraphrase set over the same catalog.
TOOLRET ?= ../shared/data/toolret
eval: build
	./$(BIN)/toolgen find --eval $(TOOLRET) --enrich $(TOOLRET)/enrichment.jsonl
	./$(BIN)/toolgen find --eval testdata/search/paraphrase --catalog $(TOOLRET)/catalog.json --enrich $(TOOLRET)/enrichment.jsonl

fuzz:
	$(GO) test ./hcl -run '^$$' -fuzz FuzzLoad -fuzztime 60s

# Client scenarios against internal/mcpconn, then server scenarios against an
# agent binary (AGENT=path overrides the one server.sh builds).
conformance: npm build
	testdata/conformance/run.sh all

demo: npm build
	./scripts/demo.sh

ci: vet test check-generated
