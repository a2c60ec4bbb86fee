#!/usr/bin/env bash
# Benchmark gqlgate against nginx baselines on 127.0.0.1 (see docs/benchmarks.md).
#
#   U  nginx `return 200` with a fixed GraphQL answer: the fake upstream, and the
#      static-answer baseline for health checks
#   P  nginx `proxy_pass` to U through a kept-alive upstream pool
#   B  bare libmicrohttpd+libcurl proxy in front of U (scripts/bench/bare-proxy.c)
#   Bl B in front of U's 8 MiB answer: like gqlgate, it takes the whole answer before sending it
#   C  nginx `proxy_cache` in front of U, POST answers cached by request body
#   M  bare libmicrohttpd answering one fixed answer from memory (scripts/bench/bare-answer.c):
#      the floor under any cache hit on gqlgate's server library
#   Mf M reading the request's header fields and answering with a gqlgate hit's (bare-answer.c
#      --hit-fields): what libmicrohttpd itself does for a hit's fields
#   S  a slow upstream that counts its requests (scripts/bench/slow-upstream.py)
#   G  gqlgate in front of U, dedupe off (so every request is proxied), retries on, no
#      credentials
#   Gb G with `retry: {max_attempts: 1}`: no retry stage, no credentials
#   Ga G with credentials (a static header and a token file) and the default retries
#   Gc gqlgate in front of U with the cache on
#   Gd gqlgate in front of S with the defaults (dedupe on, cache off)
#   Gz gqlgate with the cache on in front of U's 20 KiB answer (/graphql-big), compression
#      at its defaults (br, gzip)
#   Gl gqlgate with every default (cache off, so every request is proxied) in front of U's
#      8 MiB answer (/graphql-big8m)
#   Cz nginx `proxy_cache` with `gzip on` in front of the same 20 KiB answer
#   Pt P listening with TLS (a self-signed ECDSA P-256 certificate made by openssl here)
#   Gt G listening with TLS (`server.tls`, the same certificate)
#   Go, Gx, Gh  G with tracing on at sample_ratio 1.0, exporting to U's /v1/traces (an OTLP
#      receiver that takes every export), to a port nothing listens on, and to R
#   R  a receiver that reads each export and never answers (slow-upstream.py, 10 minutes)
#
# Workloads (WORKLOADS selects them), interleaved round by round:
#   proxied  POST /graphql to P, B, G: a proxied query
#   auth     POST /graphql to Gb and Ga: the cost of the credential and retry stages
#   health   GET /healthz on U and G
#   cache    the same POST to C, M and Gc: every answer a cache hit after the first
#   burst    the same POST to Gd from BURST_CONNECTIONS connections at once: upstream
#            requests per client request
#   compression  the same POST to Gz without Accept-Encoding, with `br` and with `gzip`
#            (every answer a cache hit), and with `gzip` to Cz: bytes per answer and CPU per hit
#   tls      the proxied POST to Pt and Gt over HTTPS (kept-alive connections)
#   tracing  the proxied POST to Go, Gx and Gh: what a receiver that is down or hangs does to
#            the requests (latency, throughput; spans dropped, from /metrics)
#   big      the POST answered with 8 MiB of JSON from one connection (BIG_CONNECTIONS): U
#            directly, P (nginx proxy_pass with its default buffering), Bl and Gl; the report
#            gives the p50 each proxy adds to U's
# Per run: wrk's requests, latency and errors, the server's instructions per request
# (perf stat, when the CPU exposes counters), its CPU time per request (/proc), and for
# burst the requests S received.
#
# Environment:
#   GQLGATE_BIN   gqlgate binary (default .build/release/gqlgate); G rows are skipped if missing
#   GQLGATE_ARGS  extra arguments for every `gqlgate run` (default none)
#   WORKLOADS     comma-separated workloads to run
#                 (default proxied,auth,health,cache,burst,compression,tls,tracing,big)
#   DURATION      wrk duration per run (default 10s)
#   CONNECTIONS   wrk connections (default 50)
#   BURST_CONNECTIONS  wrk connections of the burst workload (default 200)
#   BIG_CONNECTIONS    wrk connections of the big workload (default 1)
#   SLOW_MS       S's answer delay in milliseconds (default 50)
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
source "$BENCH_DIR/common.sh"

