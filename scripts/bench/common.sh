# Helpers shared by scripts/bench.sh and scripts/bench-subscriptions.sh (sourced).

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
