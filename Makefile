# mcpcheck — make targets. Every target installs what it needs through the Go
# module proxy; nothing else is required but Go (and gcc for -race).
GO       ?= go
PKGS     ?= ./...
BIN      ?= bin/mcpcheck
FUZZTIME ?= 10s

.PHONY: all build run test test-short test-slow fault-clients race fuzz-smoke fuzz-long fuzz-libfuzzer bench lint cover tidy clean zoo

all: build

build:
	$(GO) build $(PKGS)
	$(GO) build -o $(BIN) ./cmd/mcpcheck

# The main job: the full suite against the embedded reference server.
run:
	$(GO) run ./cmd/mcpcheck

# The test command CI runs: formatting, vet, and every test under the race
# detector (the slow tier's tests say they skip; see test-slow). TEST_P
# packages run at once (go test -p). Most of the tests wait (on processes
# starting, answers, silence windows), so 4 at once beat 2 on this 2-core
# machine: on a clean clone, quiet, 256 s against 316 s and 330 s
# (2026-12-03, 40 test packages, Chromium and the SARIF validator
# installed); with other work on the machine 225 s against 285 s. It is a
# harder test of the suites' independence from load, too. No test depends
# on the machine's load, so TEST_P changes no verdict.
TEST_P ?= 4
test: lint
	$(GO) test -race -count=1 -p $(TEST_P) -timeout 30m $(PKGS)

# The quick inner loop, not a substitute for make test: every package
# under the race detector with -short, which skips the tests that build
# and launch the mcpcheck binary or client processes, or run whole
# suites against the reference pair (their testing.Short() gates).
test-short:
	$(GO) test -race -short -count=1 -timeout 15m $(PKGS)

# The slow tier, which CI runs after make test: the long end-to-end runs
# make test leaves out. Each calls sharedtest.SlowTier (it skips without
# MCPCHECK_SLOW=1) and is listed here, its package in SLOW_PKGS
# (TestSlowTierIsInTheMakefile holds the lists to the code); each has a
# faster test in make test that judges the same code. The full hostile
# zoo is make zoo.
# TestSlowStartUnderLoadSameOutcomes (internal/scenarios/internal/server) adds late starts (1-3 s)
# with Parallel 8 under busy loops on every core, judged as a prompt
# start; make test keeps TestSilenceBeforeInitializeSeenOnALateStart.
# TestOfficialAuthScenariosWithTheReferenceClient (cmd/mcpcheck) adds the
# official suite's own judgement of the reference client's authorization
# (fifteen Node runs, when the lab is installed); make test keeps the
# client suite's authorization proofs on the reference client.
SLOW_TESTS ?= ^(TestHTMLReportOfRealRunsInChromium|TestSlowStartUnderLoadSameOutcomes|TestOfficialAuthScenariosWithTheReferenceClient|TestQuietProofs)$$
SLOW_PKGS  ?= ./cmd/mcpcheck ./internal/scenarios/internal/server ./internal/scenarios/internal/client
test-slow:
	MCPCHECK_SLOW=1 $(GO) test -race -count=1 -timeout 30m -v -run '$(SLOW_TESTS)' $(SLOW_PKGS)

# The third-party fault clients of issue 30: clients on mcp-go v1.2.1 and
# the TS SDK 1.32.2 (cmd/interop/clients) made to break one client
# rule each, through 'mcpcheck client', each caught on its own rule
# (TestFaultClientsCaughtOnTheirRule). mcp-go comes from the Go module
# cache or proxy, the TS SDK from the lab; what is missing skips, saying so.
fault-clients:
	MCPCHECK_SLOW=1 $(GO) test -count=1 -timeout 90m -v -run '^TestFaultClientsCaughtOnTheirRule$$' ./cmd/mcpcheck

race:
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

# A short run of every native fuzz target (FUZZTIME each).
fuzz-smoke:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

# Every native fuzz target built as ClusterFuzzLite builds it
# (.clusterfuzzlite/build.sh: compile_native_go_fuzzer, go-118-fuzz-build,
# libFuzzer), without Docker (.clusterfuzzlite/local.sh), then run for 2 s
# on its seed corpus; about 3 minutes on 2 cores. Needs clang++ with
# libFuzzer (Debian: clang libclang-rt-14-dev) and the Go module proxy.
# MCPCHECK_LIBFUZZER=FuzzDecode,FuzzJudge builds only those.
fuzz-libfuzzer:
	MCPCHECK_LIBFUZZER=$${MCPCHECK_LIBFUZZER:-1} $(GO) test -count=1 -v -timeout 15m -run '^TestLibFuzzerBuildsRunWithTheirSeeds$$' .

# The codec's long run: five minutes without a finding is the bar.
fuzz-long:
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime 5m ./internal/spec/jsonrpc

