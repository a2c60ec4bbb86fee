#!/usr/bin/env bash
# Makes the runtime stage's base image for podman on a machine that cannot pull
# debian:bookworm-slim: Debian bookworm (minbase) from this machine's Debian mirror with
# debootstrap, with the file modes debootstrap leaves (`/` 0755), imported as
# localhost/gqlgate-base:bookworm-RECIPE, where RECIPE is the first 12 hex digits of this
# script's SHA-256. A changed recipe is so always made anew; an image of the same recipe made
# by an earlier run is kept (the cache), images of other recipes are removed. Prints the
# image's name on standard output. Needs root and debootstrap (make image-deps).
#
#   scripts/base-image.sh          make it unless there
#   scripts/base-image.sh --name   print the name only
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

recipe=$(sha256sum scripts/base-image.sh | cut -c1-12)
repository=localhost/gqlgate-base
image=$repository:bookworm-$recipe
if [ "${1:-}" = --name ]; then
    echo "$image"
    exit 0
fi
if scripts/podman.sh image exists "$image"; then
    echo "$image"
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
    echo "base-image: no Debian mirror found in /etc/apt; pull debian:bookworm-slim instead" >&2
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# mktemp -d makes a 0700 folder: the root filesystem is a folder inside it, made with the
# modes of a Debian root (0755), so that every user of the image can reach /.
rootfs=$work/rootfs
mkdir -m 0755 "$rootfs"
echo "base-image: making $image with debootstrap from $mirror" >&2
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -20 "$work/debootstrap.log" >&2
    exit 1
}
# What debian:bookworm-slim leaves out as well: package caches, lists, documentation but the
# copyright files.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/*
find "$rootfs"/usr/share/doc -type f ! -name copyright -delete
mode=$(stat -c %a "$rootfs")
[ "$mode" = 755 ] || { echo "base-image: / has mode $mode, not 755" >&2; exit 1; }
# The configuration the registry's image carries: a PATH, and bash as the command.
tar -C "$rootfs" --numeric-owner -c . | scripts/podman.sh import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' - "$image" >/dev/null
# Images of earlier recipes are of no more use.
scripts/podman.sh images --format '{{.Repository}}:{{.Tag}}' "$repository" | while read -r old; do
    [ "$old" = "$image" ] || scripts/podman.sh rmi --force "$old" >/dev/null 2>&1 || true
done
echo "base-image: $image made" >&2
echo "$image"
