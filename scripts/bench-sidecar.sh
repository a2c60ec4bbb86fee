#!/usr/bin/env bash
# What putting gqlgate beside a GraphQL API costs (see docs/benchmarks.md, "make
# bench-sidecar"): a Strawberry API on uvicorn (scripts/bench/strawberry_upstream.py, one
# worker) measured directly and through gqlgate, in interleaved rounds:
#
#   D   the API directly
#   G   through gqlgate, dedupe off: every request proxied
#   Gd  through gqlgate with its defaults (dedupe on): identical queries in flight at once
#       share one upstream request
#   Gc  through gqlgate with the cache on (default_ttl 1m): every request after the first a hit
#
# Each run POSTs one query (ten products with their sellers, an answer of about 1 KiB) with
# wrk -t1 on CONNECTIONS connections. Reported per row: req/s, p50 and p99 latency, the CPU
# time per request of the API process and of gqlgate (user + system, from /proc), and how
# many requests reached the API per request sent. Ratios to D are taken per round; their
# medians are reported.
#
# Environment:
#   GQLGATE_BIN   gqlgate binary (default .build/release/gqlgate)
#   PYTHON        Python with strawberry and uvicorn (default .venv/bin/python, see make venv)
#   CONNECTIONS   wrk connections (default 10)
#   DURATION      each measured run (default 10s); WARMUP: one unrecorded run per row first (3s)
#   ROUNDS        interleaved rounds (default 3)
#   RESULTS_DIR   where sidecar.md goes (default bench-results)
#   KEEP_TMP      1 to keep the temp dir (configs, logs, wrk output)
#
# A benchmark, not a test: it exits 0 whatever it measures, non-zero only when it cannot run.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
BENCH_DIR=$SCRIPT_DIR/bench
source "$BENCH_DIR/common.sh"

GQLGATE_BIN=${GQLGATE_BIN:-$REPO_ROOT/.build/release/gqlgate}
PYTHON=${PYTHON:-$REPO_ROOT/.venv/bin/python}
CONNECTIONS=${CONNECTIONS:-10}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-3s}
ROUNDS=${ROUNDS:-3}
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench-results}
KEEP_TMP=${KEEP_TMP:-0}
WRK=${WRK:-wrk}
READY_TIMEOUT=30

