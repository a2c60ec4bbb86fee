#!/usr/bin/env bash
# Subscription fan-out benchmark (see docs/benchmarks.md): N WebSocket clients on one
# subscription through gqlgate, the upstream emitting one timestamped event a tick.
#
#   T  scripts/bench/ticker-upstream.py: graphql-transport-ws upstream, one event every
#      INTERVAL_MS to every subscription, the payload carrying its emit time
#   G  gqlgate in front of T (TARGET=gqlgate), sharing one upstream subscription
#      among its clients (subscriptions.dedupe, on by default)
#   the clients: SUBSCRIBERS graphql-transport-ws connections, each subscribed once,
#      reporting emit-to-receive latency over EVENTS events: scripts/bench/subscribers.c
#      (CLIENT=c, one epoll thread, built here with cc) or scripts/bench/subscribers.py
#      (CLIENT=python, asyncio in PROCESSES processes)
#   F  the floor, once the servers are stopped: scripts/bench/send-floor.c writes one
#      message of a `next` frame's size to each of as many loopback sockets with nothing
#      but write(2), from as many threads as gqlgate has loops by default, EVENTS rounds
#
# Reports event fan-out latency p50/p99/max, missed deliveries, gqlgate's peak RSS
# (VmHWM), the floor's p50/p99 and gqlgate's over them. Targets at 10,000 subscribers:
# p99 <= 1.2 x the floor's p99, RSS < 256 MiB.
#
# Environment:
#   TARGET        gqlgate (default) or upstream: the clients subscribe to T directly. T then
#                 sends every event once per subscriber (through gqlgate: once), so at
#                 thousands of subscribers T's Python is what this measures
#   CLIENT        c (default) or python: the client program
#   SUBSCRIBERS   client connections (default 1000; the target is set at 10000)
#   EVENTS        events measured once every client is subscribed (CLIENT=c: and has
#                 received an event) (default 10)
#   INTERVAL_MS   time between events (default 1000)
#   PROCESSES     CLIENT=python: client processes sharing the connections (default 2)
#   GQLGATE_BIN   gqlgate binary (default .build/release/gqlgate)
#   GQLGATE_ARGS  extra arguments for `gqlgate run` (default none)
#   PYTHON        Python with the `websockets` package, for T and CLIENT=python (default
#                 .venv/bin/python, see make venv)
#   CC            C compiler for CLIENT=c and the floor (default cc)
#   FLOOR_WRITERS the floor's writer threads (default: gqlgate's default loops, the CPUs
#                 but one, at least one)
#   FLOOR_BYTES   the floor's message size (default: the largest `next` frame the C client
#                 measured; CLIENT=python: 100)
#   RESULTS_DIR   where subscriptions.md goes (default bench-results)
#   KEEP_TMP      1 to keep the temp dir (logs)
#
# This is a benchmark, not a test: it exits 0 whether or not the targets are met,
# and non-zero only when it cannot run.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
BENCH_DIR=$SCRIPT_DIR/bench

TARGET=${TARGET:-gqlgate}
CLIENT=${CLIENT:-c}
CC=${CC:-cc}
SUBSCRIBERS=${SUBSCRIBERS:-1000}
EVENTS=${EVENTS:-10}
INTERVAL_MS=${INTERVAL_MS:-1000}
PROCESSES=${PROCESSES:-2}
GQLGATE_BIN=${GQLGATE_BIN:-$REPO_ROOT/.build/release/gqlgate}
GQLGATE_ARGS=${GQLGATE_ARGS:-}
PYTHON=${PYTHON:-$REPO_ROOT/.venv/bin/python}
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench-results}
KEEP_TMP=${KEEP_TMP:-0}
READY_TIMEOUT=${READY_TIMEOUT:-20}

FLOOR_WRITERS=${FLOOR_WRITERS:-$(($(nproc) > 1 ? $(nproc) - 1 : 1))}
FLOOR_BYTES=${FLOOR_BYTES:-}

