#!/usr/bin/env bash
# Instructions per proxied request, counted exactly with valgrind's callgrind, for machines
# whose CPU exposes no counters to perf (most VMs), where scripts/bench.sh can measure only
# CPU time. See docs/benchmarks.md, "make bench-instructions".
#
#   U  nginx `return 200`: the upstream, run natively; it counts the requests it answers
#   P  nginx `proxy_pass` in front of U, with a kept-alive upstream pool
#   B  bare libmicrohttpd+libcurl proxy in front of U (scripts/bench/bare-proxy.c)
#   SB B's work through gqlgate's own wrappers and Swift concurrency (Bench/BridgeProxy): the
#      server thread, a task per request on one loop, HTTPClient's libcurl; no pipeline, no
#      GraphQL, no record, no log. The floor of the stack under G's pipeline. Built here
#      (GQLGATE_BENCH=1, scratch path .build-bench)
#   SBH SB sending the request head G sends upstream: its `Accept` and a fresh `X-Request-Id`
#      as well (libcurl writes a head byte by byte, so its size shows in libcurl's count)
#   M  bare libmicrohttpd answering one fixed answer from memory (scripts/bench/bare-answer.c):
#      the floor under H, counted by its own GET /answered
#   MF M reading the request's header fields and answering with a hit's (bare-answer.c
#      --hit-fields): libmicrohttpd's own work for a hit's fields, whatever the code above it
#   G  gqlgate in front of U, in the configuration scripts/bench.sh gives its G row
#   H  gqlgate with the cache on (scripts/bench.sh's Gc row): every request a cache hit after
#      the first, counted by gqlgate's own gqlgate_requests_total (U answers only the first)
#   S  G with persisted documents: a 1,000-operation manifest holding the bench query, and
#      persisted_documents.safelist on (the bench query is sent as text and passes the safelist)
#   HS H with the same manifest and safelist
#   T  G with traffic protection on: a rate limit per client address (never reached), an
#      upstream concurrency limit (never full) and the circuit breaker (closed)
#   H0 H with compression off (H has it on, the default; its answer is below min_bytes)
#   Z0 Zb Zg  cache hits on a 20 KiB answer (/graphql-big): sent as it is (no Accept-Encoding),
#      as br and as gzip (compressed once, by the first hit)
#   TR G with tracing on at sample_ratio 1.0: every request's server and attempt spans exported
#      to a second nginx from the same template (its /v1/traces answers 200), off the request path
#   TL G with tracing on at sample_ratio 0.01
#   V  G with a schema held (schema.source: file, validate: true): every request validated
#      (once per document: a look-up after the first) before it goes upstream
#   HV H with the same schema
#   VD V with demand_control.mode: measure and metrics.field_usage: true: every request's cost
#      estimated (planned once per document: a look-up after the first) and recorded, and its
#      fields counted
#   HR H with the cache in Redis (cache.backend: redis, a redis-server started here): every
#      hit a GET to Redis over loopback
#   HT HR with Redis over TLS (rediss://, a certificate made by openssl here, verified)
#   HI H with cache.backend: tiered (memory in front of the HR row's Redis): every hit from memory
#   GI G with cache.backend: tiered and default_ttl 0s: every request a miss in memory and in
#      Redis, then proxied (nothing is stored: a tiered miss without its store)
#
# The report compares S with G and HS with H: what the safelist costs a listed query; and T
# with G: what traffic protection costs a proxied query that passes it; TR and TL with G: what
# tracing costs a proxied query (export included: it runs in the same process); V with G and
# HV with H: what validation against a schema costs a repeated query; VD with V: what demand
# control and field usage cost it; HT with HR: what TLS to
# Redis costs a hit (the redis-server itself is not counted); HI with H: what the tiered cache's
# memory hit costs against the memory cache's.
#
# P, B and G run one at a time under `valgrind --tool=callgrind`, with wrk POSTing the bench
# query on CONNECTIONS connections: a warm-up, then the counters are zeroed while wrk runs,
# DURATION seconds of load, and a dump. The dump's instructions are divided by the requests
# U answered between the zeroing and the dump (nginx's stub_status), not by wrk's count:
# under valgrind a zeroing or dump request waits for the process to reach a safe point.
#
# Counted: every user-space instruction of the server process (all threads, shared
# libraries included). Not counted: the kernel's, which is most of nginx's cost. callgrind
# counts each iteration of a `rep stos` (glibc's memset of large blocks, which
# libmicrohttpd uses to clear a connection's memory pool after every request) where a
# hardware counter counts the instruction once: the memset column shows that share and the
# last columns leave it out.
#
# Environment:
#   GQLGATE_BIN   gqlgate binary (default .build/release/gqlgate); G is skipped if missing
#   GQLGATE_ARGS  extra arguments for `gqlgate run` (default none)
#   TARGETS       comma-separated servers to measure, of P, B, SB, SBH, M, MF, G, H, S, HS, T, H0, Z0, Zb, Zg, TR, TL, V, HV, VD, HR, HT,
#                 HI, GI
#                 (default P,B,G,S)
#   DURATION      seconds of measured load per server (default 15)
#   WARMUP        seconds of unmeasured load before it (default 3)
#   CONNECTIONS   wrk connections (default 10)
#   RESULTS_DIR   where instructions.md goes (default bench-results)
#   KEEP_TMP      1 to keep the temp dir (configs, logs, callgrind dumps)
#   PROFILE       1 to add, for each server, where its instructions go (scripts/bench/callgrind-stages.py)
#   NGINX, WRK, VALGRIND  the binaries (default from PATH)
#
# A benchmark, not a test: it exits 0 whatever it measures, non-zero only when it cannot run.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
BENCH_DIR=$SCRIPT_DIR/bench
source "$BENCH_DIR/common.sh"

