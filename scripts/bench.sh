#!/usr/bin/env bash
# Benchmark gqlgate against nginx baselines on 127.0.0.1 (see docs/benchmarks.md).
#
#   U  nginx `return 200` with a fixed GraphQL answer: the fake upstream, and the
#      static-answer baseline for health checks
#   P  nginx `proxy_pass` to U through a kept-alive upstream pool
#   G  gqlgate in front of U
#
# Workloads, interleaved round by round: proxied query (P vs G, POST /graphql) and
# health (U GET /healthz vs G GET /healthz). Per run: wrk's requests, latency and
# errors, the server's instructions per request (perf stat, when the CPU exposes
# counters) and its CPU time per request (/proc).
#
# Environment:
#   GQLGATE_BIN   gqlgate binary (default .build/release/gqlgate); G rows are skipped if missing
#   GQLGATE_ARGS  extra arguments for `gqlgate run` (default none)
#   DURATION      wrk duration per run (default 10s)
#   CONNECTIONS   wrk connections (default 50)
#   THREADS       wrk threads (default 1)
#   ROUNDS        interleaved rounds (default 3)
#   WARMUP        unrecorded warm-up run per target before round 1 (default 2s, 0 to skip)
#   PERF          0 to skip perf even where it works (default 1)
#   PERF_EVENT    perf event counted per request (default instructions)
#   RESULTS_DIR   where latest.md and the raw data go (default bench-results)
#   KEEP_TMP      1 to keep the temp dir (configs, logs, raw wrk output)
#   NGINX, WRK    the nginx and wrk binaries (default from PATH)
#
# This is a benchmark, not a test: it exits 0 whether or not the targets are met,
# and non-zero only when it cannot run.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
BENCH_DIR=$SCRIPT_DIR/bench

