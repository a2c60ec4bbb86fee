# gqlgate: build, test, demo, bench.
#
#   make build        debug build (swift build)
#   make release      release build (--static-swift-stdlib: the binary carries the Swift runtime)
#   make dist         release build, stripped into dist/gqlgate (what the container image ships)
#   make image        container image gqlgate:<version> and gqlgate:latest with docker or podman
#                     around dist/gqlgate (IMAGE_FROM=source: built inside, on the Swift image),
#                     see docs/deployment.md, "The image"
#   make test         system packages, test venv, build, unit tests, integration tests, container
#                     checks and tests (CI runs this)
#   make unit         swift test
#   make integration  pytest tests/integration against the debug binary
#   make test-containers  podman, dist, pytest tests/container: the image built around dist/gqlgate
#                     and run for real (root; see tests/container/README.md)
#   make lint-containers  hadolint and checkov on docker/Dockerfile; the deploy/kubernetes kustomizations
#                     rendered, schema-checked and checkov'd (venv .venv-lint)
#   make demo         release build, then `gqlgate demo` (demo API on :4000, gqlgate on :8080)
#   make bench        benchmark tools, release build, scripts/bench.sh
#   make bench-instructions  valgrind, release build, scripts/bench-instructions.sh: user-space
#                     instructions per proxied request under callgrind (P, B, G, and S: G with a
#                     1,000-document safelist), for machines without hardware counters
#   make bench-subscriptions  test venv, release build, scripts/bench-subscriptions.sh: 1,000
#                     WebSocket subscribers through gqlgate (SUBSCRIBERS=10000 for the target;
#                     TARGET=upstream: the clients on the upstream alone; CLIENT=python: the
#                     asyncio client instead of the C one)
#   make bench-sizing  nginx, wrk, release build, scripts/bench-sizing.sh: idle RSS and CPU, and CPU
#                     per 1,000 req/s at fixed rates (RATES=1000,5000), for docs/deployment.md
#   make bench-overload  release build, scripts/bench-overload.sh: an upstream 10 x slower for 20 s
#                     under 3 x what it then serves, through gqlgate without and with
#                     upstream.max_concurrency (docs/traffic.md)
#   make bench-sidecar  wrk, the venv, release build, scripts/bench-sidecar.sh: a Strawberry API
#                     directly and through gqlgate (dedupe off, defaults, cache on)
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
# Variables: SWIFT, PYTHON, VENV, PYTEST_ARGS (e.g. PYTEST_ARGS='-k proxy -x'), INTEGRATION_JOBS
# (pytest-xdist workers, default 3; 0 runs the tests one at a time), SANITIZE_BUILD_ARGS,
# DEMO_ARGS (e.g. DEMO_ARGS='--listen 127.0.0.1:9090'), GQLGATE_BIN (binary under test).

SHELL := /bin/bash

SWIFT ?= swift
PYTHON ?= python3
VENV ?= .venv
PYTEST_ARGS ?=
# How many integration tests run at once (pytest-xdist workers; 0: one at a time, in pytest's own
# process). The tests mostly wait on the peers they start: three take 2.2 min where one at
# a time took 6, and four saturate the two cores for 10 s less.
INTEGRATION_JOBS ?= 3
DEMO_ARGS ?=

BUILD_PACKAGES := libmicrohttpd-dev libgnutls28-dev nettle-dev libcurl4-openssl-dev libwslay-dev libhiredis-dev libmimalloc-dev libbrotli-dev zlib1g-dev pkg-config
SYSTEM_PACKAGES := $(BUILD_PACKAGES) redis-server curl
# catatonit: podman kube play builds its pause image around it (a recommendation of podman's,
# which install-deps.sh leaves out).
CONTAINER_PACKAGES := podman buildah runc debootstrap binutils catatonit
LINT_VENV ?= .venv-lint
IMAGE_FROM ?= host
# The end-to-end tests drive a headless browser (tests/integration/test_browsers_chromium.py).
BROWSER_PACKAGES := chromium
BENCH_PACKAGES := nginx-light wrk linux-perf openssl
INSTRUCTIONS_PACKAGES := nginx-light wrk valgrind

.DEFAULT_GOAL := build
# The release build: `make release`, `make dist` and the image's builder stage (docker/Dockerfile
# runs `make dist`) all build with this one command.
RELEASE_BUILD = $(SWIFT) build -c release --static-swift-stdlib
# The time a long target starts, so that a CI log shows where its minutes go.
STAMP = echo "== $$(date -u +%H:%M:%S) make $@"

