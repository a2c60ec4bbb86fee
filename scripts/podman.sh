#!/usr/bin/env bash
# podman with the settings that make it run on machines like CI's (root, no cgroup v2 delegation,
# no overlay): runc, cgroupfs, vfs storage, and scripts/podman/containers.conf (no default
# ulimits). PODMAN_FLAGS replaces the flags; set it empty to use podman's own settings, and
# CONTAINERS_CONF to use another containers.conf.
#
#   scripts/podman.sh images
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/podman/containers.conf}"
read -r -a flags <<<"${PODMAN_FLAGS-"--storage-driver vfs --runtime runc --cgroup-manager cgroupfs"}"
exec podman "${flags[@]}" "$@"
