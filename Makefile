# mcpcheck — make targets. Every target installs what it needs through the Go
# module proxy; nothing else is required but Go (and gcc for -race).
GO       ?= go
PKGS     ?= ./...
BIN      ?= bin/mcpcheck
FUZZTIME ?= 10s

.PHONY: all build run test race fuzz-smoke fuzz-long bench lint cover tidy clean

all: build

build:
	$(GO) build $(PKGS)
	$(GO) build -o $(BIN) ./cmd/mcpcheck

# The main job: the full suite against the embedded reference server.
run:
	$(GO) run ./cmd/mcpcheck

# The test command CI runs: formatting, vet, and every test under the race detector.
test: lint
	$(GO) test -race -count=1 $(PKGS)

race:
	$(GO) test -race -count=1 $(PKGS)

# A short run of every native fuzz target (FUZZTIME each).
fuzz-smoke:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

# The codec's long run: five minutes without a finding is the bar.
fuzz-long:
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime 5m ./spec/jsonrpc

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

cover:
	$(GO) test -count=1 -coverprofile=cover.out $(PKGS)
	$(GO) tool cover -func=cover.out | tail -1

tidy:
	$(GO) mod tidy

clean:
	rm -rf bin cover.out
