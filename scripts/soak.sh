#!/usr/bin/env bash
# Soak test (not in CI): gqlgate in front of the Strawberry test upstream under
# steady wrk load for SOAK_DURATION, with the upstream killed and restarted every
# SOAK_RESTART_EVERY seconds. Reports gqlgate's RSS after warm-up and at the end
# (fails when it grew by more than SOAK_RSS_TOLERANCE percent), wrk's socket errors
# and answer statuses, and checks that every request got an answer: no socket
# errors or timeouts at wrk, and gqlgate's gqlgate_requests_total equal to what
# wrk sent. While the upstream is down gqlgate answers 502, which counts as an answer.
#
# Environment:
#   GQLGATE_BIN          gqlgate binary (default .build/release/gqlgate)
#   PYTHON               Python with the test requirements (default .venv/bin/python)
#   SOAK_DURATION        seconds of load (default 600)
#   SOAK_WARMUP          seconds before the first RSS reading (default 30)
#   SOAK_RESTART_EVERY   seconds between upstream restarts (default 60)
#   SOAK_DOWNTIME        seconds the upstream stays down each time (default 2)
#   SOAK_CONNECTIONS     wrk connections (default 20)
#   SOAK_RSS_TOLERANCE   allowed RSS growth in percent (default 10)
#   SOAK_SUBSCRIBER_CMD  command run alongside the load for the whole soak (for
#                        long-lived subscription clients); gets GQLGATE_URL and
#                        SOAK_DURATION in its environment, and its exit status
#                        is part of the result. Default: scripts/soak_subscribers.py
#                        (SOAK_SUBSCRIBERS graphql-transport-ws clients on the
#                        endless `ticks` subscription, which must keep their
#                        streams across the upstream restarts); "" for none.
#   KEEP_TMP             1 to keep the temp dir (logs, wrk output)
#
# Exit status: 0 when every check passed, 1 when one failed, 2 when it cannot run.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)

GQLGATE_BIN=${GQLGATE_BIN:-$REPO_ROOT/.build/release/gqlgate}
PYTHON=${PYTHON:-$REPO_ROOT/.venv/bin/python}
SOAK_DURATION=${SOAK_DURATION:-600}
SOAK_WARMUP=${SOAK_WARMUP:-30}
SOAK_RESTART_EVERY=${SOAK_RESTART_EVERY:-60}
SOAK_DOWNTIME=${SOAK_DOWNTIME:-2}
SOAK_CONNECTIONS=${SOAK_CONNECTIONS:-20}
SOAK_RSS_TOLERANCE=${SOAK_RSS_TOLERANCE:-10}
SOAK_SUBSCRIBER_CMD=${SOAK_SUBSCRIBER_CMD-"$PYTHON $SCRIPT_DIR/soak_subscribers.py"}
KEEP_TMP=${KEEP_TMP:-0}
WRK=${WRK:-wrk}

log() { printf 'soak: %s\n' "$*" >&2; }
die() { log "$*"; exit 2; }

[[ -x $GQLGATE_BIN ]] || die "no gqlgate binary at $GQLGATE_BIN (make release, or set GQLGATE_BIN)"
[[ -x $PYTHON ]] || die "no Python at $PYTHON (make venv, or set PYTHON)"
command -v "$WRK" >/dev/null || die "wrk not found (make soak installs it)"

