#!/usr/bin/env bash
# Static checks of the Kubernetes manifests: every kustomization under deploy/kubernetes rendered
# with `kubectl kustomize`, then validated against the Kubernetes 1.30 API schemas (the oldest Kubernetes with native sidecars and the preStop sleep action)
# (kubernetes-validate --strict: unknown fields are errors) and checked with checkov. A checkov
# finding left in place is skipped in a `checkov.io/skipN` annotation that gives the reason.
# `make lint-containers` runs this with kubernetes-validate and checkov from .venv-lint on PATH.
# Without kubectl (the machine image carries kubectl 1.32; Debian's kubernetes-client 1.20 is too
# old for these kustomizations) nothing can be rendered: the checks are skipped, and it says so.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v kubectl >/dev/null 2>&1; then
    echo "lint-kubernetes: SKIPPED: kubectl is not installed, so deploy/kubernetes cannot be rendered"
    exit 0
fi

rendered=$(mktemp -d)
trap 'rm -rf "$rendered"' EXIT
for kustomization in deploy/kubernetes/base deploy/kubernetes/overlays/*/; do
    kustomization=${kustomization%/}
    name=$(basename "$kustomization")
    echo "lint-kubernetes: kubectl kustomize $kustomization"
    kubectl kustomize "$kustomization" >"$rendered/$name.yaml"
    kubernetes-validate --quiet --strict --kubernetes-version 1.30.0 "$rendered/$name.yaml"
done
echo "lint-kubernetes: checkov on the rendered manifests"
checkov --quiet --compact --skip-download --framework kubernetes --directory "$rendered"
