#!/usr/bin/env bash
# Creates the Python virtual environment for the integration tests and installs
# requirements-test.txt into it (or REQUIREMENTS). An existing environment is
# re-used as long as that file is unchanged since it was installed (stamp file).
#
#   VENV=.venv PYTHON=python3 scripts/venv.sh
#   VENV=.venv-lint REQUIREMENTS=requirements-lint.txt scripts/venv.sh
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3}
REQUIREMENTS=${REQUIREMENTS:-requirements-test.txt}
STAMP="$VENV/.$(basename "$REQUIREMENTS").installed"
UV_VERSION=0.13.8

venv_works() {
    [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1
}

if venv_works && [ -f "$STAMP" ] && cmp -s "$REQUIREMENTS" "$STAMP"; then
    exit 0
fi

if ! venv_works; then
    if ! command -v "$PYTHON" >/dev/null 2>&1; then
        scripts/install-deps.sh python3 python3-venv
        PYTHON=python3
    elif ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
        # Debian's own python3 needs python3-venv for `-m venv`.
        scripts/install-deps.sh python3-venv
    fi
    rm -rf "$VENV"
    echo "venv: creating $VENV with $("$PYTHON" --version 2>&1)"
    "$PYTHON" -m venv "$VENV"
fi

rm -f "$STAMP"
echo "venv: installing $REQUIREMENTS"
# uv installs the pinned packages in parallel: seconds where pip alone takes minutes for
# checkov's hundred packages.
if ! "$VENV/bin/python" -m uv --version 2>/dev/null | grep -q "^uv $UV_VERSION"; then
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "uv==$UV_VERSION"
fi
"$VENV/bin/python" -m uv pip install -q --python "$VENV/bin/python" -r "$REQUIREMENTS"
cp "$REQUIREMENTS" "$STAMP"