log() { printf 'bench-sidecar: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -x $GQLGATE_BIN ]] || die "$GQLGATE_BIN not found (build it with: swift build -c release)"
[[ -x $PYTHON ]] || die "$PYTHON not found (make venv creates it)"
"$PYTHON" -c 'import strawberry, uvicorn' 2>/dev/null || die "$PYTHON lacks strawberry or uvicorn (make venv)"
command -v "$WRK" >/dev/null || die "wrk not found (make bench-sidecar installs it)"
[[ $ROUNDS =~ ^[1-9][0-9]*$ && $CONNECTIONS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS and CONNECTIONS must be positive integers"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gqlgate-bench-sidecar.XXXXXX")
SERVER_PIDS=()
RUN_PIDS=()
STATUS=1
install_cleanup

QUERY='query Products { products(first: 10) { id name price inStock seller { id name rating } } }'
export BENCH_BODY="{\"query\":\"$QUERY\",\"operationName\":\"Products\"}"

read -r S_PORT G_PORT GD_PORT GC_PORT < <(free_ports 4)
S_URL=http://127.0.0.1:$S_PORT/graphql

"$PYTHON" -m uvicorn strawberry_upstream:app --app-dir "$BENCH_DIR" --host 127.0.0.1 --port "$S_PORT" \
    --workers 1 --no-access-log --log-level warning >"$TMP/strawberry.log" 2>&1 &
S_PID=$!
SERVER_PIDS+=("$S_PID")
wait_http "Strawberry (D)" "$S_PID" "http://127.0.0.1:$S_PORT/requests"
log "D: Strawberry on uvicorn, one worker, on 127.0.0.1:$S_PORT (pid $S_PID)"

declare -A PORT=([D]=$S_PORT [G]=$G_PORT [Gd]=$GD_PORT [Gc]=$GC_PORT)
declare -A CONFIG=([G]="$G_PROXIED_CONFIG" [Gd]='{}' [Gc]="$GC_CONFIG")
declare -A PID=([D]=$S_PID)
declare -A LABEL=([D]="Strawberry directly" [G]="through gqlgate, dedupe off" [Gd]="through gqlgate, defaults (dedupe on)"
    [Gc]="through gqlgate, cache on")
ROWS=(D G Gd Gc)
for row in G Gd Gc; do
    printf '%s\n' "${CONFIG[$row]}" >"$TMP/gqlgate-$row.yaml"
    "$GQLGATE_BIN" run --listen "127.0.0.1:${PORT[$row]}" --upstream "$S_URL" --config "$TMP/gqlgate-$row.yaml" \
        --log-level error >"$TMP/gqlgate-$row.log" 2>&1 &
    PID[$row]=$!
    SERVER_PIDS+=("${PID[$row]}")
    wait_http "gqlgate ($row)" "${PID[$row]}" "http://127.0.0.1:${PORT[$row]}/healthz"
    log "$row: gqlgate (config ${CONFIG[$row]}) on 127.0.0.1:${PORT[$row]} (pid ${PID[$row]})"
done

# Every path gives the API's answer before anything is measured.
expected=$(curl -s --max-time 10 -H 'Content-Type: application/json' -H 'Accept: application/json' -d "$BENCH_BODY" "$S_URL")
[[ $expected == '{"data":{"products":['* ]] || die "the API did not answer the bench query: ${expected:0:200}"
for row in G Gd Gc; do
    got=$(curl -s --max-time 10 -H 'Content-Type: application/json' -H 'Accept: application/json' -d "$BENCH_BODY" \
        "http://127.0.0.1:${PORT[$row]}/graphql")
    [[ $got == "$expected" ]] || die "$row did not pass the API's answer through: ${got:0:200}"
done
log "ok: every row answers the API's $((${#expected})) bytes"

api_requests() { curl -s --max-time 10 "http://127.0.0.1:$S_PORT/requests"; }
cpu_ticks() { # pid: user+system clock ticks of the process (all threads)
    sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}
CLK_TCK=$(getconf CLK_TCK)

# run row round: one wrk run against the row, appended to RUNS as a tab-separated line
RUNS=$TMP/runs.tsv
: >"$RUNS"
run() {
    local row=$1 round=$2 url api0 api1 s0 s1 g0 g1 line
    url=http://127.0.0.1:${PORT[$row]}/graphql
    api0=$(api_requests)
    s0=$(cpu_ticks "$S_PID")
    g0=0
    [[ $row == D ]] || g0=$(cpu_ticks "${PID[$row]}")
    "$WRK" -t1 -c"$CONNECTIONS" -d"$DURATION" --latency -s "$BENCH_DIR/wrk.lua" "$url" >"$TMP/wrk-$row-$round.out" 2>&1 </dev/null &
    RUN_PIDS=($!)
    wait "${RUN_PIDS[0]}" || die "wrk failed against $row: $(tail -n 3 "$TMP/wrk-$row-$round.out")"
    RUN_PIDS=()
    s1=$(cpu_ticks "$S_PID")
    g1=0
    [[ $row == D ]] || g1=$(cpu_ticks "${PID[$row]}")
    api1=$(api_requests)
    line=$(grep -m1 '^BENCH ' "$TMP/wrk-$row-$round.out") || die "no summary from wrk against $row"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$row" "${line#BENCH }" "$((s1 - s0))" "$((g1 - g0))" "$((api1 - api0))" >>"$RUNS"
}

for row in "${ROWS[@]}"; do
    "$WRK" -t1 -c"$CONNECTIONS" -d"$WARMUP" -s "$BENCH_DIR/wrk.lua" "http://127.0.0.1:${PORT[$row]}/graphql" >/dev/null 2>&1 </dev/null
done
log "measuring: $ROUNDS rounds x ${#ROWS[@]} rows of $DURATION, wrk -t1 -c$CONNECTIONS"
for ((round = 1; round <= ROUNDS; round++)); do
    for row in "${ROWS[@]}"; do
        run "$row" "$round"
        log "round $round/$ROUNDS $(printf '%-3s' "$row") $(tail -n 1 "$RUNS" | cut -f3 | tr ' ' '\n' | grep -E '^(requests|p50_us|p99_us|status)=' | tr '\n' ' ')"
    done
done

mkdir -p "$RESULTS_DIR"
REPORT=$RESULTS_DIR/sidecar.md
{
    echo "# What gqlgate beside a GraphQL API costs"
    echo
    echo "- **date**: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) after the runs"
    echo "- **API**: Strawberry $("$PYTHON" -c 'import importlib.metadata as m; print(m.version("strawberry-graphql"))') on uvicorn $("$PYTHON" -c 'import uvicorn; print(uvicorn.__version__)'), one worker"
    echo "- **load**: wrk -t1 -c$CONNECTIONS -d$DURATION, $ROUNDS interleaved rounds; the query: \`$QUERY\` (${#expected} bytes answered)"
    echo "- **gqlgate**: $("$GQLGATE_BIN" --version 2>&1 | head -n 1)"
    echo
    python3 - "$RUNS" "$CLK_TCK" <<'PY'
import statistics, sys
rows = {"D": "Strawberry directly", "G": "through gqlgate, dedupe off", "Gd": "through gqlgate, defaults (dedupe on)",
        "Gc": "through gqlgate, cache on"}
runs = {}
for line in open(sys.argv[1]):
    rnd, row, bench, api_ticks, g_ticks, api_reqs = line.rstrip("\n").split("\t")
    f = dict(kv.split("=") for kv in bench.split())
    n = int(f["requests"])
    runs.setdefault(row, {})[int(rnd)] = {
        "rps": n / (int(f["duration_us"]) / 1e6), "p50": int(f["p50_us"]) / 1000, "p99": int(f["p99_us"]) / 1000,
        "api_cpu": int(api_ticks) / int(sys.argv[2]) / n * 1e6, "g_cpu": int(g_ticks) / int(sys.argv[2]) / n * 1e6,
        "api_per": int(api_reqs) / n, "errors": int(f["status"]) + int(f["timeout"]) + int(f["connect"]) + int(f["read"])
        + int(f["write"]),
    }
med = lambda row, k: statistics.median(r[k] for r in runs[row].values())
print("| | req/s | p50 ms | p99 ms | API CPU µs/req | gqlgate CPU µs/req | API requests / request | errors |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for row, label in rows.items():
    g = "-" if row == "D" else f"{med(row, 'g_cpu'):.1f}"
    errors = sum(r["errors"] for r in runs[row].values())
    print(f"| {label} ({row}) | {med(row, 'rps'):,.0f} | {med(row, 'p50'):.2f} | {med(row, 'p99'):.2f} | "
          f"{med(row, 'api_cpu'):.1f} | {g} | {med(row, 'api_per'):.3f} | {errors} |")
print()
print("Per round, against D (median over rounds):")
print()
print("| | req/s | p50 | p99 | CPU per request, API + gqlgate |")
print("| --- | ---: | ---: | ---: | ---: |")
for row in ("G", "Gd", "Gc"):
    ratio = lambda k: statistics.median(runs[row][r][k] / runs["D"][r][k] for r in runs[row])
    cpu = statistics.median((runs[row][r]["api_cpu"] + runs[row][r]["g_cpu"]) / runs["D"][r]["api_cpu"] for r in runs[row])
    added = statistics.median(runs[row][r]["p50"] - runs["D"][r]["p50"] for r in runs[row])
    print(f"| {rows[row]} ({row}) | {ratio('rps'):.2f}x | {ratio('p50'):.2f}x ({added:+.2f} ms) | {ratio('p99'):.2f}x | {cpu:.2f}x |")
PY
} >"$REPORT"
cat "$REPORT"
log "report written to ${REPORT#"$REPO_ROOT"/}"
STATUS=0
