#!/usr/bin/env bash
# Installs those of the Debian packages named on the command line that are
# not installed yet: `apt-get update` then `apt-get install -y`, as root
# directly or else through sudo. Does nothing when every package is there.
#
#   scripts/install-deps.sh libmicrohttpd-dev libcurl4-openssl-dev ...
set -euo pipefail

if [ "$#" -eq 0 ]; then
    exit 0
fi

if ! command -v dpkg >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: not a Debian/Ubuntu system; make sure these (or your system's equivalents) are installed: $*" >&2
    exit 0
fi

missing=()
for pkg in "$@"; do
    if ! dpkg -s "$pkg" 2>/dev/null | grep -q '^Status: install ok installed'; then
        missing+=("$pkg")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "install-deps: missing packages: ${missing[*]}; run as root or install sudo" >&2
    exit 1
fi

echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=3 update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=3 install -y -q --no-install-recommends "${missing[@]}"
