# gqlgate: build, test, demo, bench.
#
#   make build        debug build (swift build)
#   make release      release build
#   make test         system packages, test venv, build, unit tests, integration tests (CI runs this)
#   make unit         swift test
#   make integration  pytest tests/integration against the debug binary
#   make demo         release build, then `gqlgate demo` (demo API on :4000, gqlgate on :8080)
#   make bench        benchmark tools, release build, scripts/bench.sh
#   make bench-instructions  valgrind, release build, scripts/bench-instructions.sh: user-space
#                     instructions per proxied request under callgrind (P, B, G), for machines
#                     without hardware counters
#   make bench-subscriptions  test venv, release build, scripts/bench-subscriptions.sh: 1,000
#                     WebSocket subscribers through gqlgate (SUBSCRIBERS=10000 for the target;
#                     TARGET=upstream: the clients on the upstream alone; CLIENT=python: the
#                     asyncio client instead of the C one)
#   make bench-sizing  nginx, wrk, release build, scripts/bench-sizing.sh: idle RSS and CPU, and CPU
#                     per 1,000 req/s at fixed rates (RATES=1000,5000), for docs/deployment.md
#   make soak         wrk, test venv, release build, scripts/soak.sh (10 min; SOAK_DURATION=seconds; not in CI)
#   make fuzz         scripts/fuzz.sh: builds the libFuzzer targets under Fuzz/ with AddressSanitizer and
#                     runs each for FUZZ_SECONDS (default 60; CI runs this), see docs/fuzzing.md
#   make test-sanitize  the unit tests under AddressSanitizer (SANITIZERS='address thread' adds
#                     ThreadSanitizer, which this toolchain's Mutex hides from: docs/fuzzing.md;
#                     TSAN_FILTER limits the TSan run to some test targets)
#   make deps         install missing Debian packages (apt-get; as root or through sudo)
#   make venv         .venv with requirements-test.txt (re-used while the file is unchanged)
#   make clean        remove build products; `make distclean` also removes .build and .venv
#
# Variables: SWIFT, PYTHON, VENV, PYTEST_ARGS (e.g. PYTEST_ARGS='-k proxy -x'),
# DEMO_ARGS (e.g. DEMO_ARGS='--listen 127.0.0.1:9090'), GQLGATE_BIN (binary under test).

SHELL := /bin/bash

SWIFT ?= swift
PYTHON ?= python3
VENV ?= .venv
PYTEST_ARGS ?=
DEMO_ARGS ?=

SYSTEM_PACKAGES := libmicrohttpd-dev libcurl4-openssl-dev libwslay-dev libhiredis-dev libmimalloc-dev redis-server pkg-config curl
BENCH_PACKAGES := nginx-light wrk linux-perf
INSTRUCTIONS_PACKAGES := nginx-light wrk valgrind

.DEFAULT_GOAL := build
.PHONY: build release test unit integration demo bench bench-instructions bench-subscriptions bench-sizing soak fuzz test-sanitize clean distclean deps bench-deps venv

deps:
	@scripts/install-deps.sh $(SYSTEM_PACKAGES)

bench-deps:
	@scripts/install-deps.sh $(BENCH_PACKAGES)

venv:
	@VENV="$(VENV)" PYTHON="$(PYTHON)" scripts/venv.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

unit: deps
	$(SWIFT) test

integration: venv build
	GQLGATE_BIN="$${GQLGATE_BIN:-$$($(SWIFT) build --show-bin-path)/gqlgate}" \
		"$(VENV)/bin/python" -m pytest tests/integration $(PYTEST_ARGS)

test: deps venv build unit integration

demo: deps release
	"$$($(SWIFT) build -c release --show-bin-path)/gqlgate" demo $(DEMO_ARGS)

bench: deps bench-deps release
	bash scripts/bench.sh

bench-instructions: deps release
	@scripts/install-deps.sh $(INSTRUCTIONS_PACKAGES)
	bash scripts/bench-instructions.sh

bench-subscriptions: deps venv release
	PYTHON="$(VENV)/bin/python" bash scripts/bench-subscriptions.sh

bench-sizing: deps bench-deps release
	bash scripts/bench-sizing.sh

fuzz: deps
	bash scripts/fuzz.sh

SANITIZERS ?= address
TSAN_FILTER ?=
test-sanitize: deps
	@for sanitizer in $(SANITIZERS); do \
		filter=; if [ "$$sanitizer" = thread ] && [ -n "$(TSAN_FILTER)" ]; then filter="--filter $(TSAN_FILTER)"; fi; \
		echo "== unit tests under $$sanitizer sanitizer"; \
		TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/Tests/tsan-suppressions.txt" \
			ASAN_OPTIONS="detect_leaks=0" SWIFT_BACKTRACE=enable=no \
			$(SWIFT) test --sanitize=$$sanitizer --scratch-path .build-$$sanitizer $$filter || exit 1; \
	done

soak: deps venv release
	@scripts/install-deps.sh wrk
	bash scripts/soak.sh

clean:
	-$(SWIFT) package clean
	rm -rf .pytest_cache tests/integration/.pytest_cache
	find tests -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf .build .build-fuzz .build-thread .build-address fuzz-results "$(VENV)"
