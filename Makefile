# fieldapi — see README.md. GNU make; needs only Go (and the usual shell tools).

SHELL       := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

GO       ?= go
DB       ?= sqlite:fieldapi.db
ADDR     ?= 127.0.0.1:8080
# More flags of fieldapi serve for make run, e.g. SERVE_FLAGS=--webhook-allow-private.
SERVE_FLAGS ?=
# Runs of each fuzz target (Nx), or a duration (10s); see .ci/run on why CI counts.
FUZZTIME ?= 10000x
BENCH_DB    ?= sqlite:bin/bench.db
BENCH_TASKS ?= 100000

BIN            := bin/fieldapi
DEMO_CLIENT_ID := demo-cli
DEMO_KEY_FILE  := bin/$(DEMO_CLIENT_ID).key
# Directories go generate writes into; check-generated compares them.
GENERATED_DIRS := generated engine/names client catalog

# Tests against PostgreSQL run when this is set (see .ci/run).
ifdef FIELDAPI_TEST_POSTGRES
export FIELDAPI_TEST_POSTGRES
endif

.PHONY: generate build run test deps check-generated vet fuzz bench bench-go fmt clean help lint-openapi

## generate: render the generated HTTP layer from catalog/*.yaml
generate:
	$(GO) generate ./...

## build: build bin/fieldapi
build:
	@echo "building $(BIN): on a cold Go cache every dependency is compiled first (a minute or more); packages are listed as they compile"
	$(GO) build -v -o $(BIN) ./cmd/fieldapi

## run: build, load the demo data, print a demo key, a curl example and the reference page address, serve on $(ADDR) (more serve flags in SERVE_FLAGS)
run: demo-key
	@key="$$(cat $(DEMO_KEY_FILE))"; \
	echo; \
	echo "Demo key (client id $(DEMO_CLIENT_ID), company demo, sign API, every scope):"; \
	echo "  $$key"; \
	echo; \
	echo "Try:"; \
	echo "  curl -s -H 'Authorization: Bearer $$key' 'http://$(ADDR)/v1/customers?limit=2'"; \
	echo; \
	echo "API reference: http://$(ADDR)/docs   (OpenAPI: http://$(ADDR)/openapi.json)"; \
	echo
	exec $(BIN) serve --db '$(DB)' --addr '$(ADDR)' $(SERVE_FLAGS)

.PHONY: demo-db demo-key
# init's hint to make a key is off: demo-key makes one next.
demo-db: build
	$(BIN) init --db '$(DB)' --demo --hints=false

# demo-key reuses the demo key kept in $(DEMO_KEY_FILE) while the database
# still holds it unrevoked, and otherwise makes a new one. A key cannot be
# read back from the database, so the file is its only copy. The list is
# only a probe: its note that there are no keys is not for the reader.
demo-key: demo-db
	@if [ -s $(DEMO_KEY_FILE) ] && $(BIN) keys list --db '$(DB)' --company demo 2>/dev/null \
		| awk '$$1 == "$(DEMO_CLIENT_ID)" && $$NF == "-" { found = 1 } END { exit !found }'; then \
		echo "reusing the demo key in $(DEMO_KEY_FILE)"; \
	else \
		umask 077; \
		$(BIN) keys create --db '$(DB)' --company demo --sign API --scopes '*' --client-id $(DEMO_CLIENT_ID) --json \
			| sed -n 's/.*"key":"\([^"]*\)".*/\1/p' > $(DEMO_KEY_FILE).new \
			|| { rm -f $(DEMO_KEY_FILE).new; \
			     echo "hint: if $(DEMO_CLIENT_ID) is taken, its key was made earlier and its text is lost: run 'make clean' to start over" >&2; \
			     exit 1; }; \
		mv $(DEMO_KEY_FILE).new $(DEMO_KEY_FILE); \
	fi

## test: fetch the modules go.mod pins (tools too), check the generated code is current, vet, run every test
# -timeout: apitest runs every call on three stores; on a loaded 2-core
# machine it can take longer than go test's default of 10 minutes.
test: deps check-generated vet
	$(GO) test -timeout 30m ./...

## deps: fetch every module go.mod pins, the tools of its tool directives included, from the Go module proxy
# Tests that build generated code in a temporary module run the go command
# offline (internal/gomodtest); this is what makes sure they find what they
# need on a machine whose module cache is empty.
deps:
	$(GO) mod download

vet:
	$(GO) vet ./...

## check-generated: regenerate into the tree; fail if that changed anything
# Comparing the tree before and after (not against git) also works with
# uncommitted catalog edits, and catches new, changed and deleted files.
check-generated:
	@snapshot() { find $(GENERATED_DIRS) -type f | LC_ALL=C sort | xargs cksum; }; \
	before="$$(snapshot)"; \
	$(GO) generate ./...; \
	if [ "$$before" != "$$(snapshot)" ]; then \
		echo "check-generated: the generated code was stale: go generate changed the files below." >&2; \
		git status --short -- $(GENERATED_DIRS) >&2 2>/dev/null || true; \
		echo "They are regenerated now; review and commit them (run 'make generate' after every catalog edit)." >&2; \
		exit 1; \
	fi; \
	echo "generated code is up to date"

## fuzz: run every Fuzz* target of every package for FUZZTIME (default 10000 runs) each
fuzz:
	@$(GO) test -list '^Fuzz' ./... \
		| awk '/^Fuzz/ { names = names " " $$1; next } /^ok/ { if (names != "") print $$2 names; names = "" }' \
		| while read -r pkg targets; do \
			for target in $$targets; do \
				echo "fuzz $$pkg $$target ($(FUZZTIME))"; \
				$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) "$$pkg"; \
			done; \
		done

## bench: HTTP benchmark, fieldapi against a hand-written net/http + sqlx server (seeds $(BENCH_DB) first); table and chart in bench/results/
# BENCH_DB is sqlite:PATH or a PostgreSQL address whose database exists, e.g.
# BENCH_DB='postgres://postgres@127.0.0.1:5432/bench?sslmode=disable'.
# BENCH_FLAGS takes more flags of ./bench, e.g. BENCH_FLAGS='--concurrency 32 --duration 20s'.
bench: build
	$(GO) run ./bench --fieldapi $(BIN) --db '$(BENCH_DB)' --tasks $(BENCH_TASKS) $(BENCH_FLAGS)

## bench-go: run the Go benchmarks (one serial client each)
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## lint-openapi: lint generated/openapi.json with Redocly's recommended rules (needs npx and the npm registry; not part of make test)
# .redocly.lint-ignore.yaml lists the deliberate exceptions, each with its reason.
REDOCLY ?= @redocly/cli@2.77.0
lint-openapi:
	npx --yes $(REDOCLY) lint --extends recommended generated/openapi.json

## help: list the targets
help:
	@sed -n 's/^## //p' $(firstword $(MAKEFILE_LIST))

## fmt: gofmt every Go file
fmt:
	$(GO) fmt ./...

## clean: remove the binary, the demo key and the demo database
clean:
	rm -rf bin
	rm -f fieldapi.db fieldapi.db-shm fieldapi.db-wal