if [[ -n "${GQLGATE_BIN:-}" ]]; then
    # A path given by the caller is relative to the caller's directory.
    case $GQLGATE_BIN in
        */*) GQLGATE_BIN=$(cd "$(dirname "$GQLGATE_BIN")" 2>/dev/null && pwd | sed 's|/$||')/$(basename "$GQLGATE_BIN") || true ;;
        *) GQLGATE_BIN=$(command -v "$GQLGATE_BIN" || echo "$GQLGATE_BIN") ;;
    esac
else
    GQLGATE_BIN=$REPO_ROOT/.build/release/gqlgate
fi
GQLGATE_ARGS=${GQLGATE_ARGS:-}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-50}
BURST_CONNECTIONS=${BURST_CONNECTIONS:-200}
BIG_CONNECTIONS=${BIG_CONNECTIONS:-1}
SLOW_MS=${SLOW_MS:-50}
WORKLOADS=${WORKLOADS:-proxied,auth,health,cache,burst,compression,tls,tracing,big}
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
wants() { [[ ,$WORKLOADS, == *,"$1",* ]]; } # workload: selected by WORKLOADS?

# ------------------------------------------------------------------ preflight

[[ $CONNECTIONS =~ ^[0-9]+$ && $CONNECTIONS -gt 0 ]] || die "CONNECTIONS must be a positive integer"
[[ $SLOW_MS =~ ^[0-9]+$ && $SLOW_MS -gt 0 ]] || die "SLOW_MS must be a positive integer"
for w in ${WORKLOADS//,/ }; do
    case $w in
        proxied | auth | health | cache | burst | compression | tls | tracing | big) ;;
        *) die "WORKLOADS: unknown workload $w (known: proxied, auth, health, cache, burst, compression, tls, tracing, big)" ;;
    esac
done
[[ $THREADS =~ ^[0-9]+$ && $THREADS -gt 0 ]] || die "THREADS must be a positive integer"
[[ $ROUNDS =~ ^[0-9]+$ && $ROUNDS -gt 0 ]] || die "ROUNDS must be a positive integer"
((CONNECTIONS >= THREADS)) || die "CONNECTIONS must be >= THREADS"
[[ $BURST_CONNECTIONS =~ ^[0-9]+$ ]] && ((BURST_CONNECTIONS >= THREADS)) || die "BURST_CONNECTIONS must be an integer >= THREADS"
[[ $BIG_CONNECTIONS =~ ^[0-9]+$ ]] && ((BIG_CONNECTIONS >= THREADS)) || die "BIG_CONNECTIONS must be an integer >= THREADS"
[[ $DURATION =~ ^[0-9]+[smh]?$ ]] || die "DURATION must look like 10s, 1m or 30"
[[ $WARMUP =~ ^[0-9]+[smh]?$ ]] || die "WARMUP must look like 2s or 0"

missing=()
command -v "$NGINX" >/dev/null || missing+=("nginx (apt-get install nginx-light)")
command -v "$WRK" >/dev/null || missing+=("wrk (apt-get install wrk)")
command -v curl >/dev/null || missing+=("curl")
command -v python3 >/dev/null || missing+=("python3")
wants tls && ! command -v openssl >/dev/null && missing+=("openssl (for the tls workload's certificate)")
((${#missing[@]} == 0)) || die "missing: ${missing[*]}"

# ------------------------------------------------------------------ cleanup

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gqlgate-bench.XXXXXX")
SERVER_PIDS=()  # long-lived servers
RUN_PIDS=()     # wrk and perf of the current run
STATUS=1        # set to 0 at the very end

install_cleanup

# ------------------------------------------------------------------ helpers

GRAPHQL_BODY='{"query":"query Hello { hello }","operationName":"Hello"}'

check_answer() { # label method url expect-substring
    local label=$1 method=$2 url=$3 expect=$4 out code body
    if [[ $method == POST ]]; then
        out=$(curl -sk --max-time 5 -w '\n%{http_code}' -H 'Content-Type: application/json' --data "$GRAPHQL_BODY" "$url" || true)
    else
        out=$(curl -sk --max-time 5 -w '\n%{http_code}' "$url" || true)
    fi
    code=${out##*$'\n'}
    body=${out%$'\n'*}
    if [[ $code == 200 && $body == *"$expect"* ]]; then
        log "ok: $label $method $url -> $code $body"
    else
        log "warning: $label $method $url -> HTTP $code, body: ${body:0:200} (expected 200 with $expect); runs will show errors"
    fi
}

# check_cache_hit label url header: POST the query twice; the second answer must say HIT in header.
check_cache_hit() {
    local label=$1 url=$2 header=$3 value
    curl -s -o /dev/null --max-time 5 -H 'Content-Type: application/json' --data "$GRAPHQL_BODY" "$url" || true
    value=$(curl -s -o /dev/null -D - --max-time 5 -H 'Content-Type: application/json' --data "$GRAPHQL_BODY" "$url" |
        awk -v h="$header" -F': *' 'tolower($1) == tolower(h) { sub(/\r$/, "", $2); print $2; exit }' || true)
    if [[ $value == HIT ]]; then
        log "ok: $label POST $url twice -> $header: HIT"
    else
        log "warning: $label POST $url twice -> $header: ${value:-(none)}, expected HIT; the cache rows will not measure hits"
    fi
}

# check_big_answer label url: the POST must be answered 200 with huge-answer.json's bytes.
check_big_answer() {
    local label=$1 url=$2 code
    code=$(curl -s --max-time 10 -o "$TMP/check-big-$label.json" -w '%{http_code}' -H 'Content-Type: application/json' \
        --data "$GRAPHQL_BODY" "$url" || true)
    if [[ $code == 200 ]] && cmp -s "$TMP/check-big-$label.json" "$TMP/huge-answer.json"; then
        log "ok: $label POST $url -> $code, the 8 MiB answer byte for byte"
    else
        log "warning: $label POST $url -> HTTP $code, $(wc -c <"$TMP/check-big-$label.json" 2>/dev/null || echo 0) bytes, not the 8 MiB answer; runs will show errors"
    fi
    rm -f "$TMP/check-big-$label.json"
}

upstream_count() { # url of S's /count -> the number of POSTs S has received, or -
    curl -s --max-time 5 "$1" 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["requests"])' 2>/dev/null || echo -
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
printf 'round\tworkload\tserver\trequests\tduration_us\tp50_us\tp99_us\tconnect\tread\twrite\tstatus\ttimeout\tfailed\tevents\tcpu_ticks\tclk_tck\tupstream_requests\tbytes\n' >"$RUNS_TSV"
CLK_TCK=$(getconf CLK_TCK)

# run_wrk round workload server request-kind url duration connections counter-url pid...
# round 0 is a warm-up: nothing measured or recorded. request-kind is wrk.lua's
# BENCH_REQUEST, with `:coding` sent as Accept-Encoding (graphql:br). counter-url is S's
# /count (the upstream requests of the run are counted there) or -.
run_wrk() {
    local round=$1 workload=$2 server=$3 kind=$4 url=$5 duration=$6 connections=$7 counter=$8
    shift 8
    local pids=("$@") pid perf_pid= wrk_pid cpu0 cpu1 cpu events=- line failed=0 wrk_out="$TMP/wrk-$workload-$server-$round.out"
    local requests=0 duration_us=0 bytes=0 p50=0 p99=0 connect=0 read=0 write=0 status=0 timeout=0
    local coding=
    [[ $kind == *:* ]] && coding=${kind#*:} && kind=${kind%%:*}
    local upstream0=- upstream1=- upstream=-

    [[ $counter != - ]] && upstream0=$(upstream_count "$counter")
    cpu0=$(cpu_ticks "${pids[@]}")
    if ((round > 0)) && [[ $PERF_OK == 1 ]]; then
        rm -f "$TMP/perf.out"
        perf stat -e "$PERF_EVENT" -x, -o "$TMP/perf.out" -p "$(IFS=,; echo "${pids[*]}")" >/dev/null 2>&1 &
        perf_pid=$!
        RUN_PIDS+=("$perf_pid")
    fi

    # In the background and waited for, so that Ctrl-C or SIGTERM reaches the traps at once
    # (bash defers traps while a foreground command runs, and wrk itself handles SIGINT).
    BENCH_REQUEST=$kind BENCH_ACCEPT_ENCODING=$coding "$WRK" -t"$THREADS" -c"$connections" -d"$duration" --latency \
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
    [[ $counter != - ]] && upstream1=$(upstream_count "$counter")
    [[ $upstream0 != - && $upstream1 != - ]] && upstream=$((upstream1 - upstream0))

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
                bytes) bytes=${kv#*=} ;;
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
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$round" "$workload" "$server" "$requests" "$duration_us" "$p50" "$p99" \
        "$connect" "$read" "$write" "$status" "$timeout" "$failed" "$events" "$cpu" "$CLK_TCK" "$upstream" "$bytes" >>"$RUNS_TSV"

    local rps=0 per=""
    ((duration_us > 0)) && rps=$((requests * 1000000 / duration_us))
    [[ $events != - && $requests -gt 0 ]] && per=", $(awk -v e="$events" -v r="$requests" 'BEGIN { v = e / r; if (v >= 1000) printf "%.1fk", v / 1000; else printf "%.3g", v }') $PERF_EVENT/req"
    [[ $cpu != - && $requests -gt 0 ]] && per+=", $(awk -v t="$cpu" -v c="$CLK_TCK" -v r="$requests" 'BEGIN { printf "%.1f", t / c * 1e6 / r }') cpu us/req"
    [[ ($workload == compression || $workload == big) && $requests -gt 0 ]] && per+=", $((bytes / requests)) bytes/answer"
    [[ $upstream != - && $requests -gt 0 ]] && per+=", $(awk -v u="$upstream" -v r="$requests" 'BEGIN { printf "%.4f", u / r }') upstream/req"
    log "$(printf 'round %d/%d  %-9s %-30s %7d req/s  p50 %s ms  p99 %s ms%s  errors %d' \
        "$round" "$ROUNDS" "$workload" "$(label "$server" "$workload")" "$rps" \
        "$(awk -v u="$p50" 'BEGIN { printf "%.2f", u / 1000 }')" \
        "$(awk -v u="$p99" 'BEGIN { printf "%.2f", u / 1000 }')" "$per" \
        $((connect + read + write + status + timeout + failed)))"
}

label() {
    case $1/$2 in
        U/big) echo "8 MiB, direct to nginx (U)" ;;
        P/big) echo "8 MiB, nginx proxy_pass (P)" ;;
        Gl/*) echo "8 MiB, gqlgate (Gl)" ;;
        Bl/*) echo "8 MiB, bare MHD+curl proxy (Bl)" ;;
        P/*) echo "nginx proxy_pass (P)" ;;
        B/*) echo "bare MHD+curl proxy (B)" ;;
        U/*) echo "nginx return 200 (U)" ;;
        C/*) echo "nginx proxy_cache (C)" ;;
        M/*) echo "bare MHD answer (M)" ;;
        Mf/*) echo "bare MHD answer, a hit's fields (Mf)" ;;
        G/health) echo "gqlgate /healthz (G)" ;;
        G/*) echo "gqlgate (G)" ;;
        Gb/*) echo "gqlgate no auth, no retry (Gb)" ;;
        Ga/*) echo "gqlgate auth + retry (Ga)" ;;
        Gc/*) echo "gqlgate cache (Gc)" ;;
        Gd/*) echo "gqlgate dedupe, slow upstream (Gd)" ;;
        Gz/*) echo "gqlgate cache, 20 KiB, identity (Gz)" ;;
        Gzb/*) echo "gqlgate cache, 20 KiB, br (Gzb)" ;;
        Gzg/*) echo "gqlgate cache, 20 KiB, gzip (Gzg)" ;;
        Cz/*) echo "nginx proxy_cache + gzip, 20 KiB (Cz)" ;;
        Pt/*) echo "nginx proxy_pass, TLS (Pt)" ;;
        Gt/*) echo "gqlgate, TLS (Gt)" ;;
        Go/*) echo "gqlgate tracing, receiver up (Go)" ;;
        Gx/*) echo "gqlgate tracing, receiver down (Gx)" ;;
        Gh/*) echo "gqlgate tracing, receiver hangs (Gh)" ;;
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

LOADAVG_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

# ------------------------------------------------------------------ servers

read -r U_PORT P_PORT B_PORT C_PORT M_PORT S_PORT G_PORT GB_PORT GA_PORT GC_PORT GD_PORT GZ_PORT PT_PORT GT_PORT \
    GO_PORT GX_PORT GH_PORT R_PORT DOWN_PORT GL_PORT BL_PORT MF_PORT < <(free_ports 22)

U_GRAPHQL=http://127.0.0.1:$U_PORT/graphql
U_GRAPHQL_AUTH=http://127.0.0.1:$U_PORT/graphql-auth
U_HEALTH=http://127.0.0.1:$U_PORT/healthz
P_GRAPHQL=http://127.0.0.1:$P_PORT/graphql
B_GRAPHQL=http://127.0.0.1:$B_PORT/graphql
C_GRAPHQL=http://127.0.0.1:$C_PORT/graphql
M_GRAPHQL=http://127.0.0.1:$M_PORT/graphql
MF_GRAPHQL=http://127.0.0.1:$MF_PORT/graphql
S_GRAPHQL=http://127.0.0.1:$S_PORT/graphql
S_COUNT=http://127.0.0.1:$S_PORT/count
G_GRAPHQL=http://127.0.0.1:$G_PORT/graphql
G_HEALTH=http://127.0.0.1:$G_PORT/healthz
GB_GRAPHQL=http://127.0.0.1:$GB_PORT/graphql
GA_GRAPHQL=http://127.0.0.1:$GA_PORT/graphql
GC_GRAPHQL=http://127.0.0.1:$GC_PORT/graphql
GD_GRAPHQL=http://127.0.0.1:$GD_PORT/graphql
U_GRAPHQL_BIG=http://127.0.0.1:$U_PORT/graphql-big
CZ_GRAPHQL=http://127.0.0.1:$C_PORT/graphql-big
GZ_GRAPHQL=http://127.0.0.1:$GZ_PORT/graphql
PT_GRAPHQL=https://127.0.0.1:$PT_PORT/graphql
GT_GRAPHQL=https://127.0.0.1:$GT_PORT/graphql
GO_GRAPHQL=http://127.0.0.1:$GO_PORT/graphql
GX_GRAPHQL=http://127.0.0.1:$GX_PORT/graphql
GH_GRAPHQL=http://127.0.0.1:$GH_PORT/graphql
R_COUNT=http://127.0.0.1:$R_PORT/count
U_GRAPHQL_BIG8M=http://127.0.0.1:$U_PORT/graphql-big8m
P_GRAPHQL_BIG8M=http://127.0.0.1:$P_PORT/graphql-big8m  # P's `location /graphql` takes it
GL_GRAPHQL=http://127.0.0.1:$GL_PORT/graphql
BL_GRAPHQL=http://127.0.0.1:$BL_PORT/graphql

write_big_answer "$TMP"
wants big && write_huge_answer "$TMP"
render_conf "$BENCH_DIR/upstream.conf.in" "$TMP/upstream.conf" "$U_PORT"
start_nginx upstream "$TMP/upstream.conf"
U_PID=$LAST_PID
wait_http "upstream nginx (U)" "$U_PID" "$U_HEALTH"
log "U: nginx return 200 on 127.0.0.1:$U_PORT (pid $U_PID)"

if wants proxied || wants big; then
    render_conf "$BENCH_DIR/proxy.conf.in" "$TMP/proxy.conf" "$P_PORT" "$U_PORT"
    start_nginx proxy "$TMP/proxy.conf"
    P_PID=$LAST_PID
    wait_http "proxy nginx (P)" "$P_PID" "$P_GRAPHQL"
    log "P: nginx proxy_pass on 127.0.0.1:$P_PORT (pid $P_PID)"
fi

# B: the same libmicrohttpd + libcurl thread shape as gqlgate with none of its work,
# so gqlgate / B is what gqlgate's own code costs on this machine. Bl: the same program in
# front of the 8 MiB answer, which it too takes whole before answering.
B_SKIP=
BL_SKIP=
wants proxied || B_SKIP="proxied not in WORKLOADS"
wants big || BL_SKIP="big not in WORKLOADS"
if [[ -z $B_SKIP || -z $BL_SKIP ]] &&
    ! cc -O2 -o "$TMP/bare-proxy" "$BENCH_DIR/bare-proxy.c" -lmicrohttpd -lcurl -lpthread 2>"$TMP/bare-proxy.build.log"; then
    B_SKIP="bare-proxy.c did not build: $(head -n 3 "$TMP/bare-proxy.build.log")"
    BL_SKIP=$B_SKIP
    log "skipping bare proxy (B, Bl) rows: $B_SKIP"
fi
# start_bare_proxy name port upstream-url url what -> sets LAST_PID
start_bare_proxy() {
    "$TMP/bare-proxy" "$2" "$3" >"$TMP/bare-proxy-$1.log" 2>&1 &
    LAST_PID=$!
    SERVER_PIDS+=("$LAST_PID")
    wait_http "bare proxy ($1)" "$LAST_PID" "$4"
    log "$1: bare libmicrohttpd+libcurl proxy$5 on 127.0.0.1:$2 (pid $LAST_PID)"
}
if [[ -z $B_SKIP ]]; then
    start_bare_proxy B "$B_PORT" "$U_GRAPHQL" "$B_GRAPHQL" ""
    B_PID=$LAST_PID
fi
if [[ -z $BL_SKIP ]]; then
    start_bare_proxy Bl "$BL_PORT" "$U_GRAPHQL_BIG8M" "$BL_GRAPHQL" " in front of the 8 MiB answer"
    BL_PID=$LAST_PID
fi

# The tls workload's certificate: ECDSA P-256, self-signed for 127.0.0.1 (wrk and curl do not verify it).
if wants tls; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 -keyout "$TMP/tls-key.pem" -out "$TMP/tls-cert.pem" \
        >"$TMP/openssl.log" 2>&1 || die "openssl could not make the tls workload's certificate: $(cat "$TMP/openssl.log")"
    render_conf "$BENCH_DIR/proxy-tls.conf.in" "$TMP/proxy-tls.conf" "$PT_PORT" "$U_PORT"
    start_nginx proxy-tls "$TMP/proxy-tls.conf"
    PT_PID=$LAST_PID
    wait_http "proxy nginx with TLS (Pt)" "$PT_PID" "$PT_GRAPHQL"
    log "Pt: nginx proxy_pass with TLS on 127.0.0.1:$PT_PORT (pid $PT_PID)"
fi

if wants cache || wants compression; then
    render_conf "$BENCH_DIR/cache.conf.in" "$TMP/cache.conf" "$C_PORT" "$U_PORT"
    start_nginx cache "$TMP/cache.conf"
    C_PID=$LAST_PID
    wait_http "proxy_cache nginx (C)" "$C_PID" "$C_GRAPHQL"
    log "C: nginx proxy_cache on 127.0.0.1:$C_PORT (pid $C_PID)"
fi

# M: libmicrohttpd answering from memory with none of a cache's work, so gqlgate cache / M is
# what gqlgate's cache path costs and M / C how far libmicrohttpd itself is from nginx.
M_SKIP=
if ! wants cache; then
    M_SKIP="cache not in WORKLOADS"
elif ! cc -O2 -o "$TMP/bare-answer" "$BENCH_DIR/bare-answer.c" -lmicrohttpd 2>"$TMP/bare-answer.build.log"; then
    M_SKIP="bare-answer.c did not build: $(head -n 3 "$TMP/bare-answer.build.log")"
    log "skipping bare answer (M) rows: $M_SKIP"
else
    "$TMP/bare-answer" "$M_PORT" >"$TMP/bare-answer.log" 2>&1 &
    M_PID=$!
    SERVER_PIDS+=("$M_PID")
    wait_http "bare answer (M)" "$M_PID" "$M_GRAPHQL"
    log "M: bare libmicrohttpd answer from memory on 127.0.0.1:$M_PORT (pid $M_PID)"
    # Mf: M reading the request's fields and answering with a hit's (bare-answer.c, --hit-fields).
    "$TMP/bare-answer" --hit-fields "$MF_PORT" >"$TMP/bare-answer-fields.log" 2>&1 &
    MF_PID=$!
    SERVER_PIDS+=("$MF_PID")
    wait_http "bare answer with a hit's fields (Mf)" "$MF_PID" "$MF_GRAPHQL"
    log "Mf: the same with a hit's header fields on 127.0.0.1:$MF_PORT (pid $MF_PID)"
fi

if wants burst; then
    python3 "$BENCH_DIR/slow-upstream.py" "$S_PORT" "$SLOW_MS" >"$TMP/slow-upstream.log" 2>&1 &
    S_PID=$!
    SERVER_PIDS+=("$S_PID")
    wait_http "slow upstream (S)" "$S_PID" "$S_COUNT"
    log "S: slow upstream answering after $SLOW_MS ms on 127.0.0.1:$S_PORT (pid $S_PID)"
fi

# R: takes each export's request and never answers (an answer after 10 minutes).
if wants tracing; then
    python3 "$BENCH_DIR/slow-upstream.py" "$R_PORT" 600000 >"$TMP/hanging-receiver.log" 2>&1 &
    R_PID=$!
    SERVER_PIDS+=("$R_PID")
    wait_http "hanging receiver (R)" "$R_PID" "$R_COUNT"
    log "R: a receiver that never answers on 127.0.0.1:$R_PORT (pid $R_PID)"
fi

G_SKIP=
G_VERSION=
if [[ ! -e $GQLGATE_BIN ]]; then
    G_SKIP="$GQLGATE_BIN not found (build it with: swift build -c release)"
elif [[ ! -x $GQLGATE_BIN ]]; then
    G_SKIP="$GQLGATE_BIN is not executable"
elif ! G_VERSION=$("$GQLGATE_BIN" --version 2>&1 | head -n 1) || [[ -z $G_VERSION ]]; then
    G_SKIP="$GQLGATE_BIN --version failed: $G_VERSION"
fi

G_SHOWN=${GQLGATE_BIN#"$REPO_ROOT"/}  # repo-relative in messages and reports
G_SKIP=${G_SKIP//"$GQLGATE_BIN"/"$G_SHOWN"}
[[ -n $G_SKIP ]] && log "skipping gqlgate (G) rows: $G_SKIP"

# The configurations of the gqlgate variants (YAML, for --config): G's is G_PROXIED_CONFIG
# (common.sh, dedupe off so that every request is proxied); the other proxied rows turn
# dedupe off too. APQ keeps its default (on) everywhere; Gd keeps every default.
G_CONFIG=$G_PROXIED_CONFIG
GB_CONFIG='{dedupe: {enabled: false}, retry: {max_attempts: 1}}'
GT_CONFIG='{dedupe: {enabled: false}, server: {tls: {cert_file: @TMP@/tls-cert.pem, key_file: @TMP@/tls-key.pem}}}'
# tracing_config receiver-url: G's configuration with every request's spans exported there.
tracing_config() { echo "{dedupe: {enabled: false}, tracing: {enabled: true, sample_ratio: 1.0, endpoint: '$1'}}"; }
GA_CONFIG='{dedupe: {enabled: false}, auth: {headers: {X-Api-Key: bench-key}, bearer_token_file: @TMP@/bench-token}}'
printf 'bench-token\n' >"$TMP/bench-token"

G_CMDS=()  # one "name: command" line per gqlgate started, for the report

# start_gqlgate name port upstream-url config-yaml -> sets LAST_PID (config-yaml empty: none)
start_gqlgate() {
    local name=$1 port=$2 upstream=$3 config=$4 args shown
    args=(run --listen "127.0.0.1:$port" --upstream "$upstream")
    if [[ -n $config ]]; then
        printf '%s\n' "${config//@TMP@/$TMP}" >"$TMP/gqlgate-$name.yaml"
        args+=(--config "$TMP/gqlgate-$name.yaml")
    fi
    if "$GQLGATE_BIN" run --help 2>&1 | grep -q -- '--log-level'; then
        args+=(--log-level error)
    fi
    # shellcheck disable=SC2206 # word splitting of GQLGATE_ARGS is intended
    [[ -n $GQLGATE_ARGS ]] && args+=($GQLGATE_ARGS)
    "$GQLGATE_BIN" "${args[@]}" >"$TMP/gqlgate-$name.log" 2>&1 &
    LAST_PID=$!
    SERVER_PIDS+=("$LAST_PID")
    wait_http "gqlgate ($name)" "$LAST_PID" "$(if [[ $config == *tls:* ]]; then echo https; else echo http; fi)://127.0.0.1:$port/healthz"
    shown="gqlgate ${args[*]}"
    shown=${shown//"$TMP"/<tmp>}
    [[ -n $config ]] && shown+=" (config: $config)"
    G_CMDS+=("$name: ${shown//@TMP@/<tmp>}")
    log "$name: $G_VERSION on 127.0.0.1:$port (pid $LAST_PID): ${G_CMDS[-1]#*: }"
}

if [[ -z $G_SKIP ]]; then
    if wants proxied || wants health; then
        start_gqlgate G "$G_PORT" "$U_GRAPHQL" "$G_CONFIG"
        G_PID=$LAST_PID
    fi
    if wants auth; then
        start_gqlgate Gb "$GB_PORT" "$U_GRAPHQL" "$GB_CONFIG"
        GB_PID=$LAST_PID
        start_gqlgate Ga "$GA_PORT" "$U_GRAPHQL_AUTH" "$GA_CONFIG"
        GA_PID=$LAST_PID
    fi
    if wants cache; then
        start_gqlgate Gc "$GC_PORT" "$U_GRAPHQL" "$GC_CONFIG"
        GC_PID=$LAST_PID
    fi
    if wants compression; then
        start_gqlgate Gz "$GZ_PORT" "$U_GRAPHQL_BIG" "$GC_CONFIG"
        GZ_PID=$LAST_PID
    fi
    if wants tls; then
        start_gqlgate Gt "$GT_PORT" "$U_GRAPHQL" "$GT_CONFIG"
        GT_PID=$LAST_PID
    fi
    if wants tracing; then
        start_gqlgate Go "$GO_PORT" "$U_GRAPHQL" "$(tracing_config "http://127.0.0.1:$U_PORT/v1/traces")"
        GO_PID=$LAST_PID
        start_gqlgate Gx "$GX_PORT" "$U_GRAPHQL" "$(tracing_config "http://127.0.0.1:$DOWN_PORT/v1/traces")"
        GX_PID=$LAST_PID
        start_gqlgate Gh "$GH_PORT" "$U_GRAPHQL" "$(tracing_config "http://127.0.0.1:$R_PORT/v1/traces")"
        GH_PID=$LAST_PID
    fi
    if wants burst; then
        start_gqlgate Gd "$GD_PORT" "$S_GRAPHQL" ""
        GD_PID=$LAST_PID
    fi
    # Every default: the cache is off, so every request is proxied; upstream.max_response_bytes
    # (64MiB by default) takes the 8 MiB answer.
    if wants big; then
        start_gqlgate Gl "$GL_PORT" "$U_GRAPHQL_BIG8M" ""
        GL_PID=$LAST_PID
    fi
fi

check_answer "U" POST "$U_GRAPHQL" '"hello"'
check_answer "U" GET "$U_HEALTH" '"ok"'
if wants proxied; then
    check_answer "P" POST "$P_GRAPHQL" '"hello"'
    [[ -z $B_SKIP ]] && check_answer "B" POST "$B_GRAPHQL" '"hello"'
fi
if wants big; then
    check_big_answer "U" "$U_GRAPHQL_BIG8M"
    check_big_answer "P" "$P_GRAPHQL_BIG8M"
    [[ -z $BL_SKIP ]] && check_big_answer "Bl" "$BL_GRAPHQL"
    [[ -z $G_SKIP ]] && check_big_answer "Gl" "$GL_GRAPHQL"
fi
if wants cache; then
    check_cache_hit "C" "$C_GRAPHQL" X-Cache-Status
    [[ -z $M_SKIP ]] && check_answer "M" POST "$M_GRAPHQL" '"hello"'
    [[ -z $M_SKIP ]] && check_answer "Mf" POST "$MF_GRAPHQL" '"hello"'
fi
wants burst && check_answer "S" POST "$S_GRAPHQL" '"hello"'
wants tls && check_answer "Pt" POST "$PT_GRAPHQL" '"hello"'
wants compression && check_cache_hit "Cz" "$CZ_GRAPHQL" X-Cache-Status
if [[ -z $G_SKIP ]]; then
    if wants proxied || wants health; then
        check_answer "G" POST "$G_GRAPHQL" '"hello"'
        check_answer "G" GET "$G_HEALTH" ''
    fi
    if wants auth; then
        check_answer "Gb" POST "$GB_GRAPHQL" '"hello"'
        # U's /graphql-auth answers 401 unless both credentials arrive.
        check_answer "Ga" POST "$GA_GRAPHQL" '"hello"'
    fi
    wants cache && check_cache_hit "Gc" "$GC_GRAPHQL" X-Cache
    wants burst && check_answer "Gd" POST "$GD_GRAPHQL" '"hello"'
    wants compression && check_cache_hit "Gz" "$GZ_GRAPHQL" X-Cache
    wants tls && check_answer "Gt" POST "$GT_GRAPHQL" '"hello"'
    if wants tracing; then
        check_answer "Go" POST "$GO_GRAPHQL" '"hello"'
        check_answer "Gx" POST "$GX_GRAPHQL" '"hello"'
        check_answer "Gh" POST "$GH_GRAPHQL" '"hello"'
    fi
fi

# ------------------------------------------------------------------ runs

# workload server request-kind url connections counter-url pid
targets=()
if wants proxied; then
    targets+=("proxied P graphql $P_GRAPHQL $CONNECTIONS - $P_PID")
    [[ -z $B_SKIP ]] && targets+=("proxied B graphql $B_GRAPHQL $CONNECTIONS - $B_PID")
    [[ -z $G_SKIP ]] && targets+=("proxied G graphql $G_GRAPHQL $CONNECTIONS - $G_PID")
fi
if wants auth && [[ -z $G_SKIP ]]; then
    targets+=("proxied Gb graphql $GB_GRAPHQL $CONNECTIONS - $GB_PID")
    targets+=("proxied Ga graphql $GA_GRAPHQL $CONNECTIONS - $GA_PID")
fi
if wants health; then
    targets+=("health U get $U_HEALTH $CONNECTIONS - $U_PID")
    [[ -z $G_SKIP ]] && targets+=("health G get $G_HEALTH $CONNECTIONS - $G_PID")
fi
if wants cache; then
    targets+=("cache C graphql $C_GRAPHQL $CONNECTIONS - $C_PID")
    [[ -z $M_SKIP ]] && targets+=("cache M graphql $M_GRAPHQL $CONNECTIONS - $M_PID")
    [[ -z $M_SKIP ]] && targets+=("cache Mf graphql $MF_GRAPHQL $CONNECTIONS - $MF_PID")
    [[ -z $G_SKIP ]] && targets+=("cache Gc graphql $GC_GRAPHQL $CONNECTIONS - $GC_PID")
fi
if wants compression; then
    targets+=("compression Cz graphql:gzip $CZ_GRAPHQL $CONNECTIONS - $C_PID")
    if [[ -z $G_SKIP ]]; then
        targets+=("compression Gz graphql $GZ_GRAPHQL $CONNECTIONS - $GZ_PID")
        targets+=("compression Gzb graphql:br $GZ_GRAPHQL $CONNECTIONS - $GZ_PID")
        targets+=("compression Gzg graphql:gzip $GZ_GRAPHQL $CONNECTIONS - $GZ_PID")
    fi
fi
if wants tls; then
    targets+=("tls Pt graphql $PT_GRAPHQL $CONNECTIONS - $PT_PID")
    [[ -z $G_SKIP ]] && targets+=("tls Gt graphql $GT_GRAPHQL $CONNECTIONS - $GT_PID")
fi
if wants tracing && [[ -z $G_SKIP ]]; then
    targets+=("tracing Go graphql $GO_GRAPHQL $CONNECTIONS - $GO_PID")
    targets+=("tracing Gx graphql $GX_GRAPHQL $CONNECTIONS - $GX_PID")
    targets+=("tracing Gh graphql $GH_GRAPHQL $CONNECTIONS - $GH_PID")
fi
if wants burst && [[ -z $G_SKIP ]]; then
    targets+=("burst Gd graphql $GD_GRAPHQL $BURST_CONNECTIONS $S_COUNT $GD_PID")
fi
if wants big; then
    targets+=("big U graphql $U_GRAPHQL_BIG8M $BIG_CONNECTIONS - $U_PID")
    targets+=("big P graphql $P_GRAPHQL_BIG8M $BIG_CONNECTIONS - $P_PID")
    [[ -z $BL_SKIP ]] && targets+=("big Bl graphql $BL_GRAPHQL $BIG_CONNECTIONS - $BL_PID")
    [[ -z $G_SKIP ]] && targets+=("big Gl graphql $GL_GRAPHQL $BIG_CONNECTIONS - $GL_PID")
fi
((${#targets[@]} > 0)) || die "nothing to run: WORKLOADS=$WORKLOADS needs gqlgate, which was skipped"

if [[ $WARMUP != 0 && $WARMUP != 0[smh] ]]; then
    log "warm-up: $WARMUP per target"
    for t in "${targets[@]}"; do
        read -r wl srv kind url conns counter pid <<<"$t"
        run_wrk 0 "$wl" "$srv" "$kind" "$url" "$WARMUP" "$conns" "$counter" "$pid"
    done
fi

log "measuring: $ROUNDS rounds x ${#targets[@]} runs of $DURATION, wrk -t$THREADS -c$CONNECTIONS (burst -c$BURST_CONNECTIONS, big -c$BIG_CONNECTIONS)"
# Each round starts one target further on, so that no server is always measured last in a
# round: this VM's speed drifts within a round, which would otherwise favour whoever runs first.
for ((round = 1; round <= ROUNDS; round++)); do
    for ((i = 0; i < ${#targets[@]}; i++)); do
        read -r wl srv kind url conns counter pid <<<"${targets[(i + round - 1) % ${#targets[@]}]}"
        run_wrk "$round" "$wl" "$srv" "$kind" "$url" "$DURATION" "$conns" "$counter" "$pid"
    done
done

# From each gqlgate's /metrics over its whole life (checks and warm-up included): upstream
# requests per client request (1 where every request is proxied, near 0 for cache hits),
# and the retries made (an upstream that never fails should see none).
metric_sum() { # metrics-url metric-name -> sum over its series, or -
    curl -s --max-time 5 "$1" 2>/dev/null | awk -v m="$2" '$1 == m || index($1, m "{") == 1 { s += $NF; n++ } END { if (n) printf "%d", s; else print "-" }'
}
UPSTREAM_SHARES=()
if [[ -z $G_SKIP ]]; then
    for g in "G $G_PORT proxied" "Gb $GB_PORT auth" "Ga $GA_PORT auth" "Gc $GC_PORT cache" "Gz $GZ_PORT compression" "Gl $GL_PORT big"; do
        read -r name port workload <<<"$g"
        if [[ $name == G ]]; then wants proxied || continue; else wants "$workload" || continue; fi
        metrics=http://127.0.0.1:$port/metrics
        upstream=$(metric_sum "$metrics" gqlgate_upstream_requests_total)
        requests=$(metric_sum "$metrics" gqlgate_requests_total)
        retries=$(metric_sum "$metrics" gqlgate_retries_total)
        share=$(awk -v u="$upstream" -v r="$requests" 'BEGIN { if (r > 0 && u != "-") printf "%.3f", u / r; else print "-" }')
        UPSTREAM_SHARES+=("$name: $upstream upstream requests for $requests requests ($share), $retries retries")
        log "${UPSTREAM_SHARES[-1]}"
    done
    if wants tracing; then
        for g in "Go $GO_PORT" "Gx $GX_PORT" "Gh $GH_PORT"; do
            read -r name port <<<"$g"
            requests=$(metric_sum "http://127.0.0.1:$port/metrics" gqlgate_requests_total)
            dropped=$(metric_sum "http://127.0.0.1:$port/metrics" gqlgate_spans_dropped_total)
            UPSTREAM_SHARES+=("$name: $dropped spans dropped for $requests requests (two spans a request)")
            log "${UPSTREAM_SHARES[-1]}"
        done
    fi
fi

# ------------------------------------------------------------------ report

META=$TMP/meta.txt
{
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)"
    echo "nproc=$(nproc 2>/dev/null || echo '?')"
    echo "loadavg=$LOADAVG_START before the servers started, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?') after the runs"
    echo "kernel=$(uname -r)"
    echo "duration=$DURATION"
    echo "warmup=$WARMUP"
    echo "connections=$CONNECTIONS"
    echo "burst_connections=$BURST_CONNECTIONS"
    echo "big_connections=$BIG_CONNECTIONS"
    echo "slow_ms=$SLOW_MS"
    echo "workloads=$WORKLOADS"
    echo "threads=$THREADS"
    echo "rounds=$ROUNDS"
    echo "nginx_version=$("$NGINX" -v 2>&1 | sed 's/^nginx version: //')"
    echo "wrk_version=$("$WRK" -v 2>&1 | head -n 1 | awk '{ print $2 }')"
    echo "gqlgate_version=$G_VERSION"
    for c in "${G_CMDS[@]}"; do echo "gqlgate_cmd=$c"; done
    for u in "${UPSTREAM_SHARES[@]}"; do echo "upstream_share=$u"; done
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
