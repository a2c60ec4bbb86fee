#!/usr/bin/env bash
# Builds the gqlgate image from docker/Dockerfile with docker, when its engine answers, or else
# with podman (scripts/podman.sh), and tags it gqlgate:<version> and gqlgate:latest (or the tags
# given). `make image` runs it.
#
#   scripts/image.sh host [TAG...]    target `prebuilt`: the runtime stage around dist/gqlgate
#                                     (`make dist` on this machine; a Debian bookworm machine,
#                                     since the runtime stage is bookworm)
#   scripts/image.sh source [TAG...]  default target: `make dist` in the builder stage on
#                                     SWIFT_IMAGE (needs a registry to pull it from)
#
# With podman and no runnable debian:bookworm-slim at hand, scripts/base-image.sh makes the base
# (localhost/gqlgate-base:bookworm-RECIPE) first.
# Environment: BASE_IMAGE, SWIFT_IMAGE (build arguments), IMAGE_BUILD_FLAGS (more build flags).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

from=${1:-host}
shift || true
case $from in
host | source) ;;
*)
    echo "usage: scripts/image.sh host|source [TAG...]" >&2
    exit 2
    ;;
esac

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    engine=(docker)
    network=()
elif command -v podman >/dev/null 2>&1; then
    engine=(scripts/podman.sh)
    # RUN apt-get reaches the machine's Debian mirror through the host's network.
    network=(--network host)
else
    echo "image: neither a docker engine nor podman found (make image-deps installs podman)" >&2
    exit 1
fi

# With podman, a debian:bookworm-slim in its storage that every user can run (pulled) is the
# base; without one, scripts/base-image.sh makes one (or finds the one made by the same recipe).
registry_base=docker.io/library/debian:bookworm-slim
if [ "${engine[0]}" != docker ] && [ -z "${BASE_IMAGE:-}" ] && command -v debootstrap >/dev/null 2>&1 \
    && ! { scripts/podman.sh image exists "$registry_base" \
        && scripts/podman.sh run --rm --network none --user 65532 "$registry_base" true >/dev/null 2>&1; }; then
    BASE_IMAGE=$(scripts/base-image.sh)
fi
build_args=()
[ -n "${BASE_IMAGE:-}" ] && build_args+=(--build-arg "BASE_IMAGE=$BASE_IMAGE")
[ -n "${SWIFT_IMAGE:-}" ] && build_args+=(--build-arg "SWIFT_IMAGE=$SWIFT_IMAGE")

if [ "$from" = host ]; then
    binary=dist/gqlgate
    [ -x "$binary" ] || { echo "image: $binary not found (make dist builds it)" >&2; exit 1; }
    version=$("$binary" --version)
    # A context of its own: the binary and the default config, nothing else.
    context=$(mktemp -d)
    trap 'rm -rf "$context"' EXIT
    mkdir -p "$context/dist" "$context/docker"
    cp "$binary" "$context/dist/gqlgate"
    cp docker/gqlgate.yaml "$context/docker/gqlgate.yaml"
    target=(--target prebuilt)
else
    version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/GQLGate/GQLGateVersion.swift)
    context=.
    target=()
fi

tags=("$@")
[ "${#tags[@]}" -gt 0 ] || tags=("gqlgate:$version" "gqlgate:latest")
tag_flags=()
for tag in "${tags[@]}"; do tag_flags+=(--tag "$tag"); done

revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
# shellcheck disable=SC2086 # IMAGE_BUILD_FLAGS is a list of flags
"${engine[@]}" build "${network[@]}" "${target[@]}" "${build_args[@]}" ${IMAGE_BUILD_FLAGS:-} \
    --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
    "${tag_flags[@]}" -f docker/Dockerfile "$context"
echo "image: built ${tags[*]} ($from, ${engine[0]##*/})"