P99_FLOOR_RATIO_TARGET=1.2
RSS_TARGET_MIB=256
TARGET_SUBSCRIBERS=10000

log() { printf 'bench-subscriptions: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ------------------------------------------------------------------ preflight

[[ $TARGET == gqlgate || $TARGET == upstream ]] || die "TARGET must be gqlgate or upstream"
[[ -z $FLOOR_BYTES || $FLOOR_BYTES =~ ^[1-9][0-9]*$ ]] || die "FLOOR_BYTES must be a positive integer"
[[ $CLIENT == c || $CLIENT == python ]] || die "CLIENT must be c or python"
for v in SUBSCRIBERS EVENTS INTERVAL_MS PROCESSES FLOOR_WRITERS; do
    [[ ${!v} =~ ^[0-9]+$ && ${!v} -gt 0 ]] || die "$v must be a positive integer"
done
"$PYTHON" -c 'import websockets' 2>/dev/null || die "$PYTHON has no websockets package (make venv)"
if [[ $TARGET == gqlgate ]]; then
    [[ -x $GQLGATE_BIN ]] || die "$GQLGATE_BIN not found (build it with: swift build -c release)"
fi
# Every connection is a file descriptor in the client and in the server it talks to.
wanted_fds=$((SUBSCRIBERS + 1024))
if (($(ulimit -n) < wanted_fds)); then
    ulimit -n "$wanted_fds" 2>/dev/null || die "SUBSCRIBERS=$SUBSCRIBERS needs ulimit -n >= $wanted_fds (hard limit $(ulimit -Hn))"
fi

# ------------------------------------------------------------------ cleanup

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gqlgate-bench-subs.XXXXXX")
SERVER_PIDS=()
STATUS=1

source "$BENCH_DIR/common.sh"
install_cleanup

kib_of() { # pid field (VmRSS, VmHWM) -> KiB
    awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0
}

# ------------------------------------------------------------------ client and floor

"$CC" -O2 -o "$TMP/send-floor" "$BENCH_DIR/send-floor.c" -lpthread 2>"$TMP/send-floor.build.log" ||
    die "send-floor.c did not build: $(head -n 3 "$TMP/send-floor.build.log")"
if [[ $CLIENT == c ]]; then
    "$CC" -O2 -o "$TMP/subscribers" "$BENCH_DIR/subscribers.c" 2>"$TMP/subscribers.build.log" ||
        die "subscribers.c did not build: $(head -n 3 "$TMP/subscribers.build.log")"
    client=("$TMP/subscribers")
    CLIENT_DESC="scripts/bench/subscribers.c (one epoll thread)"
else
    client=("$PYTHON" "$BENCH_DIR/subscribers.py" --processes "$PROCESSES")
    CLIENT_DESC="scripts/bench/subscribers.py ($PROCESSES processes)"
fi

# ------------------------------------------------------------------ servers

read -r T_PORT G_PORT < <(free_ports 2)

"$PYTHON" "$BENCH_DIR/ticker-upstream.py" "$T_PORT" "$INTERVAL_MS" >"$TMP/ticker-upstream.log" 2>&1 &
T_PID=$!
SERVER_PIDS+=("$T_PID")
wait_http "ticker upstream (T)" "$T_PID" "http://127.0.0.1:$T_PORT/healthz"
log "T: ticker upstream, one event every $INTERVAL_MS ms, on 127.0.0.1:$T_PORT (pid $T_PID)"

G_VERSION=-
G_CMD=-
if [[ $TARGET == gqlgate ]]; then
    G_VERSION=$("$GQLGATE_BIN" --version 2>&1 | head -n 1)
    args=(run --listen "127.0.0.1:$G_PORT" --upstream "http://127.0.0.1:$T_PORT/graphql"
        --upstream-ws "ws://127.0.0.1:$T_PORT/graphql" --log-level error)
    # shellcheck disable=SC2206 # word splitting of GQLGATE_ARGS is intended
    [[ -n $GQLGATE_ARGS ]] && args+=($GQLGATE_ARGS)
    G_CMD="gqlgate ${args[*]}"
    "$GQLGATE_BIN" "${args[@]}" >"$TMP/gqlgate.log" 2>&1 &
    G_PID=$!
    SERVER_PIDS+=("$G_PID")
    wait_http "gqlgate (G)" "$G_PID" "http://127.0.0.1:$G_PORT/healthz"
    log "G: $G_VERSION on 127.0.0.1:$G_PORT (pid $G_PID): $G_CMD"
    URL=ws://127.0.0.1:$G_PORT/graphql
    RSS_IDLE=$(kib_of "$G_PID" VmRSS)
else
    URL=ws://127.0.0.1:$T_PORT/graphql
fi

# ------------------------------------------------------------------ run

log "measuring: $SUBSCRIBERS subscribers on $URL, $EVENTS events, client $CLIENT_DESC"
set +e
"${client[@]}" "$URL" --subscribers "$SUBSCRIBERS" --events "$EVENTS" \
    --timeout $((EVENTS * INTERVAL_MS / 1000 + 60)) >"$TMP/subscribers.out" 2>"$TMP/subscribers.log"
clients_rc=$?
set -e
head -n 20 "$TMP/subscribers.log" | while IFS= read -r l; do log "client: ${l#subscribers: }"; done
line=$(grep -m1 '^SUBS ' "$TMP/subscribers.out" || true)
client_cpu=$(sed -n 's/^subscribers: own CPU while measuring: //p' "$TMP/subscribers.log")
[[ -n $line ]] || die "no result from the client: $(tail -n 5 "$TMP/subscribers.log")"
((clients_rc == 0)) || log "warning: not every subscriber got every event: $line"

declare -A r
for kv in ${line#SUBS }; do r[${kv%%=*}]=${kv#*=}; done
((r[connected] > 0)) || die "no subscriber connected to $URL: $(grep -m3 'connection failed' "$TMP/subscribers.log")"

RSS_PEAK=-
if [[ $TARGET == gqlgate ]]; then
    kill -0 "$G_PID" 2>/dev/null || die "gqlgate died during the run"
    RSS_PEAK=$(kib_of "$G_PID" VmHWM)
fi

# ------------------------------------------------------------------ floor

for pid in "${SERVER_PIDS[@]}"; do stop_pid "$pid"; done
# Both ends of every socket are in send-floor's process: 2N + 8 open files.
FLOOR_SOCKETS=$(((${r[connected]} < ($(ulimit -Hn) - 8) / 2) ? ${r[connected]} : ($(ulimit -Hn) - 8) / 2))
FLOOR_BYTES=${FLOOR_BYTES:-${r[frame_bytes]:-100}}
log "floor: $FLOOR_SOCKETS sockets, $FLOOR_WRITERS writer(s), $FLOOR_BYTES-byte messages, $EVENTS rounds"
"$TMP/send-floor" "$FLOOR_SOCKETS" "$FLOOR_WRITERS" "$EVENTS" "$FLOOR_BYTES" >"$TMP/send-floor.out" 2>"$TMP/send-floor.log" ||
    die "send-floor failed: $(tail -n 3 "$TMP/send-floor.log")"
floor_line=$(grep -m1 '^FLOOR ' "$TMP/send-floor.out" || true)
[[ -n $floor_line ]] || die "no result from send-floor: $(tail -n 3 "$TMP/send-floor.out")"
declare -A f
for kv in ${floor_line#FLOOR }; do f[${kv%%=*}]=${kv#*=}; done

# ------------------------------------------------------------------ report

verdict() { # measured limit -> met/MISSED (measured < limit)
    awk -v m="$1" -v l="$2" 'BEGIN { print (m + 0 < l + 0) ? "met" : "MISSED" }'
}
verdict_at_most() { # measured limit -> met/MISSED (measured <= limit)
    awk -v m="$1" -v l="$2" 'BEGIN { print (m + 0 <= l + 0) ? "met" : "MISSED" }'
}
ratio() { # measured floor -> measured / floor, 2 decimals
    awk -v m="$1" -v f="$2" 'BEGIN { printf "%.2f", (f + 0 > 0) ? m / f : 0 }'
}
p50_ratio=$(ratio "${r[p50_ms]}" "${f[p50_ms]}")
p99_ratio=$(ratio "${r[p99_ms]}" "${f[p99_ms]}")
at=""
((SUBSCRIBERS == TARGET_SUBSCRIBERS)) || at=" (target is set at $TARGET_SUBSCRIBERS subscribers; this run used $SUBSCRIBERS)"
mkdir -p "$RESULTS_DIR"
{
    echo "# gqlgate subscription fan-out benchmark"
    echo
    echo "- **date**: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- **host**: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) CPUs, Linux $(uname -r)"
    echo "- **clients**: $SUBSCRIBERS graphql-transport-ws connections from $CLIENT_DESC, one subscription each, $EVENTS events every $INTERVAL_MS ms"
    [[ -n $client_cpu ]] && echo "- **client CPU while measuring**: $client_cpu"
    echo "- **target**: $TARGET ($URL)"
    echo "- **gqlgate**: $G_VERSION"
    echo "- **gqlgate command**: ${G_CMD//"$REPO_ROOT"\//}"
    echo
    echo "| subscribers | connected | deliveries | missing | p50 ms | p99 ms | max ms | gqlgate RSS idle | gqlgate RSS peak |"
    echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    idle=-
    peak=-
    [[ $TARGET == gqlgate ]] && idle="$((RSS_IDLE / 1024)) MiB" && peak="$((RSS_PEAK / 1024)) MiB"
    echo "| ${r[subscribers]} | ${r[connected]} | ${r[deliveries]} | ${r[missing]} | ${r[p50_ms]} | ${r[p99_ms]} | ${r[max_ms]} | $idle | $peak |"
    echo
    echo "Floor (\`scripts/bench/send-floor.c\`, after the servers stopped): one ${f[bytes]}-byte write(2) to each of ${f[sockets]} loopback sockets from ${f[writers]} thread(s), ${f[rounds]} rounds, latency from the first write:"
    echo
    echo "| floor p50 ms | floor p99 ms | floor max ms | p50 / floor p50 | p99 / floor p99 |"
    echo "| ---: | ---: | ---: | ---: | ---: |"
    echo "| ${f[p50_ms]} | ${f[p99_ms]} | ${f[max_ms]} | $p50_ratio | $p99_ratio |"
    echo
    if [[ $TARGET == gqlgate ]]; then
        echo "| target | measured | verdict |"
        echo "| --- | ---: | --- |"
        echo "| p99 <= $P99_FLOOR_RATIO_TARGET x the floor's p99$at | $p99_ratio x (${r[p99_ms]} / ${f[p99_ms]} ms) | $(verdict_at_most "$p99_ratio" "$P99_FLOOR_RATIO_TARGET") |"
        echo "| gqlgate peak RSS < $RSS_TARGET_MIB MiB$at | $((RSS_PEAK / 1024)) MiB | $(verdict "$((RSS_PEAK / 1024))" "$RSS_TARGET_MIB") |"
        echo "| every subscriber got every event | ${r[missing]} missing | $( ((r[missing] == 0)) && echo met || echo MISSED) |"
    else
        echo "Clients on the upstream directly: the floor of client and upstream cost, no targets judged."
    fi
    echo
} >"$RESULTS_DIR/subscriptions.md"
cat "$RESULTS_DIR/subscriptions.md"
log "wrote ${RESULTS_DIR#"$REPO_ROOT"/}/subscriptions.md"

STATUS=0
