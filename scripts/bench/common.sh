# Helpers shared by the benchmark scripts (sourced). They use the caller's globals:
# TMP (the run's temp dir), NGINX (the nginx binary), SERVER_PIDS (servers to stop),
# RUN_PIDS (load generators of the current run, stopped first), STATUS (0 once the
# script succeeded), KEEP_TMP, READY_TIMEOUT (seconds), and log and die functions.

# Prints $1 free TCP ports on 127.0.0.1, all different: they are bound all at
# once, then released for the servers.
free_ports() {
    python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

# gqlgate's configuration for proxied-query runs. wrk sends the same query on every
# connection, so with dedupe on (the default) concurrent requests would share one upstream
# request: it is off, so that every request is proxied. Everything else keeps its default.
G_PROXIED_CONFIG='{dedupe: {enabled: false}}'
# gqlgate with the cache on (bench.sh's Gc row, bench-instructions.sh's H)
GC_CONFIG='{cache: {enabled: true, default_ttl: 1m}}'

stop_pid() { # pid: TERM, then KILL after 5 s
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

# Paths nginx would otherwise create under /var/lib/nginx (not writable for every user).
extra_temp_paths() {
    local v m
    v=$("$NGINX" -V 2>&1)
    for m in fastcgi uwsgi scgi; do
        [[ $v == *"--without-http_${m}_module"* ]] || printf '    %s_temp_path %s/%s-%s;\n' "$m" "$TMP" "$1" "$m"
    done
}

write_big_answer() { # dir: the file upstream.conf.in serves at /graphql-big, a 20 KiB GraphQL answer
    awk 'BEGIN {
        printf "{\"data\":{\"reviews\":["
        for (i = 0; i < 290; i++) printf "%s{\"id\":\"%d\",\"episode\":\"JEDI\",\"stars\":%d,\"commentary\":\"review %d\"}", (i ? "," : ""), i, i % 5 + 1, i * 7919
        print "]}}"
    }' >"$1/big-answer.json"
}

# write_huge_answer dir: the file upstream.conf.in serves at /graphql-big8m, a GraphQL answer
# of exactly 8 MiB (8,388,608 bytes, ASCII): a list of products, each with a nested seller and
# two reviews (the shape of a big query's answer), the last product's description padding it
# to size. The same bytes on every run.
write_huge_answer() {
    awk -v size=8388608 'BEGIN {
        head = "{\"data\":{\"products\":["; tail = "]}}\n"; closing = "\"}"
        desc = "an item of the big answer"
        out = head; total = length(head) + length(tail)
        for (i = 0; ; i++) {
            item = sprintf("%s{\"id\":\"P%07d\",\"name\":\"Product %d\",\"price\":{\"amount\":%d.%02d,\"currency\":\"EUR\"},\"inStock\":%s,\"seller\":{\"id\":\"S%05d\",\"name\":\"Seller %d\",\"rating\":%d.%d},\"reviews\":[{\"stars\":%d,\"body\":\"review %d of product %d\"},{\"stars\":%d,\"body\":\"review %d of product %d\"}],\"description\":\"",
                (i ? "," : ""), i, i, (i * 7919) % 1000, i % 100, (i % 3 ? "true" : "false"), i % 9973, i % 9973,
                i % 5, (i * 7) % 10, i % 5 + 1, 2 * i, i, (i + 2) % 5 + 1, 2 * i + 1, i)
            # the last product: its description takes the bytes left (at least this one would)
            if (total + 2 * (length(item) + length(desc) + length(closing)) > size) break
            out = out item desc closing
            total += length(item) + length(desc) + length(closing)
            if (length(out) > 65536) { printf "%s", out; out = "" }
        }
        pad = size - total - length(item) - length(closing)
        desc = ""
        while (length(desc) < pad) desc = desc "x"
        printf "%s%s%s%s%s", out, item, desc, closing, tail
    }' >"$1/huge-answer.json"
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

start_nginx() { # name conf -> sets LAST_PID, adds it to SERVER_PIDS
    local name=$1 conf=$2 early_log=()
    # nginx writes to its compiled-in error log before it reads the config, unless -e says where.
    "$NGINX" -h 2>&1 | grep -q -- '-e filename' && early_log=(-e "$TMP/nginx-startup.log")
    "$NGINX" -t -q "${early_log[@]}" -p "$TMP" -c "$conf" >"$TMP/$name-check.log" 2>&1 ||
        die "nginx rejected $conf: $(cat "$TMP/$name-check.log")"
    "$NGINX" "${early_log[@]}" -p "$TMP" -c "$conf" >"$TMP/$name.log" 2>&1 &
    LAST_PID=$!
    SERVER_PIDS+=("$LAST_PID")
}

wait_http() { # name pid url: poll until the server answers HTTP at all
    local name=$1 pid=$2 url=$3 code deadline
    deadline=$((SECONDS + READY_TIMEOUT))
    while :; do
        kill -0 "$pid" 2>/dev/null || die "$name exited during start-up"
        code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 1 "$url" 2>/dev/null || true)
        [[ -n $code && $code != 000 ]] && return 0
        ((SECONDS < deadline)) || die "$name did not answer $url within ${READY_TIMEOUT}s"
        sleep 0.05
    done
}

wait_port() { # name pid port: poll until something accepts TCP connections on 127.0.0.1:port
    local name=$1 pid=$2 port=$3 deadline
    deadline=$((SECONDS + READY_TIMEOUT))
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        kill -0 "$pid" 2>/dev/null || die "$name exited during start-up"
        ((SECONDS < deadline)) || die "$name did not accept connections on port $port within ${READY_TIMEOUT}s"
        sleep 0.05
    done
}

# On exit: stops RUN_PIDS and SERVER_PIDS, shows the last lines of the temp dir's logs
# when the script failed, removes TMP unless KEEP_TMP=1, and exits with the script's status.
cleanup() {
    local rc=$? pid f
    trap - EXIT INT TERM
    for pid in ${RUN_PIDS[@]+"${RUN_PIDS[@]}"} ${SERVER_PIDS[@]+"${SERVER_PIDS[@]}"}; do
        stop_pid "$pid"
    done
    if ((STATUS != 0 && rc != 130 && rc != 143)); then
        for f in "$TMP"/*.log "$TMP"/*.out; do
            [[ -s $f ]] || continue
            log "--- last lines of $(basename "$f")"
            tail -n 15 "$f" >&2 || true
        done
    fi
    if [[ $KEEP_TMP == 1 ]]; then log "kept $TMP"; else rm -rf "$TMP"; fi
    exit "$rc"
}

# Runs cleanup on exit, and makes Ctrl-C and SIGTERM exit (130, 143) through it.
install_cleanup() {
    trap cleanup EXIT
    trap 'log "interrupted"; exit 130' INT
    trap 'log "terminated"; exit 143' TERM
}