.PHONY: build release dist image image-deps lint-containers test-containers build-deps test unit integration demo bench bench-instructions bench-subscriptions bench-sizing bench-overload bench-sidecar soak fuzz test-sanitize clean distclean deps bench-deps venv

deps:
	@scripts/install-deps.sh $(SYSTEM_PACKAGES)

build-deps:
	@scripts/install-deps.sh $(BUILD_PACKAGES)

image-deps:
	@scripts/install-deps.sh $(CONTAINER_PACKAGES)

bench-deps:
	@scripts/install-deps.sh $(BENCH_PACKAGES)

venv:
	@VENV="$(VENV)" PYTHON="$(PYTHON)" scripts/venv.sh

build: deps
	@$(STAMP)
	$(SWIFT) build

release: build-deps
	@$(STAMP)
	$(RELEASE_BUILD)

dist: release
	@mkdir -p dist
	strip --strip-unneeded -o dist/gqlgate "$$($(RELEASE_BUILD) --show-bin-path)/gqlgate"

image: $(if $(filter host,$(IMAGE_FROM)),dist)
	scripts/image.sh $(IMAGE_FROM)

lint-containers:
	@$(STAMP)
	@VENV="$(LINT_VENV)" PYTHON="$(PYTHON)" REQUIREMENTS=requirements-lint.txt scripts/venv.sh
	PATH="$(CURDIR)/$(LINT_VENV)/bin:$$PATH" scripts/lint-containers.sh
	PATH="$(CURDIR)/$(LINT_VENV)/bin:$$PATH" scripts/lint-kubernetes.sh

test-containers: image-deps venv dist
	@$(STAMP)
	"$(VENV)/bin/python" -m pytest tests/container $(PYTEST_ARGS)

unit: deps
	@$(STAMP)
	$(SWIFT) test

integration: venv build
	@$(STAMP)
	@scripts/install-deps.sh $(BROWSER_PACKAGES)
	GQLGATE_BIN="$${GQLGATE_BIN:-$$($(SWIFT) build --show-bin-path)/gqlgate}" \
		"$(VENV)/bin/python" -m pytest tests/integration -n $(INTEGRATION_JOBS) $(PYTEST_ARGS)

test: deps venv build unit integration lint-containers test-containers

demo: deps release
	"$$($(RELEASE_BUILD) --show-bin-path)/gqlgate" demo $(DEMO_ARGS)

bench: deps bench-deps release
	bash scripts/bench.sh

bench-instructions: deps release
	@scripts/install-deps.sh $(INSTRUCTIONS_PACKAGES)
	bash scripts/bench-instructions.sh

bench-subscriptions: deps venv release
	PYTHON="$(VENV)/bin/python" bash scripts/bench-subscriptions.sh

bench-sizing: deps bench-deps release
	bash scripts/bench-sizing.sh

bench-overload: deps release
	bash scripts/bench-overload.sh

bench-sidecar: deps venv bench-deps release
	PYTHON="$(VENV)/bin/python" bash scripts/bench-sidecar.sh

fuzz: deps
	bash scripts/fuzz.sh

SANITIZERS ?= address
TSAN_FILTER ?=
# The sanitizer builds keep no DWARF, a tenth less build time: a report still names each
# frame's function from the symbol table, mangled (`swift demangle` reads it), without its
# line. SANITIZE_BUILD_ARGS= adds it back. (The index store stays: `swift test` finds the
# tests through it.)
SANITIZE_BUILD_ARGS ?= -debug-info-format none
# One test at a time: under a sanitizer, tests run side by side starve each other's tasks
# (two cores), and those that wait on wall-clock time or Redis then fail for that alone.
test-sanitize: deps
	@for sanitizer in $(SANITIZERS); do \
		filter=; if [ "$$sanitizer" = thread ] && [ -n "$(TSAN_FILTER)" ]; then filter="--filter $(TSAN_FILTER)"; fi; \
		echo "== unit tests under $$sanitizer sanitizer"; \
		TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/Tests/tsan-suppressions.txt" \
			ASAN_OPTIONS="detect_leaks=0" SWIFT_BACKTRACE=enable=no \
			$(SWIFT) test --sanitize=$$sanitizer --scratch-path .build-$$sanitizer $(SANITIZE_BUILD_ARGS) --no-parallel $$filter || exit 1; \
	done

soak: deps venv release
	@scripts/install-deps.sh wrk
	bash scripts/soak.sh

clean:
	-$(SWIFT) package clean
	rm -rf .pytest_cache tests/integration/.pytest_cache
	find tests -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf .build .build-fuzz .build-bench .build-thread .build-address fuzz-results dist "$(VENV)" "$(LINT_VENV)"
