#!/usr/bin/env bash
# Resource figures for sizing a gqlgate sidecar (docs/deployment.md, "Resource sizing"):
# gqlgate's idle RSS and CPU, then its CPU time and RSS while it serves a fixed request rate.
#
#   U  nginx `return 200` with a fixed GraphQL answer (scripts/bench/upstream.conf.in)
#   G  gqlgate in front of U, dedupe off (every request is proxied), otherwise the defaults
#   Gc gqlgate in front of U with the cache on (every request after the first is a hit)
#
# Each run holds RATE requests a second with wrk: CONNECTIONS connections, each waiting
# CONNECTIONS x 1000 / RATE ms before its next request (wrk's delay()), so the rate reached
# is a little under RATE; the report gives the rate measured. gqlgate's CPU time is read
# from /proc/PID/stat before and after the run (user + system, clock ticks), so
# "CPU per 1,000 req/s" is CPU seconds x 1000 / requests, in cores (millicores shown;
# the same number is gqlgate's CPU time per request in microseconds).
# wrk runs on the same machine and is not counted.
#
# Environment:
#   GQLGATE_BIN   gqlgate binary (default .build/release/gqlgate)
#   RATES         comma-separated request rates (default 1000,5000)
#   DURATION      seconds per run (default 20)
#   CONNECTIONS   wrk connections (default 50)
#   IDLE_SECONDS  how long gqlgate sits idle before its idle RSS and CPU are read (default 10)
#   NGINX, WRK    the nginx and wrk binaries (default from PATH)
#   KEEP_TMP      1 to keep the temp dir (configs, logs)
#
# This is a measurement, not a test: it exits non-zero only when it cannot run.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
BENCH_DIR=$SCRIPT_DIR/bench
source "$BENCH_DIR/common.sh"

GQLGATE_BIN=${GQLGATE_BIN:-$REPO_ROOT/.build/release/gqlgate}
RATES=${RATES:-1000,5000}
DURATION=${DURATION:-20}
CONNECTIONS=${CONNECTIONS:-50}
IDLE_SECONDS=${IDLE_SECONDS:-10}
NGINX=${NGINX:-nginx}
WRK=${WRK:-wrk}
KEEP_TMP=${KEEP_TMP:-0}
READY_TIMEOUT=${READY_TIMEOUT:-20}

log() { echo "bench-sizing: $*" >&2; }
die() { log "$*"; exit 1; }

[[ -x $GQLGATE_BIN ]] || die "no gqlgate at $GQLGATE_BIN (make release)"
command -v "$NGINX" >/dev/null || die "nginx not found (make bench-deps)"
command -v "$WRK" >/dev/null || die "wrk not found (make bench-deps)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gqlgate-sizing.XXXXXX")
SERVER_PIDS=()
RUN_PIDS=()
STATUS=1
install_cleanup

TICKS_PER_SECOND=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }     # utime + stime
kib_of() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"; } # VmRSS, VmHWM

read -r U_PORT G_PORT GC_PORT <<<"$(free_ports 3)"
write_big_answer "$TMP"
render_conf "$BENCH_DIR/upstream.conf.in" "$TMP/upstream.conf" "$U_PORT"
start_nginx upstream "$TMP/upstream.conf"
wait_http upstream "$LAST_PID" "http://127.0.0.1:$U_PORT/healthz"

start_gqlgate() { # name port config -> LAST_PID
    printf '%s\n' "$3" >"$TMP/$1.yaml"
    "$GQLGATE_BIN" run --listen "127.0.0.1:$2" --upstream "http://127.0.0.1:$U_PORT/graphql" \
        --config "$TMP/$1.yaml" >"$TMP/$1.log" 2>&1 &
    LAST_PID=$!
    SERVER_PIDS+=("$LAST_PID")
    wait_http "$1" "$LAST_PID" "http://127.0.0.1:$2/healthz"
    curl -s -o /dev/null -H 'Content-Type: application/json' \
        --data '{"query":"query Hello { hello }","operationName":"Hello"}' "http://127.0.0.1:$2/graphql"
}

start_gqlgate G "$G_PORT" "$G_PROXIED_CONFIG"
G_PID=$LAST_PID
start_gqlgate Gc "$GC_PORT" '{cache: {enabled: true, default_ttl: 1h}}'
GC_PID=$LAST_PID

log "idle for ${IDLE_SECONDS}s"
before=$(cpu_ticks "$G_PID")
sleep "$IDLE_SECONDS"
IDLE_CPU_MS=$(( ($(cpu_ticks "$G_PID") - before) * 1000 / TICKS_PER_SECOND ))
IDLE_RSS=$(kib_of "$G_PID" VmRSS)

ROWS=()
run() { # label pid port rate
    local label=$1 pid=$2 port=$3 rate=$4 delay out ticks requests
    delay=$((CONNECTIONS * 1000 / rate))
    log "$label at $rate req/s for ${DURATION}s"
    ticks=$(cpu_ticks "$pid")
    out=$(BENCH_DELAY_MS=$delay "$WRK" -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$BENCH_DIR/wrk.lua" \
        "http://127.0.0.1:$port/graphql")
    ticks=$(($(cpu_ticks "$pid") - ticks))
    requests=$(sed -n 's/^BENCH requests=\([0-9]*\).*/\1/p' <<<"$out")
    [[ $out =~ status=0\ timeout=0 && $out =~ connect=0\ read=0\ write=0 ]] || die "$label: errors in the run: $out"
    ROWS+=("$(awk -v l="$label" -v r="$requests" -v d="$DURATION" -v t="$ticks" -v hz="$TICKS_PER_SECOND" \
        -v rss="$(kib_of "$pid" VmRSS)" -v hwm="$(kib_of "$pid" VmHWM)" 'BEGIN {
            cpu = t / hz
            printf "| %s | %.0f | %.2f s | %.0f millicores | %d MiB | %d MiB |", \
                l, r / d, cpu, cpu * 1000 * 1000 / r, rss / 1024, hwm / 1024 }')")
}

IFS=, read -ra rate_list <<<"$RATES"
for rate in "${rate_list[@]}"; do
    run "proxied query" "$G_PID" "$G_PORT" "$rate"
    run "cache hit" "$GC_PID" "$GC_PORT" "$rate"
done

echo
echo "gqlgate $("$GQLGATE_BIN" --version 2>&1 | head -1), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "idle: RSS $((IDLE_RSS / 1024)) MiB, CPU ${IDLE_CPU_MS} ms in ${IDLE_SECONDS} s"
echo
echo "| run | req/s | gqlgate CPU | CPU per 1,000 req/s | RSS after | peak RSS |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${ROWS[@]}"
STATUS=0
