#!/usr/bin/env bash
# Removes what earlier runs of the tests and `make image` left on this machine that a new
# machine would not have, so that the next `make test` proves the install steps: podman's pods,
# containers and images (but the base image of the current recipe, a cache keyed on the content
# of scripts/base-image.sh: a changed recipe is made anew). Everything else the tests build and
# keep (.venv, .venv-lint, .build, .build-fuzz, dist) lives in the checkout, which CI clones anew.
# .ci/run runs it first.
#
#   scripts/clean-machine.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v podman >/dev/null 2>&1; then
    echo "clean-machine: no podman, nothing to remove"
    exit 0
fi
podman=(scripts/podman.sh)
keep=$(scripts/base-image.sh --name)
"${podman[@]}" pod rm --all --force >/dev/null 2>&1 || true
"${podman[@]}" rm --all --force --time 0 >/dev/null 2>&1 || true
removed=0
while read -r id name; do
    [ "$name" = "$keep" ] && continue
    # By name, so that another name of the kept image only loses that name; untagged ones by id.
    target=$name
    [ "$name" = "<none>:<none>" ] && target=$id
    if "${podman[@]}" rmi --force "$target" >/dev/null 2>&1; then removed=$((removed + 1)); fi
done < <("${podman[@]}" images --all --format '{{.ID}} {{.Repository}}:{{.Tag}}' | sort -u)
"${podman[@]}" image prune --force >/dev/null 2>&1 || true  # dangling layers only
left=$("${podman[@]}" images --format '{{.Repository}}:{{.Tag}}' | tr '\n' ' ')
echo "clean-machine: removed $removed podman images; kept: ${left:-none}"