if [[ -n "${GQLGATE_BIN:-}" ]]; then
    # A path given by the caller is relative to the caller's directory.
    case $GQLGATE_BIN in
        */*) GQLGATE_BIN=$(cd "$(dirname "$GQLGATE_BIN")" 2>/dev/null && pwd)/$(basename "$GQLGATE_BIN") || true ;;
        *) GQLGATE_BIN=$(command -v "$GQLGATE_BIN" || echo "$GQLGATE_BIN") ;;
    esac
else
    GQLGATE_BIN=$REPO_ROOT/.build/release/gqlgate
fi
GQLGATE_ARGS=${GQLGATE_ARGS:-}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-50}
THREADS=${THREADS:-1}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-2s}
PERF=${PERF:-1}
PERF_EVENT=${PERF_EVENT:-instructions}
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench-results}
KEEP_TMP=${KEEP_TMP:-0}
NGINX=${NGINX:-nginx}
WRK=${WRK:-wrk}
READY_TIMEOUT=${READY_TIMEOUT:-20}

log() { printf 'bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ------------------------------------------------------------------ preflight

[[ $CONNECTIONS =~ ^[0-9]+$ && $CONNECTIONS -gt 0 ]] || die "CONNECTIONS must be a positive integer"
[[ $THREADS =~ ^[0-9]+$ && $THREADS -gt 0 ]] || die "THREADS must be a positive integer"
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -gt 0 ]] || die "ROUNDS must be a positive integer"
((CONNECTIONS >= THREADS)) || die "CONNECTIONS must be >= THREADS"
[[ $DURATION =~ ^[0-9]+[smh]?$ ]] || die "DURATION must look like 10s, 1m or 30"
[[ $WARMUP =~ ^[0-9]+[smh]?$ ]] || die "WARMUP must look like 2s or 0"

missing=()
command -v "$NGINX" >/dev/null || missing+=("nginx (apt-get install nginx-light)")
command -v "$WRK" >/dev/null || missing+=("wrk (apt-get install wrk)")
command -v curl >/dev/null || missing+=("curl")
command -v python3 >/dev/null || missing+=("python3")
((${#missing[@]} == 0)) || die "missing: ${missing[*]}"

# ------------------------------------------------------------------ cleanup

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gqlgate-bench.XXXXXX")
SERVER_PIDS=()  # long-lived servers
RUN_PIDS=()     # wrk and perf of the current run
STATUS=1        # set to 0 at the very end

stop_pid() {
    local pid=$1 i
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    local rc=$? pid f
    trap - EXIT INT TERM
    for pid in "${RUN_PIDS[@]}" "${SERVER_PIDS[@]}"; do
        stop_pid "$pid"
    done
    if ((STATUS != 0 && rc != 130 && rc != 143)); then
        for f in "$TMP"/*.log "$TMP"/*.out; do
            [[ -s $f ]] || continue
            log "--- last lines of $(basename "$f")"
            tail -n 15 "$f" >&2 || true
        done
    fi
    if [[ $KEEP_TMP == 1 ]]; then
        log "kept $TMP"
    else
        rm -rf "$TMP"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

# ------------------------------------------------------------------ helpers

free_ports() {
    # Bind all at once so the ports are distinct, then release them for the servers.
    python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

# Paths nginx would otherwise create under /var/lib/nginx (not writable for every user).
extra_temp_paths() {
    local v m
    v=$("$NGINX" -V 2>&1)
    for m in fastcgi uwsgi scgi; do
        [[ $v == *"--without-http_${m}_module"* ]] || printf '    %s_temp_path %s/%s-%s;\n' "$m" "$TMP" "$1" "$m"
    done
}

render_conf() { # template output port [upstream_port]
    local tmpl=$1 out=$2 port=$3 upstream_port=${4:-} name extra
    name=$(basename "$out" .conf)
    extra=$(extra_temp_paths "$name")
    awk -v tmp="$TMP" -v port="$port" -v up="$upstream_port" -v extra="$extra" '
        /^@EXTRA_TEMP_PATHS@$/ { print extra; next }
        { gsub(/@TMP@/, tmp); gsub(/@UPSTREAM_PORT@/, up); gsub(/@PORT@/, port); print }
    ' "$tmpl" >"$out"
}

NGINX_E=()
"$NGINX" -h 2>&1 | grep -q -- '-e filename' && NGINX_E=(-e "$TMP/nginx-startup.log")

start_nginx() { # name conf -> sets LAST_PID
    local name=$1 conf=$2
    "$NGINX" -t -q "${NGINX_E[@]}" -p "$TMP" -c "$conf" >"$TMP/$name-check.log" 2>&1 ||
        die "nginx rejected $conf: $(cat "$TMP/$name-check.log")"
    "$NGINX" "${NGINX_E[@]}" -p "$TMP" -c "$conf" >"$TMP/$name.log" 2>&1 &
    LAST_PID=$!
    SERVER_PIDS+=("$LAST_PID")
}

wait_http() { # name pid url: poll until the server answers HTTP at all
    local name=$1 pid=$2 url=$3 code deadline
    deadline=$((SECONDS + READY_TIMEOUT))
    while :; do
        kill -0 "$pid" 2>/dev/null || die "$name exited during start-up"
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$url" 2>/dev/null || true)
        [[ -n $code && $code != 000 ]] && return 0
        ((SECONDS < deadline)) || die "$name did not answer $url within ${READY_TIMEOUT}s"
        sleep 0.05
    done
}

GRAPHQL_BODY='{"query":"query Hello { hello }","operationName":"Hello"}'

check_answer() { # label method url expect-substring
    local label=$1 method=$2 url=$3 expect=$4 out code body
    if [[ $method == POST ]]; then
        out=$(curl -s --max-time 5 -w '\n%{http_code}' -H 'Content-Type: application/json' --data "$GRAPHQL_BODY" "$url" || true)
    else
        out=$(curl -s --max-time 5 -w '\n%{http_code}' "$url" || true)
    fi
    code=${out##*$'\n'}
    body=${out%$'\n'*}
    if [[ $code == 200 && $body == *"$expect"* ]]; then
        log "ok: $label $method $url -> $code $body"
    else
        log "warning: $label $method $url -> HTTP $code, body: ${body:0:200} (expected 200 with $expect); runs will show errors"
    fi
}

cpu_ticks() { # pid...: user+system clock ticks of the processes (all threads)
    local pid total=0 t
    for pid in "$@"; do
        t=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }') || t=
        [[ -n $t ]] || { echo -; return; }
        total=$((total + t))
    done
    echo "$total"
}

RUNS_TSV=$TMP/runs.tsv
printf 'round\tworkload\tserver\trequests\tduration_us\tp50_us\tp99_us\tconnect\tread\twrite\tstatus\ttimeout\tfailed\tevents\tcpu_ticks\tclk_tck\n' >"$RUNS_TSV"
CLK_TCK=$(getconf CLK_TCK)

# run_wrk round workload server request-kind url duration pid...
# round 0 is a warm-up: nothing measured or recorded.
run_wrk() {
    local round=$1 workload=$2 server=$3 kind=$4 url=$5 duration=$6
    shift 6
    local pids=("$@") pid perf_pid= wrk_pid cpu0 cpu1 cpu events=- line failed=0 wrk_out="$TMP/wrk-$workload-$server-$round.out"
    local requests=0 duration_us=0 p50=0 p99=0 connect=0 read=0 write=0 status=0 timeout=0

    cpu0=$(cpu_ticks "${pids[@]}")
    if ((round > 0)) && [[ $PERF_OK == 1 ]]; then
        rm -f "$TMP/perf.out"
        perf stat -e "$PERF_EVENT" -x, -o "$TMP/perf.out" -p "$(IFS=,; echo "${pids[*]}")" >/dev/null 2>&1 &
        perf_pid=$!
        RUN_PIDS+=("$perf_pid")
    fi

    # In the background and waited for, so that Ctrl-C or SIGTERM reaches the traps at once
    # (bash defers traps while a foreground command runs, and wrk itself handles SIGINT).
    BENCH_REQUEST=$kind "$WRK" -t"$THREADS" -c"$CONNECTIONS" -d"$duration" --latency \
        -s "$BENCH_DIR/wrk.lua" "$url" >"$wrk_out" 2>&1 </dev/null &
    wrk_pid=$!
    RUN_PIDS+=("$wrk_pid")
    wait "$wrk_pid" || failed=1

    if [[ -n $perf_pid ]]; then
        kill -INT "$perf_pid" 2>/dev/null || true
        wait "$perf_pid" 2>/dev/null || true
        events=$(awk -F, '!/^#/ && NF > 2 { print ($1 ~ /^[0-9.]+$/) ? $1 : "-"; exit }' "$TMP/perf.out" 2>/dev/null)
        [[ -n $events ]] || events=-
    fi
    RUN_PIDS=()
    cpu1=$(cpu_ticks "${pids[@]}")
    if [[ $cpu0 == - || $cpu1 == - ]]; then cpu=-; else cpu=$((cpu1 - cpu0)); fi

    for pid in "${pids[@]}"; do
        kill -0 "$pid" 2>/dev/null || die "$server ($workload) server process $pid died during the run"
    done

    line=$(grep -m1 '^BENCH ' "$wrk_out" || true)
    if [[ -z $line ]]; then
        failed=1
        log "warning: no result line from wrk for $workload/$server:"
        tail -n 5 "$wrk_out" >&2
    else
        local kv
        for kv in ${line#BENCH }; do
            case ${kv%%=*} in
                requests) requests=${kv#*=} ;;
                duration_us) duration_us=${kv#*=} ;;
                p50_us) p50=${kv#*=} ;;
                p99_us) p99=${kv#*=} ;;
                connect) connect=${kv#*=} ;;
                read) read=${kv#*=} ;;
                write) write=${kv#*=} ;;
                status) status=${kv#*=} ;;
                timeout) timeout=${kv#*=} ;;
            esac
        done
    fi

    ((round > 0)) || return 0
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$round" "$workload" "$server" "$requests" "$duration_us" "$p50" "$p99" \
        "$connect" "$read" "$write" "$status" "$timeout" "$failed" "$events" "$cpu" "$CLK_TCK" >>"$RUNS_TSV"

    local rps=0 per=""
    ((duration_us > 0)) && rps=$((requests * 1000000 / duration_us))
    [[ $events != - && $requests -gt 0 ]] && per=", $(awk -v e="$events" -v r="$requests" 'BEGIN { v = e / r; if (v >= 1000) printf "%.1fk", v / 1000; else printf "%.3g", v }') $PERF_EVENT/req"
    log "$(printf 'round %d/%d  %-13s %-21s %7d req/s  p50 %s ms  p99 %s ms%s  errors %d' \
        "$round" "$ROUNDS" "$workload" "$(label "$server" "$workload")" "$rps" \
        "$(awk -v u="$p50" 'BEGIN { printf "%.2f", u / 1000 }')" \
        "$(awk -v u="$p99" 'BEGIN { printf "%.2f", u / 1000 }')" "$per" \
        $((connect + read + write + status + timeout + failed)))"
}

label() {
    case $1/$2 in
        P/*) echo "nginx proxy_pass (P)" ;;
        U/*) echo "nginx return 200 (U)" ;;
        G/health) echo "gqlgate /healthz (G)" ;;
        G/*) echo "gqlgate (G)" ;;
    esac
}

# ------------------------------------------------------------------ perf

PERF_OK=0
PERF_REASON=
PERF_NOTE=
if [[ $PERF != 1 ]]; then
    PERF_REASON="disabled with PERF=$PERF"
elif ! command -v perf >/dev/null; then
    PERF_REASON="perf not installed (apt-get install linux-perf)"
else
    probe=$(perf stat -e "$PERF_EVENT" -x, true 2>&1 || true)
    first=$(printf '%s\n' "$probe" | awk -F, '!/^#/ && NF > 2 { print $1; exit }')
    if [[ $first =~ ^[0-9.]+$ ]]; then
        PERF_OK=1
        paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')
        if [[ $(id -u) != 0 && $paranoid =~ ^[0-9]+$ && $paranoid -ge 2 ]]; then
            PERF_NOTE="perf_event_paranoid=$paranoid and not root: only user-space $PERF_EVENT are counted (the reference figures include the kernel); run as root or lower kernel.perf_event_paranoid to 1 for comparable numbers"
        fi
    elif [[ -n $first ]]; then
        PERF_REASON="perf stat -e $PERF_EVENT says $first on this machine (no hardware counters exposed, as in many VMs)"
    else
        PERF_REASON="perf stat -e $PERF_EVENT failed: $(printf '%s' "$probe" | head -n 1)"
    fi
fi
if ((PERF_OK)); then
    log "counting $PERF_EVENT with perf stat"
else
    log "not counting $PERF_EVENT: $PERF_REASON; the $PERF_EVENT/req column is skipped (CPU time per request is still measured)"
fi

# ------------------------------------------------------------------ servers

read -r U_PORT P_PORT G_PORT B_PORT < <(free_ports 4)

render_conf "$BENCH_DIR/upstream.conf.in" "$TMP/upstream.conf" "$U_PORT"
render_conf "$BENCH_DIR/proxy.conf.in" "$TMP/proxy.conf" "$P_PORT" "$U_PORT"

start_nginx upstream "$TMP/upstream.conf"
U_PID=$LAST_PID
start_nginx proxy "$TMP/proxy.conf"
P_PID=$LAST_PID
wait_http "upstream nginx (U)" "$U_PID" "http://127.0.0.1:$U_PORT/healthz"
wait_http "proxy nginx (P)" "$P_PID" "http://127.0.0.1:$P_PORT/graphql"
log "U: nginx return 200 on 127.0.0.1:$U_PORT (pid $U_PID)"
log "P: nginx proxy_pass on 127.0.0.1:$P_PORT (pid $P_PID)"

# B: the same libmicrohttpd + libcurl thread shape as gqlgate with none of its work,
# so gqlgate / B is what gqlgate's own code costs on this machine.
B_SKIP=
if ! cc -O2 -o "$TMP/bare-proxy" "$BENCH_DIR/bare-proxy.c" -lmicrohttpd -lcurl -lpthread 2>"$TMP/bare-proxy.build.log"; then
    B_SKIP="bare-proxy.c did not build: $(head -n 3 "$TMP/bare-proxy.build.log")"
    log "skipping bare proxy (B) rows: $B_SKIP"
else
    "$TMP/bare-proxy" "$B_PORT" "http://127.0.0.1:$U_PORT/graphql" >"$TMP/bare-proxy.log" 2>&1 &
    B_PID=$!
    SERVER_PIDS+=("$B_PID")
    wait_http "bare proxy (B)" "$B_PID" "http://127.0.0.1:$B_PORT/graphql"
    log "B: bare libmicrohttpd+libcurl proxy on 127.0.0.1:$B_PORT (pid $B_PID)"
fi
B_GRAPHQL=http://127.0.0.1:$B_PORT/graphql

U_GRAPHQL=http://127.0.0.1:$U_PORT/graphql
U_HEALTH=http://127.0.0.1:$U_PORT/healthz
P_GRAPHQL=http://127.0.0.1:$P_PORT/graphql
G_GRAPHQL=http://127.0.0.1:$G_PORT/graphql
G_HEALTH=http://127.0.0.1:$G_PORT/healthz

G_SKIP=
G_VERSION=
G_CMD=
if [[ ! -e $GQLGATE_BIN ]]; then
    G_SKIP="$GQLGATE_BIN not found (build it with: swift build -c release)"
elif [[ ! -x $GQLGATE_BIN ]]; then
    G_SKIP="$GQLGATE_BIN is not executable"
elif ! G_VERSION=$("$GQLGATE_BIN" --version 2>&1 | head -n 1) || [[ -z $G_VERSION ]]; then
    G_SKIP="$GQLGATE_BIN --version failed: $G_VERSION"
fi

G_SHOWN=${GQLGATE_BIN#"$REPO_ROOT"/}  # repo-relative in messages and reports
G_SKIP=${G_SKIP//"$GQLGATE_BIN"/"$G_SHOWN"}
if [[ -n $G_SKIP ]]; then
    log "skipping gqlgate (G) rows: $G_SKIP"
else
    G_ARGS=(run --listen "127.0.0.1:$G_PORT" --upstream "$U_GRAPHQL")
    if "$GQLGATE_BIN" run --help 2>&1 | grep -q -- '--log-level'; then
        G_ARGS+=(--log-level error)
    fi
    # shellcheck disable=SC2206 # word splitting of GQLGATE_ARGS is intended
    [[ -n $GQLGATE_ARGS ]] && G_ARGS+=($GQLGATE_ARGS)
    G_CMD="gqlgate ${G_ARGS[*]}"
    "$GQLGATE_BIN" "${G_ARGS[@]}" >"$TMP/gqlgate.log" 2>&1 &
    G_PID=$!
    SERVER_PIDS+=("$G_PID")
    wait_http "gqlgate (G)" "$G_PID" "$G_HEALTH"
    log "G: $G_VERSION on 127.0.0.1:$G_PORT (pid $G_PID): $G_CMD"
fi

check_answer "U" POST "$U_GRAPHQL" '"hello"'
check_answer "U" GET "$U_HEALTH" '"ok"'
check_answer "P" POST "$P_GRAPHQL" '"hello"'
[[ -z $B_SKIP ]] && check_answer "B" POST "$B_GRAPHQL" '"hello"'
if [[ -z $G_SKIP ]]; then
    check_answer "G" POST "$G_GRAPHQL" '"hello"'
    check_answer "G" GET "$G_HEALTH" ''
fi

# ------------------------------------------------------------------ runs

targets=("proxied P graphql $P_GRAPHQL $P_PID")
[[ -z $B_SKIP ]] && targets+=("proxied B graphql $B_GRAPHQL $B_PID")
[[ -z $G_SKIP ]] && targets+=("proxied G graphql $G_GRAPHQL $G_PID")
targets+=("health U get $U_HEALTH $U_PID")
[[ -z $G_SKIP ]] && targets+=("health G get $G_HEALTH $G_PID")

if [[ $WARMUP != 0 && $WARMUP != 0[smh] ]]; then
    log "warm-up: $WARMUP per target"
    for t in "${targets[@]}"; do
        read -r wl srv kind url pid <<<"$t"
        run_wrk 0 "$wl" "$srv" "$kind" "$url" "$WARMUP" "$pid"
    done
fi

log "measuring: $ROUNDS rounds x ${#targets[@]} runs of $DURATION, wrk -t$THREADS -c$CONNECTIONS"
for ((round = 1; round <= ROUNDS; round++)); do
    for t in "${targets[@]}"; do
        read -r wl srv kind url pid <<<"$t"
        run_wrk "$round" "$wl" "$srv" "$kind" "$url" "$DURATION" "$pid"
    done
done

# ------------------------------------------------------------------ report

META=$TMP/meta.txt
{
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)"
    echo "nproc=$(nproc 2>/dev/null || echo '?')"
    echo "kernel=$(uname -r)"
    echo "duration=$DURATION"
    echo "warmup=$WARMUP"
    echo "connections=$CONNECTIONS"
    echo "threads=$THREADS"
    echo "rounds=$ROUNDS"
    echo "nginx_version=$("$NGINX" -v 2>&1 | sed 's/^nginx version: //')"
    echo "wrk_version=$("$WRK" -v 2>&1 | head -n 1 | awk '{ print $2 }')"
    echo "gqlgate_version=$G_VERSION"
    echo "gqlgate_cmd=$G_CMD"
    echo "gqlgate_skipped=$G_SKIP"
    echo "perf_event=$PERF_EVENT"
    echo "perf_ok=$PERF_OK"
    echo "perf_reason=$PERF_REASON"
    echo "perf_note=$PERF_NOTE"
} >"$META"

mkdir -p "$RESULTS_DIR"
cp "$RUNS_TSV" "$RESULTS_DIR/latest-runs.tsv"
python3 "$BENCH_DIR/report.py" --runs "$RUNS_TSV" --meta "$META" --markdown "$RESULTS_DIR/latest.md"
log "wrote ${RESULTS_DIR#"$REPO_ROOT"/}/latest.md"

STATUS=0
