#!/usr/bin/env bash
# Overload benchmark (see docs/traffic.md, "Measured"): an upstream that slows down ten
# times for a while, under three times the load it can serve while slow, through gqlgate
# without and with traffic protection.
#
#   D  scripts/bench/degrading-upstream.py: WORKERS requests worked on at once, LATENCY_MS
#      each; the others wait for a worker. Told to take FACTOR x as long for DEGRADED seconds
#   N  gqlgate in front of D with dedupe off (every request goes upstream) and no protection
#   Y  the same with upstream.max_concurrency: WORKERS, queue_timeout: QUEUE_TIMEOUT
#   the load: scripts/bench/overload-client.py, RATE requests a second on schedule (open
#      loop) for BASE seconds, DEGRADED seconds while D is slow, RECOVERY seconds after
#
# RATE defaults to 3 x what D serves while slow (WORKERS / (LATENCY_MS x FACTOR)). Reports per
# row: D's most requests in flight, gqlgate's p99 for served requests (all, and those sent
# while D was slow), the share not served (shed or failed), and the time from D's recovery
# until every later request is served within 2 x the first phase's p99.
#
# Environment: GQLGATE_BIN (default .build/release/gqlgate), PYTHON (default python3),
# WORKERS (16), LATENCY_MS (20), FACTOR (10), RATE, BASE (10), DEGRADED (20), RECOVERY (20),
# QUEUE_TIMEOUT (250ms), RESULTS_DIR (bench-results).
#
# A benchmark, not a test: it exits 0 whatever it measures, non-zero only when it cannot run.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
BENCH_DIR=$SCRIPT_DIR/bench
source "$BENCH_DIR/common.sh"

GQLGATE_BIN=${GQLGATE_BIN:-$REPO_ROOT/.build/release/gqlgate}
PYTHON=${PYTHON:-python3}
WORKERS=${WORKERS:-16}
LATENCY_MS=${LATENCY_MS:-20}
FACTOR=${FACTOR:-10}
RATE=${RATE:-$((3 * WORKERS * 1000 / (LATENCY_MS * FACTOR)))}
BASE=${BASE:-10}
DEGRADED=${DEGRADED:-20}
RECOVERY=${RECOVERY:-20}
QUEUE_TIMEOUT=${QUEUE_TIMEOUT:-250ms}
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench-results}
KEEP_TMP=${KEEP_TMP:-0}
READY_TIMEOUT=${READY_TIMEOUT:-30}

log() { printf 'bench-overload: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -x $GQLGATE_BIN ]] || die "$GQLGATE_BIN not found (build it with: swift build -c release)"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gqlgate-bench-overload.XXXXXX")
SERVER_PIDS=()
RUN_PIDS=()
STATUS=1
install_cleanup

# row name config: D and gqlgate started afresh, the load run, its figures appended to ROWS
ROWS=()
row() {
    local name=$1 config=$2 d_port g_port d_pid g_pid figures
    read -r d_port g_port < <(free_ports 2)
    "$PYTHON" "$BENCH_DIR/degrading-upstream.py" "$d_port" "$WORKERS" "$LATENCY_MS" >"$TMP/upstream-$name.log" 2>&1 &
    d_pid=$!
    SERVER_PIDS+=("$d_pid")
    wait_http "upstream (D)" "$d_pid" "http://127.0.0.1:$d_port/stats"
    printf '%s\n' "$config" >"$TMP/gqlgate-$name.yaml"
    "$GQLGATE_BIN" run --listen "127.0.0.1:$g_port" --upstream "http://127.0.0.1:$d_port/graphql" \
        --config "$TMP/gqlgate-$name.yaml" --log-level error >"$TMP/gqlgate-$name.log" 2>&1 &
    g_pid=$!
    SERVER_PIDS+=("$g_pid")
    wait_http "gqlgate ($name)" "$g_pid" "http://127.0.0.1:$g_port/healthz"
    log "$name: $RATE req/s for $BASE s, $DEGRADED s with the upstream $FACTOR x slower, $RECOVERY s after"
    figures=$("$PYTHON" "$BENCH_DIR/overload-client.py" "http://127.0.0.1:$g_port/graphql" "http://127.0.0.1:$d_port/stats" \
        "$RATE" "$BASE" "$DEGRADED" "$RECOVERY" "$FACTOR")
    ROWS+=("$name $figures")
    stop_pid "$g_pid"
    stop_pid "$d_pid"
}

row N "{dedupe: {enabled: false}}"
row Y "{dedupe: {enabled: false}, upstream: {max_concurrency: $WORKERS, queue_timeout: $QUEUE_TIMEOUT}}"

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/overload.md
{
    echo "# Overload: the upstream $FACTOR x slower for ${DEGRADED}s under 3 x what it then serves"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores. D: $WORKERS workers x ${LATENCY_MS} ms; load $RATE req/s open loop."
    echo "N: no protection. Y: upstream.max_concurrency $WORKERS, queue_timeout $QUEUE_TIMEOUT."
    echo
    printf '%s\n' "${ROWS[@]}" | "$PYTHON" -c '
import json, sys
print("| row | requests | not served | upstream max in flight | p99 served | p99 served while slow | recovery | statuses |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for line in sys.stdin:
    name, _, text = line.partition(" ")
    f = json.loads(text)
    recovery = "not within the run" if f["recovery_s"] is None else "%d s" % f["recovery_s"]
    print("| %s | %d | %.1f %% | %d | %.0f ms | %.0f ms | %s | %s |" % (name, f["requests"], 100 * f["shed_share"],
          f["upstream_max_in_flight"], 1000 * f["p99_served_s"], 1000 * f["p99_served_degraded_s"], recovery,
          ", ".join("%s: %d" % kv for kv in f["statuses"].items())))
'
    echo
    echo "Status 0: no answer within 30 s or the connection failed."
} >"$REPORT"
cat "$REPORT"
log "report written to ${REPORT#"$REPO_ROOT"/}"
STATUS=0
