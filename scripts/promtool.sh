#!/usr/bin/env bash
# Prints the path of a promtool (Prometheus' rule and config checker) for the tests of
# deploy/prometheus: the one on PATH, else the one from Debian's `prometheus` package,
# unpacked (not installed: no server is set up or started) under .build/tools/prometheus.
# Exit 3 on a machine without apt-get and no promtool on PATH.
#
#   scripts/promtool.sh            # -> /path/to/promtool
set -euo pipefail
cd "$(dirname "$0")/.."

if command -v promtool >/dev/null 2>&1; then
    command -v promtool
    exit 0
fi

DIR=.build/tools/prometheus
BIN=$DIR/usr/bin/promtool
# The integration tests run side by side (pytest-xdist): one unpacks, the others wait for it.
mkdir -p .build/tools
exec 9>.build/tools/prometheus.lock
flock 9
if [ -x "$BIN" ]; then
    echo "$PWD/$BIN"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
    echo "promtool.sh: no promtool on PATH and no apt-get to fetch Debian's prometheus package" >&2
    exit 3
fi

download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT
if ! (cd "$download" && apt-get download -q prometheus >&2); then
    [ "$(id -u)" -eq 0 ] || { echo "promtool.sh: apt-get download prometheus failed" >&2; exit 1; }
    DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=3 update -q >&2
    (cd "$download" && apt-get download -q prometheus >&2)
fi
rm -rf "$DIR"
mkdir -p "$DIR"
dpkg-deb -x "$download"/prometheus_*.deb "$DIR"
rm -f "$DIR/usr/bin/prometheus"   # only promtool is needed
echo "$PWD/$BIN"