TMP=$(mktemp -d)
upstream_pid=
gateway_pid=
subscriber_pid=
cleanup() {
    for pid in $subscriber_pid $gateway_pid $upstream_pid; do
        kill "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    if [[ $KEEP_TMP == 1 ]]; then log "kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

free_port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

wait_http() {  # URL: wait up to 30 s for any HTTP answer
    for _ in $(seq 300); do
        curl -s -o /dev/null "$1" && return 0
        sleep 0.1
    done
    die "no answer from $1"
}

UPSTREAM_PORT=$(free_port)
GATEWAY_PORT=$(free_port)
GATEWAY=http://127.0.0.1:$GATEWAY_PORT

start_upstream() {
    (cd "$REPO_ROOT/tests/integration" && exec "$PYTHON" upstream_app.py --port "$UPSTREAM_PORT") >>"$TMP/upstream.log" 2>&1 &
    upstream_pid=$!
    wait_http "http://127.0.0.1:$UPSTREAM_PORT/counters"
}

stop_upstream() {
    kill "$upstream_pid" 2>/dev/null || true
    wait "$upstream_pid" 2>/dev/null || true
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$gateway_pid/status"; }

requests_total() {  # sum of the gqlgate_requests_total series of queries (wrk's; the subscribers' upgrades are not queries)
    curl -s "$GATEWAY/metrics" | awk '/^gqlgate_requests_total\{.*operation="query"/ { sum += $2 } END { printf "%d\n", sum }'
}

start_upstream
"$GQLGATE_BIN" run --listen "127.0.0.1:$GATEWAY_PORT" --upstream "http://127.0.0.1:$UPSTREAM_PORT/graphql" \
    --log-level warn >"$TMP/gqlgate.log" 2>&1 &
gateway_pid=$!
wait_http "$GATEWAY/healthz"
log "gqlgate pid $gateway_pid on $GATEWAY, upstream on :$UPSTREAM_PORT, ${SOAK_DURATION}s of load"

cat >"$TMP/soak.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"query":"query Soak { hello books { id title } }"}'
wrk.headers["Content-Type"] = "application/json"
statuses = {}
response = function(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
end
done = function(summary, latency, requests)
    local e = summary.errors
    io.write(string.format("WRK requests=%d connect=%d read=%d write=%d timeout=%d non2xx=%d p99_ms=%.2f\n",
        summary.requests, e.connect, e.read, e.write, e.timeout, e.status, latency:percentile(99) / 1000))
end
LUA

before_requests=$(requests_total)
if [[ -n $SOAK_SUBSCRIBER_CMD ]]; then
    GQLGATE_URL=$GATEWAY/graphql SOAK_DURATION=$SOAK_DURATION bash -c "$SOAK_SUBSCRIBER_CMD" >"$TMP/subscribers.log" 2>&1 &
    subscriber_pid=$!
    log "subscribers: $SOAK_SUBSCRIBER_CMD (pid $subscriber_pid)"
fi
# One thread per connection keeps wrk's per-thread Lua counters simple; the
# timeout is far above anything gqlgate should take (upstream.timeout is 10s).
"$WRK" -t1 -c"$SOAK_CONNECTIONS" -d"${SOAK_DURATION}s" --timeout 15s -s "$TMP/soak.lua" "$GATEWAY/graphql" >"$TMP/wrk.out" 2>&1 &
wrk_pid=$!

start=$SECONDS
sleep "$SOAK_WARMUP"
rss_start=$(rss_kib)
log "RSS after ${SOAK_WARMUP}s warm-up: ${rss_start} KiB"
restarts=0
next_restart=$((start + SOAK_RESTART_EVERY))
while kill -0 "$wrk_pid" 2>/dev/null; do
    if ((SECONDS >= next_restart && SECONDS - start < SOAK_DURATION - SOAK_DOWNTIME - 5)); then
        stop_upstream
        sleep "$SOAK_DOWNTIME"
        start_upstream
        restarts=$((restarts + 1))
        next_restart=$((SECONDS + SOAK_RESTART_EVERY))
        log "upstream restarted ($restarts)"
    fi
    sleep 1
done
wait "$wrk_pid" || true
rss_end=$(rss_kib)
after_requests=$(requests_total)

failed=0
wrk_line=$(grep '^WRK ' "$TMP/wrk.out" || true)
[[ -n $wrk_line ]] || { cat "$TMP/wrk.out" >&2; die "wrk printed no summary"; }
eval "${wrk_line#WRK }"
answered=$((after_requests - before_requests))
growth=$(( (rss_end - rss_start) * 100 / rss_start ))

printf '\n== soak summary ==\n'
printf 'duration          %ss, %s upstream restarts (%ss down each)\n' "$SOAK_DURATION" "$restarts" "$SOAK_DOWNTIME"
printf 'requests (wrk)    %s, non-2xx %s, p99 %s ms\n' "$requests" "$non2xx" "$p99_ms"
printf 'socket errors     connect %s, read %s, write %s, timeout %s\n' "$connect" "$read" "$write" "$timeout"
printf 'answered (gqlgate_requests_total) %s\n' "$answered"
printf 'RSS               %s KiB after warm-up, %s KiB at the end (%s%%)\n' "$rss_start" "$rss_end" "$growth"

if ((connect + read + write + timeout > 0)); then
    printf 'FAIL: requests without an answer (socket errors or timeouts)\n'; failed=1
fi
# wrk stops mid-request at the end of its run: those few count at gqlgate but not at wrk.
if ((answered < requests || answered > requests + SOAK_CONNECTIONS)); then
    printf 'FAIL: gqlgate answered %s requests, wrk completed %s\n' "$answered" "$requests"; failed=1
fi
if ((growth > SOAK_RSS_TOLERANCE)); then
    printf 'FAIL: RSS grew by %s%% (allowed %s%%)\n' "$growth" "$SOAK_RSS_TOLERANCE"; failed=1
fi
if ! kill -0 "$gateway_pid" 2>/dev/null; then
    printf 'FAIL: gqlgate exited during the soak\n'; tail -20 "$TMP/gqlgate.log"; failed=1
fi
if [[ -n $subscriber_pid ]]; then
    if wait "$subscriber_pid"; then
        cat "$TMP/subscribers.log"
    else
        cat "$TMP/subscribers.log"
        printf 'FAIL: subscriber command exited non-zero (log: %s)\n' "$TMP/subscribers.log"; failed=1; KEEP_TMP=1
    fi
    subscriber_pid=
fi
((failed == 0)) && printf 'PASS\n'
exit "$failed"