# The hostile-target zoo alone, its full tier (every version, the default
# start-up allowance, 30 s fuzz campaigns; make test runs its fast tier),
# one entry at a time: the figures table (wall, exit, peak RSS, what the
# report says) is printed and written to zoo.md; and the sandbox zoo
# (TestZooSandboxLeavesNothingBehind) in every version.
zoo:
	MCPCHECK_ZOO_FULL=1 MCPCHECK_ZOO_PARALLEL=1 MCPCHECK_ZOO_TABLE=$(CURDIR)/zoo.md $(GO) test -count=1 -v -timeout 60m -run '^(TestHostileTargetZoo|TestZooSandboxLeavesNothingBehind)$$' ./cmd/mcpcheck

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# bench-official runs mcpcheck and the official conformance suite against
# the same target in one run: the server suites against one reference
# server over streamable HTTP (2025-11-25, 2026-07-28), the client suites
# against go-sdk's conformance client; each prints the applicable checks
# per second of both and the ratio (ours over theirs). It needs the lab
# (../shared/lab/setup.sh, or MCPCHECK_LAB=DIR) and skips without it.
.PHONY: bench-official
bench-official:
	$(GO) test -run '^$$' -bench 'ServerSuiteVsOfficial|ClientSuiteVsOfficial$$' -benchtime 3x ./internal/scenarios/internal/server ./internal/scenarios/internal/client

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

# The interop matrix: installs the third-party MCP servers pinned in
# reports/interop/peers.json (npm and the Go module proxy) into
# $MCPCHECK_INTEROP_DIR (default ~/.cache/mcpcheck-interop), checks each with
# mcpcheck over stdio and HTTP, and regenerates reports/interop/MATRIX.md and
# MATRIX.html. Needs Go, npm and node. INTEROP_FLAGS passes flags, e.g.
# INTEROP_FLAGS='-only ts-everything -skip-install'.
# Spread over CI jobs: INTEROP_FLAGS="-shard K/N -dir DIR" in each, then
# "go run ./cmd/interop -matrix-only -dir DIR" over the gathered DIR/runs
# (README, "Spread across CI runners").
.PHONY: interop
interop:
	$(GO) run ./cmd/interop $(INTEROP_FLAGS)
census: ; $(GO) run ./cmd/interop -census $(CENSUS_FLAGS)

# The reference server against a go-sdk server in the same run (issue 3's
# "Speed"): builds mcpcheck and the go-sdk peer (cmd/gosdk-peer, a module
# of its own, built from the Go module proxy in a temp copy so the checkout is
# untouched) into $(BENCH_CACHE), runs the Peer benchmarks -count 5 with
# both, saves the output in $(BENCH_CACHE)/peer-bench.txt and prints
# benchstat's comparison (ours is the base column) and the median ratios.
BENCH_CACHE ?= $(HOME)/.cache/mcpcheck-bench
.PHONY: bench-compare
bench-compare:
	@set -e; mkdir -p "$(BENCH_CACHE)"; tmp=$$(mktemp -d); \
	  trap 'rm -rf "$$tmp"' EXIT; \
	  cp -R cmd/gosdk-peer/. "$$tmp"; \
	  echo "== building the go-sdk peer into $(BENCH_CACHE)/gosdk-peer"; \
	  (cd "$$tmp" && GOWORK=off GOFLAGS=-mod=mod $(GO) build -o "$(BENCH_CACHE)/gosdk-peer" .); \
	  echo "== building mcpcheck into $(BENCH_CACHE)/mcpcheck"; \
	  $(GO) build -o "$(BENCH_CACHE)/mcpcheck" ./cmd/mcpcheck; \
	  echo "== go test -run '^$$' -bench 'Peer' -benchmem -count 5 ./internal/reference/server"; \
	  { MCPCHECK_BENCH_OURS="$(BENCH_CACHE)/mcpcheck" MCPCHECK_BENCH_GOSDK="$(BENCH_CACHE)/gosdk-peer" \
	    $(GO) test -run '^$$' -bench 'Peer' -benchmem -count 5 ./internal/reference/server; echo $$? > "$$tmp/rc"; } 2>&1 \
	    | tee "$(BENCH_CACHE)/peer-bench.txt"; \
	  rc=$$(cat "$$tmp/rc"); if [ "$$rc" != 0 ]; then echo "bench-compare: the benchmarks failed (exit $$rc)"; exit $$rc; fi; \
	  sed -E 's#/(ours|gosdk)(-[0-9]+)?[[:space:]]#/impl=\1\2 #' "$(BENCH_CACHE)/peer-bench.txt" > "$(BENCH_CACHE)/peer-bench.impl.txt"; \
	  echo "== benchstat -col /impl (base: ours)"; \
	  $(GO) run golang.org/x/perf/cmd/benchstat@latest -col /impl "$(BENCH_CACHE)/peer-bench.impl.txt" \
	    || echo "(benchstat unavailable through the module proxy; the ratios below need nothing but Go)"; \
	  echo "== ratios"; \
	  $(GO) run ./cmd/benchratio "$(BENCH_CACHE)/peer-bench.txt"
