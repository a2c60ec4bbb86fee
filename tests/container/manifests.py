"""The Kubernetes manifests of deploy/kubernetes as the tests use them: rendered with kustomize,
and the base changed the way podman 4.3 needs to play it (containers.md in shared/docs)."""

from __future__ import annotations

import copy
import shutil
import subprocess
import typing
import uuid

import pytest
import yaml

from conftest import REPO_ROOT

KUSTOMIZATIONS = REPO_ROOT / "deploy" / "kubernetes"


def kubectl() -> str:
    path = shutil.which("kubectl")
    if path is None:
        pytest.skip(
            "kubectl is not on this machine, so the kustomizations were not rendered: the machine "
            "image carries kubectl 1.32 (kustomize 5.5); Debian's kubernetes-client (1.20) is too old"
        )
    return path


def render(name: str) -> list[dict[str, typing.Any]]:
    result = subprocess.run(
        [kubectl(), "kustomize", str(KUSTOMIZATIONS / name)],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, f"kubectl kustomize {name} failed:\n{result.stderr}"
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


def only(docs: list[dict[str, typing.Any]], kind: str) -> dict[str, typing.Any]:
    found = [doc for doc in docs if doc["kind"] == kind]
    assert len(found) == 1, f"{len(found)} {kind} objects rendered, expected one"
    return found[0]


def gqlgate_config(docs: list[dict[str, typing.Any]]) -> dict[str, typing.Any]:
    """The ConfigMap that holds gqlgate.yaml."""
    found = [d for d in docs if d["kind"] == "ConfigMap" and "gqlgate.yaml" in d.get("data", {})]
    assert len(found) == 1, "expected one ConfigMap holding gqlgate.yaml"
    return found[0]


def sidecar(pod: dict[str, typing.Any]) -> dict[str, typing.Any]:
    (container,) = [c for c in pod.get("initContainers", []) if c["name"] == "gqlgate"]
    return container


def for_podman(
    docs: list[dict[str, typing.Any]], *, image: str, gateway_port: int, api_port: int, api_key: str
) -> list[dict[str, typing.Any]]:
    """The rendered base as podman 4.3 can play it on this machine (containers.md in shared/docs).
    The manifests stay what a cluster wants; each change here says why podman needs it."""
    docs = copy.deepcopy(docs)
    # podman plays Deployments and ConfigMaps; the Service, the PodDisruptionBudget and the
    # NetworkPolicy are a cluster's business.
    deployment = only(docs, "Deployment")
    config_map = gqlgate_config(docs)
    # One pod: the ports are the machine's own (host network), and two replicas would share them.
    deployment["spec"]["replicas"] = 1
    # A name of this run: podman's pod names follow it, and a pod left by an interrupted run, or
    # played by another checkout on this machine, must not clash with this one.
    deployment["metadata"]["name"] += "-" + uuid.uuid4().hex[:8]
    pod = deployment["spec"]["template"]["spec"]

    # podman 4.3 runs every init container to completion before the containers, and a native
    # sidecar never completes: gqlgate becomes an ordinary container, first in the pod.
    gqlgate = sidecar(pod)
    pod["initContainers"].remove(gqlgate)
    del gqlgate["restartPolicy"]
    pod["containers"].insert(0, gqlgate)

    # Container networking does not work here: the pod uses the machine's network, and podman
    # refuses `ports` in a hostNetwork pod.
    pod["hostNetwork"] = True
    for container in pod["containers"]:
        container.pop("ports", None)
        # podman 4.3 turns a liveness probe into a healthcheck that runs curl in the container
        # (which the image has not) on port 0 (the probe's named port went with `ports`), and
        # acts on none of them: the test asks /healthz and /readyz itself.
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            container.pop(probe, None)
        # The image built for this test, under its local tag.
        container["image"] = image
        container["imagePullPolicy"] = "Never"

    # On the machine's network, free loopback ports instead of 8080 and 4000 (which may be taken,
    # and 0.0.0.0 would open gqlgate beyond this machine).
    config = yaml.safe_load(config_map["data"]["gqlgate.yaml"])
    config["server"]["listen"] = f"127.0.0.1:{gateway_port}"
    config["upstream"]["url"] = f"http://127.0.0.1:{api_port}/graphql"
    config_map["data"]["gqlgate.yaml"] = yaml.safe_dump(config)
    app = next(c for c in pod["containers"] if c["name"] == "app")
    app["args"][app["args"].index("--demo-listen") + 1] = f"127.0.0.1:{api_port}"

    # podman 4.3 crashes on Secret volumes: the client keys come from a ConfigMap of the same name
    # and data, made here as the Secret is made on a cluster.
    keys_volume = next(v for v in pod["volumes"] if "secret" in v)
    keys_name = keys_volume.pop("secret")["secretName"]
    keys_volume["configMap"] = {"name": keys_name}
    keys = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": keys_name},
        "data": {"api-keys": api_key + "\n"},
    }
    return [config_map, keys, deployment]