GQLGATE_BIN=${GQLGATE_BIN:-$REPO_ROOT/.build/release/gqlgate}
GQLGATE_ARGS=${GQLGATE_ARGS:-}
TARGETS=${TARGETS:-P,B,G,S}
DURATION=${DURATION:-15}
WARMUP=${WARMUP:-3}
CONNECTIONS=${CONNECTIONS:-10}
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench-results}
PROFILE=${PROFILE:-0}
KEEP_TMP=${KEEP_TMP:-0}
NGINX=${NGINX:-nginx}
WRK=${WRK:-wrk}
VALGRIND=${VALGRIND:-valgrind}
READY_TIMEOUT=${READY_TIMEOUT:-120}  # gqlgate under valgrind takes seconds to start

log() { printf 'bench-instructions: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
wants() { [[ ,$TARGETS, == *,"$1",* ]]; }

for t in ${TARGETS//,/ }; do
    [[ $t =~ ^(P|B|SB|SBH|M|MF|G|H|S|HS|T|H0|Z0|Zb|Zg|TR|TL|V|HV|VD|HR|HT|HI|GI)$ ]] ||
        die "TARGETS: unknown server $t (known: P, B, SB, SBH, M, MF, G, H, S, HS, T, H0, Z0, Zb, Zg, TR, TL, V, HV, VD, HR, HT, HI, GI)"
done
[[ $DURATION =~ ^[0-9]+$ && $DURATION -gt 0 ]] || die "DURATION must be a positive number of seconds"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be a number of seconds"
[[ $CONNECTIONS =~ ^[0-9]+$ && $CONNECTIONS -gt 0 ]] || die "CONNECTIONS must be a positive integer"
missing=()
for tool in "$NGINX" "$WRK" "$VALGRIND" callgrind_control callgrind_annotate curl cc strip; do
    command -v "$tool" >/dev/null || missing+=("$tool")
done
((${#missing[@]} == 0)) || die "missing: ${missing[*]} (make bench-instructions installs them)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gqlgate-bench-instr.XXXXXX")
SERVER_PIDS=()
RUN_PIDS=()  # the measuring wrk
STATUS=1

install_cleanup

read -r U_PORT P_PORT B_PORT G_PORT H_PORT S_PORT HS_PORT T_PORT H0_PORT Z0_PORT Zb_PORT Zg_PORT TR_PORT TL_PORT C_PORT V_PORT HV_PORT \
    HR_PORT HT_PORT R_PORT RT_PORT HI_PORT GI_PORT VD_PORT M_PORT SB_PORT SBH_PORT < <(free_ports 27)
U_GRAPHQL=http://127.0.0.1:$U_PORT/graphql
U_STATUS=http://127.0.0.1:$U_PORT/nginx-status

write_big_answer "$TMP"
render_conf "$BENCH_DIR/upstream.conf.in" "$TMP/upstream.conf" "$U_PORT"
start_nginx upstream "$TMP/upstream.conf"
wait_http "upstream nginx (U)" "$LAST_PID" "$U_STATUS"

upstream_requests() { # requests U has answered, this status request included
    curl -s --max-time 5 "$U_STATUS" | awk 'NR == 3 { print $3 }'
}

# under_callgrind name command... -> sets LAST_PID: the command, run under callgrind
GATEWAY_METRICS=http://127.0.0.1:$H_PORT/metrics
gateway_requests() { # GraphQL requests the gqlgate at GATEWAY_METRICS (H, HS) has answered
    curl -s --max-time 30 "$GATEWAY_METRICS" | awk '/^gqlgate_requests_total/ { sum += $NF } END { print sum + 0 }'
}

under_callgrind() {
    local name=$1
    shift
    "$VALGRIND" --tool=callgrind --dump-instr=no --callgrind-out-file="$TMP/$name.callgrind" \
        "$@" >"$TMP/$name.log" 2>&1 &
    LAST_PID=$!
    SERVER_PIDS+=("$LAST_PID")
}

ROWS=()  # name \t requests \t instructions \t memset instructions, per server measured
PROFILES=()  # name \t dump \t requests, per server measured

# measure name pid url: load, zero, load DURATION seconds, dump; appends to ROWS
measure() {
    local name=$1 pid=$2 url=$3 count=${4:-upstream_requests} before after requests dump total memset line
    # Waits run in the background, so that Ctrl-C or SIGTERM reaches the traps at once
    # (bash defers traps while a foreground command runs).
    if ((WARMUP > 0)); then
        "$WRK" -t1 -c"$CONNECTIONS" -d"${WARMUP}s" -s "$BENCH_DIR/wrk.lua" "$url" >/dev/null 2>&1 </dev/null &
        wait $!
    fi
    "$WRK" -t1 -c"$CONNECTIONS" -d1h -s "$BENCH_DIR/wrk.lua" "$url" >"$TMP/wrk-$name.out" 2>&1 </dev/null &
    RUN_PIDS=($!)
    # Zero once the load has reached the server: U's count moves.
    before=$($count)
    until (($($count) > before + 1)); do
        kill -0 "${RUN_PIDS[0]}" 2>/dev/null || die "wrk stopped before $name answered"
    done
    callgrind_control -z "$pid" >/dev/null 2>&1
    before=$($count)
    sleep "$DURATION" &
    wait $!
    callgrind_control -d "$pid" >/dev/null 2>&1
    after=$($count)
    # wrk prints its summary (and the script's error counts) when interrupted.
    kill -INT "${RUN_PIDS[0]}" 2>/dev/null || true
    wait "${RUN_PIDS[0]}" 2>/dev/null || true
    RUN_PIDS=()
    line=$(grep -m1 '^BENCH ' "$TMP/wrk-$name.out" || true)
    [[ $line =~ status=0\  && $line =~ timeout=0 ]] ||
        log "warning: $name answered with errors or timeouts: ${line:-no summary from wrk}"

    requests=$((after - before))
    [[ $count == upstream_requests ]] && requests=$((requests - 1))  # U's count includes the status request that read it
    ((requests > 0)) || die "$name: no proxied requests between the zeroing and the dump"
    dump=$TMP/$name.callgrind.1  # the first dump; zeroing writes none
    [[ -s $dump ]] || die "$name: callgrind wrote no dump"
    total=$(awk '/^(totals|summary):/ { print $2; exit }' "$dump")
    memset=$(callgrind_annotate --inclusive=no --threshold=100 "$dump" 2>/dev/null |
        awk '/:__memset_/ { gsub(",", "", $1); sum += $1 } END { print sum + 0 }')
    ROWS+=("$name"$'\t'"$requests"$'\t'"$total"$'\t'"$memset")
    PROFILES+=("$name"$'\t'"$dump"$'\t'"$requests")
    log "$name: $requests requests, $(awk -v t="$total" -v r="$requests" 'BEGIN { printf "%.1fk", t / r / 1000 }') instructions a request"
}

if wants P; then
    render_conf "$BENCH_DIR/proxy.conf.in" "$TMP/proxy.conf" "$P_PORT" "$U_PORT"
    under_callgrind P "$NGINX" -p "$TMP" -c "$TMP/proxy.conf"
    wait_http "proxy nginx (P)" "$LAST_PID" "http://127.0.0.1:$P_PORT/graphql"
    measure P "$LAST_PID" "http://127.0.0.1:$P_PORT/graphql"
    stop_pid "$LAST_PID"
fi

if wants B; then
    cc -O2 -o "$TMP/bare-proxy" "$BENCH_DIR/bare-proxy.c" -lmicrohttpd -lcurl -lpthread 2>"$TMP/bare-proxy-build.log" ||
        die "bare-proxy.c did not build"
    under_callgrind B "$TMP/bare-proxy" "$B_PORT" "$U_GRAPHQL"
    wait_http "bare proxy (B)" "$LAST_PID" "http://127.0.0.1:$B_PORT/graphql"
    measure B "$LAST_PID" "http://127.0.0.1:$B_PORT/graphql"
    stop_pid "$LAST_PID"
fi

if wants SB || wants SBH; then
    GQLGATE_BENCH=1 "${SWIFT:-swift}" build -c release --static-swift-stdlib --scratch-path "$REPO_ROOT/.build-bench" \
        --product BenchBridgeProxy >"$TMP/bridge-proxy-build.log" 2>&1 || die "BenchBridgeProxy did not build: $TMP/bridge-proxy-build.log"
    strip --strip-debug -o "$TMP/bridge-proxy" "$REPO_ROOT/.build-bench/release/BenchBridgeProxy"
fi
# measure_bridge_proxy name port [option]: Bench/BridgeProxy under callgrind.
measure_bridge_proxy() {
    local name=$1 port=$2
    under_callgrind "$name" "$TMP/bridge-proxy" "$port" "$U_GRAPHQL" "${@:3}"
    wait_http "Swift bridge proxy ($name)" "$LAST_PID" "http://127.0.0.1:$port/graphql"
    measure "$name" "$LAST_PID" "http://127.0.0.1:$port/graphql"
    stop_pid "$LAST_PID"
}
if wants SB; then measure_bridge_proxy SB "$SB_PORT"; fi
if wants SBH; then measure_bridge_proxy SBH "$SBH_PORT" --gateway-head; fi

# measure_bare_answer name label [option]: bare-answer.c under callgrind, counted by its own GET /answered.
measure_bare_answer() {
    local name=$1 label=$2
    shift 2
    [[ -x $TMP/bare-answer ]] ||
        cc -O2 -o "$TMP/bare-answer" "$BENCH_DIR/bare-answer.c" -lmicrohttpd 2>"$TMP/bare-answer-build.log" ||
        die "bare-answer.c did not build"
    under_callgrind "$name" "$TMP/bare-answer" "$@" "$M_PORT"
    wait_http "$label" "$LAST_PID" "http://127.0.0.1:$M_PORT/answered"
    M_ANSWERED=http://127.0.0.1:$M_PORT/answered
    answered_requests() { curl -s --max-time 30 "$M_ANSWERED"; }
    measure "$name" "$LAST_PID" "http://127.0.0.1:$M_PORT/graphql" answered_requests
    stop_pid "$LAST_PID"
}

wants M && measure_bare_answer M "bare answer (M)"
wants MF && measure_bare_answer MF "bare answer with a hit's fields (MF)" --hit-fields

G_COMMAND=
if wants G; then
    if [[ ! -x $GQLGATE_BIN ]]; then
        log "skipping G: $GQLGATE_BIN not found (build it with: swift build -c release)"
    else
        printf '%s\n' "$G_PROXIED_CONFIG" >"$TMP/gqlgate.yaml"
        g_args=(run --listen "127.0.0.1:$G_PORT" --upstream "$U_GRAPHQL" --config "$TMP/gqlgate.yaml" --log-level error)
        # shellcheck disable=SC2206 # word splitting of GQLGATE_ARGS is intended
        [[ -n $GQLGATE_ARGS ]] && g_args+=($GQLGATE_ARGS)
        G_COMMAND="gqlgate ${g_args[*]//"$TMP"/<tmp>} (config: $G_PROXIED_CONFIG)"
        # valgrind 3.19 cannot read the DWARF that Swift writes; symbols are enough.
        strip --strip-debug -o "$TMP/gqlgate" "$GQLGATE_BIN"
        under_callgrind G "$TMP/gqlgate" "${g_args[@]}"
        wait_http "gqlgate (G)" "$LAST_PID" "http://127.0.0.1:$G_PORT/healthz"
        measure G "$LAST_PID" "http://127.0.0.1:$G_PORT/graphql"
        stop_pid "$LAST_PID"
    fi
fi

# ------------------------------------------------------------------ report

# write_manifest file count: a Relay-style map of count distinct operations, wrk.lua's query among them
write_manifest() {
    awk -v count="$2" 'BEGIN {
        printf "{\"bench\": \"query Hello { hello }\""
        for (i = 1; i < count; i++) printf ",\n\"op-%d\": \"query Op%d($id: ID!) { book(id: $id) { id title author reviews(first: %d) { stars } } }\"", i, i, i
        print "}"
    }' >"$1"
}

# gateway name port config count [upstream]: gqlgate under callgrind with config (YAML text), measured
gateway() {
    local name=$1 port=$2 config=$3 count=$4 upstream=${5:-$U_GRAPHQL} args
    printf '%s\n' "$config" >"$TMP/gqlgate-$name.yaml"
    args=(run --listen "127.0.0.1:$port" --upstream "$upstream" --config "$TMP/gqlgate-$name.yaml" --log-level error)
    # shellcheck disable=SC2206 # word splitting of GQLGATE_ARGS is intended
    [[ -n $GQLGATE_ARGS ]] && args+=($GQLGATE_ARGS)
    [[ -f $TMP/gqlgate ]] || strip --strip-debug -o "$TMP/gqlgate" "$GQLGATE_BIN"
    GATEWAY_METRICS=http://127.0.0.1:$port/metrics
    under_callgrind "$name" "$TMP/gqlgate" "${args[@]}"
    wait_http "gqlgate ($name)" "$LAST_PID" "http://127.0.0.1:$port/healthz"
    measure "$name" "$LAST_PID" "http://127.0.0.1:$port/graphql" "$count"
    stop_pid "$LAST_PID"
}

if wants H && [[ -x $GQLGATE_BIN ]]; then
    gateway H "$H_PORT" "$GC_CONFIG" gateway_requests
fi

# Compression: H0 is H with compression off (H has it on, the default, for an answer below
# min_bytes); Z0, Zb and Zg are hits on a 20 KiB answer sent as it is, as br and as gzip.
if wants H0 && [[ -x $GQLGATE_BIN ]]; then
    gateway H0 "$H0_PORT" "${GC_CONFIG%\}}, compression: {enabled: false}}" gateway_requests
fi
for row in Z0: Zb:br Zg:gzip; do
    name=${row%%:*} coding=${row#*:}
    if wants "$name" && [[ -x $GQLGATE_BIN ]]; then
        port_var=${name}_PORT
        BENCH_ACCEPT_ENCODING=$coding gateway "$name" "${!port_var}" "$GC_CONFIG" gateway_requests "http://127.0.0.1:$U_PORT/graphql-big"
    fi
done

if { wants S || wants HS; } && [[ -x $GQLGATE_BIN ]]; then
    write_manifest "$TMP/manifest.json" 1000
    safelist="persisted_documents: {manifests: [$TMP/manifest.json], safelist: true}"
    # The rows' configs with the safelist added: {a: ..., persisted_documents: {...}}
    if wants S; then gateway S "$S_PORT" "${G_PROXIED_CONFIG%\}}, $safelist}" upstream_requests; fi
    if wants HS; then gateway HS "$HS_PORT" "${GC_CONFIG%\}}, $safelist}" gateway_requests; fi
fi

if wants T && [[ -x $GQLGATE_BIN ]]; then
    protection="clients: {rate_limit: {requests_per_second: 1000000, burst: 1000000}}, upstream: {max_concurrency: 1000, circuit_breaker: {enabled: true}}"
    gateway T "$T_PORT" "${G_PROXIED_CONFIG%\}}, $protection}" upstream_requests
fi

if { wants TR || wants TL; } && [[ -x $GQLGATE_BIN ]]; then
    render_conf "$BENCH_DIR/upstream.conf.in" "$TMP/collector.conf" "$C_PORT"
    start_nginx collector "$TMP/collector.conf"
    wait_http "span collector nginx" "$LAST_PID" "http://127.0.0.1:$C_PORT/healthz"
    tracing="tracing: {enabled: true, endpoint: 'http://127.0.0.1:$C_PORT/v1/traces'"
    if wants TR; then gateway TR "$TR_PORT" "${G_PROXIED_CONFIG%\}}, $tracing, sample_ratio: 1.0}}" upstream_requests; fi
    if wants TL; then gateway TL "$TL_PORT" "${G_PROXIED_CONFIG%\}}, $tracing, sample_ratio: 0.01}}" upstream_requests; fi
fi

if { wants V || wants HV || wants VD; } && [[ -x $GQLGATE_BIN ]]; then
    # The bench query's field, among types like those of the S rows' manifest.
    cat >"$TMP/schema.graphql" <<'SDL'
type Query { hello: String, book(id: ID!): Book, books: [Book!]! }
type Book { id: ID!, title: String!, author: String!, reviews(first: Int = 10): [Review!]! }
type Review { id: ID!, stars: Int! }
SDL
    schema="schema: {source: file, file: $TMP/schema.graphql, validate: true}"
    if wants V; then gateway V "$V_PORT" "${G_PROXIED_CONFIG%\}}, $schema}" upstream_requests; fi
    if wants HV; then gateway HV "$HV_PORT" "${GC_CONFIG%\}}, $schema}" gateway_requests; fi
    if wants VD; then
        gateway VD "$VD_PORT" "${G_PROXIED_CONFIG%\}}, $schema, demand_control: {mode: measure}, metrics: {field_usage: true}}" \
            upstream_requests
    fi
fi

if { wants HR || wants HT || wants HI || wants GI; } && [[ -x $GQLGATE_BIN ]]; then
    command -v redis-server >/dev/null || die "HR and HT need redis-server (make deps installs it)"
    redis_args=(--bind 127.0.0.1 --save "" --appendonly no --dir "$TMP")
    if wants HR || wants HI || wants GI; then
        redis-server "${redis_args[@]}" --port "$R_PORT" >"$TMP/redis.log" 2>&1 &
        SERVER_PIDS+=("$!")
        wait_port "redis-server" "$!" "$R_PORT"
    fi
    if wants GI; then
        gateway GI "$GI_PORT" "${G_PROXIED_CONFIG%\}}, cache: {enabled: true, backend: tiered, default_ttl: 0s}, redis: {url: 'redis://127.0.0.1:$R_PORT'}}" \
            upstream_requests
    fi
    if wants HI; then
        gateway HI "$HI_PORT" "${GC_CONFIG%\}\}}, backend: tiered}, redis: {url: 'redis://127.0.0.1:$R_PORT'}}" gateway_requests
    fi
    if wants HR; then
        gateway HR "$HR_PORT" "${GC_CONFIG%\}\}}, backend: redis}, redis: {url: 'redis://127.0.0.1:$R_PORT'}}" gateway_requests
    fi
    if wants HT; then
        command -v openssl >/dev/null || die "HT needs openssl for its certificate"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
            -addext subjectAltName=IP:127.0.0.1 -keyout "$TMP/redis.key" -out "$TMP/redis.crt" >"$TMP/openssl-redis.log" 2>&1 ||
            die "openssl could not make the HT certificate: $(cat "$TMP/openssl-redis.log")"
        redis-server "${redis_args[@]}" --port 0 --tls-port "$RT_PORT" --tls-cert-file "$TMP/redis.crt" \
            --tls-key-file "$TMP/redis.key" --tls-ca-cert-file "$TMP/redis.crt" --tls-auth-clients no >"$TMP/redis-tls.log" 2>&1 &
        SERVER_PIDS+=("$!")
        wait_port "redis-server (TLS)" "$!" "$RT_PORT"
        gateway HT "$HT_PORT" "${GC_CONFIG%\}\}}, backend: redis}, redis: {url: 'rediss://127.0.0.1:$RT_PORT', tls: {ca_file: $TMP/redis.crt}}}" \
            gateway_requests
    fi
fi

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/instructions.md
{
    echo "# User-space instructions per proxied request (callgrind)"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $("$VALGRIND" --version), wrk -c$CONNECTIONS, ${DURATION}s measured per server."
    [[ -n $G_COMMAND ]] && echo "G: \`$G_COMMAND\`."
    echo
    printf '%s\n' "${ROWS[@]}" | awk -F'\t' '
        { name[NR] = $1; req[NR] = $2; all[NR] = $3 / $2; mem[NR] = $4 / $2; rest[NR] = ($3 - $4) / $2; idx[$1] = NR }
        function k(v) { return sprintf("%.1fk", v / 1000) }
        function ratio(a, b) { return b > 0 ? sprintf("%.2fx", a / b) : "-" }
        END {
            print "| server | requests | instructions / request | of which memset | without memset | / P | / B | / B without memset |"
            print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
            for (i = 1; i <= NR; i++) {
                p = ("P" in idx) ? all[idx["P"]] : 0
                b = ("B" in idx) ? all[idx["B"]] : 0
                br = ("B" in idx) ? rest[idx["B"]] : 0
                printf "| %s | %d | %s | %s | %s | %s | %s | %s |\n", name[i], req[i], k(all[i]), k(mem[i]), k(rest[i]),
                    ratio(all[i], p), ratio(all[i], b), ratio(rest[i], br)
            }
        }'
    echo
    printf '%s\n' "${ROWS[@]}" | awk -F'\t' '
        { per[$1] = $3 / $2 }
        END {
            if (("G" in per) && ("SB" in per)) printf "G / SB (the pipeline, against the stack under it): %.2fx\n", per["G"] / per["SB"]
            if (("G" in per) && ("SBH" in per)) printf "G / SBH (the pipeline, against the stack under it sending G'"'"'s head): %.2fx\n", per["G"] / per["SBH"]
            if (("H" in per) && ("M" in per)) printf "H / M (cache hit, against the bare answer from memory): %.2fx\n", per["H"] / per["M"]
            if (("MF" in per) && ("M" in per)) printf "MF / M (a hit'"'"'s header fields in libmicrohttpd): %.2fx\n", per["MF"] / per["M"]
            if (("H" in per) && ("MF" in per)) printf "H / MF (cache hit, against the bare answer with a hit'"'"'s fields): %.2fx\n", per["H"] / per["MF"]
            if (("S" in per) && ("G" in per)) printf "S / G (safelist, 1,000 documents, proxied): %+.2f%%\n", (per["S"] / per["G"] - 1) * 100
            if (("HS" in per) && ("H" in per)) printf "HS / H (safelist, 1,000 documents, cache hit): %+.2f%%\n", (per["HS"] / per["H"] - 1) * 100
            if (("T" in per) && ("G" in per)) printf "T / G (rate limit, concurrency limit, circuit breaker, proxied): %+.2f%%\n", (per["T"] / per["G"] - 1) * 100
            if (("V" in per) && ("G" in per)) printf "V / G (schema held, validated, proxied): %+.2f%%\n", (per["V"] / per["G"] - 1) * 100
            if (("VD" in per) && ("V" in per)) printf "VD / V (demand control measured and field usage counted, proxied): %+.2f%%\n", (per["VD"] / per["V"] - 1) * 100
            if (("HV" in per) && ("H" in per)) printf "HV / H (schema held, validated, cache hit): %+.2f%%\n", (per["HV"] / per["H"] - 1) * 100
            if (("HR" in per) && ("H" in per)) printf "HR / H (cache hit through Redis, against in memory): %+.2f%%\n", (per["HR"] / per["H"] - 1) * 100
            if (("GI" in per) && ("G" in per)) printf "GI / G (a tiered miss, in memory and in Redis, then proxied; not stored): %+.2f%%\n", (per["GI"] / per["G"] - 1) * 100
            if (("HI" in per) && ("H" in per)) printf "HI / H (tiered cache hit from memory, against the memory cache): %+.2f%%\n", (per["HI"] / per["H"] - 1) * 100
            if (("HT" in per) && ("HR" in per)) printf "HT / HR (cache hit through Redis over TLS, against plain): %+.2f%%\n", (per["HT"] / per["HR"] - 1) * 100
            if (("TR" in per) && ("G" in per)) printf "TR / G (tracing, sample_ratio 1.0, proxied): %+.2f%%\n", (per["TR"] / per["G"] - 1) * 100
            if (("TL" in per) && ("G" in per)) printf "TL / G (tracing, sample_ratio 0.01, proxied): %+.2f%%\n", (per["TL"] / per["G"] - 1) * 100
        }'
    echo
    echo "Kernel instructions are not counted; nginx spends most of its cost there, so / P reads"
    echo "far higher here than it would with a hardware counter (see docs/benchmarks.md)."
    if [[ $PROFILE == 1 ]]; then
        for entry in "${PROFILES[@]}"; do
            IFS=$'\t' read -r name dump requests <<<"$entry"
            echo
            echo "## Where $name's instructions go"
            echo
            python3 "$BENCH_DIR/callgrind-stages.py" "$dump" "$requests"
        done
    fi
} >"$REPORT"
cat "$REPORT"
log "report written to ${REPORT#"$REPO_ROOT"/}"
STATUS=0
