#!/usr/bin/env bash
# Makes the runtime stage's base image, docker.io/library/debian:bookworm-slim, for podman on a
# machine that cannot pull it: Debian bookworm (minbase) from this machine's Debian mirror with
# debootstrap, imported and tagged under that name. Does nothing when podman already has the
# image (pulled, or made by an earlier run). Needs root and debootstrap (make image-deps).
#
#   scripts/base-image.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

image=docker.io/library/debian:bookworm-slim
if scripts/podman.sh image exists "$image"; then
    exit 0
fi

mirror=
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
    mirror=$(awk '$1 == "deb" && $2 !~ /^\[/ {print $2; exit}' /etc/apt/sources.list)
fi
if [ -z "$mirror" ]; then
    echo "base-image: no Debian mirror found in /etc/apt; pull $image instead" >&2
    exit 1
fi

rootfs=$(mktemp -d)
trap 'rm -rf "$rootfs"' EXIT
echo "base-image: making $image with debootstrap from $mirror"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || {
    tail -20 "$rootfs.log" >&2
    rm -f "$rootfs.log"
    exit 1
}
rm -f "$rootfs.log"
# What debian:bookworm-slim leaves out as well: package caches, lists, documentation but the
# copyright files.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/*
find "$rootfs"/usr/share/doc -type f ! -name copyright -delete
# The configuration the registry's image carries: a PATH, and bash as the command.
tar -C "$rootfs" -c . | scripts/podman.sh import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' - "$image" >/dev/null
echo "base-image: $image made"
