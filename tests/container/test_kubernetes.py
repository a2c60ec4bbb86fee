"""The Kubernetes manifests (deploy/kubernetes), rendered with kustomize and played with podman.

Every kustomization renders with ``kubectl kustomize``, and the gqlgate.yaml it generates passes
``gqlgate check-config`` with the environment its Deployment gives gqlgate. The base is then
played with ``podman kube play``, after the changes podman 4.3 needs (each explained where it is
made, see ``for_podman``), and checked through gqlgate in the pod: /healthz, /readyz, /metrics,
the client keys of the Secret, a query over HTTP, a subscription over WebSocket.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import secrets
import shutil
import subprocess
import typing
import uuid
from pathlib import Path

import pytest
import yaml
from websockets.sync.client import connect

from conftest import REPO_ROOT, Podman
from harness import curl, free_port, wait_until

KUSTOMIZATIONS = REPO_ROOT / "deploy" / "kubernetes"
NAMES = ["base", "overlays/egress", "overlays/shared-cache"]
# What the Secrets hold on a cluster, for check-config: any value of the right form.
SECRET_STAND_INS = {"REDIS_URL": "redis://:secret@redis.example:6379/0"}
# What the manifests budget for the app's own drain after its preStop.
APP_DRAIN_SECONDS = 10

REVIEW_ADDED = "subscription { reviewAdded(episode: JEDI) { episode stars commentary } }"
CREATE_REVIEW = (
    "mutation($review: ReviewInput!) { createReview(episode: JEDI, review: $review) { episode stars commentary } }"
)


# ---------------------------------------------------------------------------
# Rendering


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


def seconds(duration: str) -> float:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)", duration)
    assert match, f"unexpected duration {duration!r}"
    return float(match[1]) * {"ms": 0.001, "s": 1, "m": 60}[match[2]]


@pytest.mark.parametrize("name", NAMES)
def test_renders_with_a_config_gqlgate_accepts(name: str, dist_binary: Path, tmp_path: Path) -> None:
    docs = render(name)
    pod = only(docs, "Deployment")["spec"]["template"]["spec"]
    gqlgate = sidecar(pod)
    config_file = tmp_path / "gqlgate.yaml"
    config_file.write_text(gqlgate_config(docs)["data"]["gqlgate.yaml"])
    # Only the environment the Deployment gives gqlgate: a ${VAR} it does not set fails here.
    env = {"PATH": "/usr/bin:/bin"}
    for var in gqlgate.get("env", []):
        env[var["name"]] = var.get("value") or SECRET_STAND_INS.get(var["name"], "from-a-secret")
    check = subprocess.run(
        [str(dist_binary), "check-config", str(config_file)],
        capture_output=True, text=True, env=env, timeout=30, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert check.returncode == 0, f"gqlgate check-config refused {name}'s gqlgate.yaml:\n{check.stderr}"

    # The file gqlgate is told to read is the one the ConfigMap is mounted as, and every file the
    # config names is on a mounted volume.
    config = yaml.safe_load(config_file.read_text())
    mounts = [m["mountPath"].rstrip("/") + "/" for m in gqlgate.get("volumeMounts", [])]
    config_path = gqlgate["args"][gqlgate["args"].index("--config") + 1]
    files = [
        config_path,
        (config.get("clients") or {}).get("api_keys_file"),
        (config.get("auth") or {}).get("bearer_token_file"),
    ]
    for path in filter(None, files):
        assert any(path.startswith(m) for m in mounts), f"{path} is on none of gqlgate's volumes {mounts}"


@pytest.mark.parametrize("name", NAMES)
def test_gqlgate_is_a_native_sidecar_that_outlasts_the_drain(name: str) -> None:
    docs = render(name)
    pod = only(docs, "Deployment")["spec"]["template"]["spec"]
    gqlgate = sidecar(pod)
    assert gqlgate.get("restartPolicy") == "Always", "gqlgate is not a native sidecar (restartPolicy: Always)"
    # The app starts only once the startup probe passes, so it cannot ask /readyz (which waits
    # for the app).
    startup = json.dumps(gqlgate["startupProbe"])
    assert "/healthz" in startup and "/readyz" not in startup
    # The app's preStop, the app's drain and then gqlgate's drain fit in the grace period, with
    # 5 s to spare (docs/deployment.md, "Upgrading without dropping subscriptions").
    config = yaml.safe_load(gqlgate_config(docs)["data"]["gqlgate.yaml"])
    drain = seconds(config["server"]["drain_timeout"])
    pre_stop = max(
        (c.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0) for c in pod["containers"]),
        default=0,
    )
    assert pod["terminationGracePeriodSeconds"] >= pre_stop + APP_DRAIN_SECONDS + drain + 5


# ---------------------------------------------------------------------------
# The base, played with podman


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


@dataclasses.dataclass
class PlayedPod:
    podman: Podman
    gateway_port: int
    api_key: str
    containers: dict[str, str]  # name in the manifest -> podman's container name

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.gateway_port}"

    def graphql(self, query: str, variables: typing.Any = None, **kw: typing.Any) -> typing.Any:
        body = {"query": query, "variables": variables} if variables is not None else {"query": query}
        headers = {"X-Api-Key": self.api_key, **kw.pop("headers", {})}
        return curl(f"{self.url}/graphql", json_body=body, headers=headers, **kw)


def pod_logs(podman: Podman, manifest: Path, deployment: str) -> str:
    listing = podman.run("ps", "--all", "--format", "{{.Names}}", check=False).stdout.split()
    logs = []
    for name in (n for n in listing if n.startswith(deployment + "-")):
        result = podman.run("logs", name, check=False)
        logs.append(f"--- {name}\n{result.stdout}{result.stderr}")
    return f"{manifest}:\n" + "\n".join(logs)


@pytest.fixture(scope="module")
def played_base(
    podman: Podman, gqlgate_image: str, tmp_path_factory: pytest.TempPathFactory
) -> typing.Iterator[PlayedPod]:
    gateway_port, api_port = free_port(), free_port()
    api_key = secrets.token_hex(16)
    docs = for_podman(
        render("base"), image=gqlgate_image, gateway_port=gateway_port, api_port=api_port, api_key=api_key
    )
    deployment = only(docs, "Deployment")["metadata"]["name"]
    manifest = tmp_path_factory.mktemp("kube") / "base.yaml"
    manifest.write_text(yaml.safe_dump_all(docs))
    try:
        podman.run("kube", "play", str(manifest), timeout=300)
        listing = json.loads(podman.run("ps", "--all", "--format", "json").stdout)
        containers = {}
        for entry in listing:
            for name in entry["Names"]:
                for wanted in ("gqlgate", "app"):
                    if name.startswith(deployment + "-") and name.endswith("-" + wanted):
                        containers[wanted] = name
        assert set(containers) == {"gqlgate", "app"}, f"{containers}\n{pod_logs(podman, manifest, deployment)}"
        played = PlayedPod(podman, gateway_port, api_key, containers)
        try:
            ready = lambda: curl(f"{played.url}/readyz", timeout=3).status == 200  # noqa: E731
            wait_until(ready, timeout=60, what="gqlgate in the pod to be ready")
        except Exception as error:
            raise AssertionError(f"{error}\n{pod_logs(podman, manifest, deployment)}") from None
        yield played
    finally:
        podman.run("kube", "down", str(manifest), timeout=120, check=False)


def test_probes_and_metrics_answer_on_gqlgates_port(played_base: PlayedPod) -> None:
    healthz = curl(f"{played_base.url}/healthz")
    assert (healthz.status, healthz.json()) == (200, {"status": "ok"})
    assert curl(f"{played_base.url}/readyz").status == 200
    metrics = curl(f"{played_base.url}/metrics")
    assert metrics.status == 200 and "gqlgate_requests_total" in metrics.text


def test_a_query_through_gqlgate_needs_a_key_from_the_secret(played_base: PlayedPod) -> None:
    answer = played_base.graphql("{ hero { name } }")
    assert (answer.status, answer.json()) == (200, {"data": {"hero": {"name": "R2-D2"}}})
    refused = played_base.graphql("{ hero { name } }", headers={"X-Api-Key": "not-" + played_base.api_key})
    assert refused.status == 401 and refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


def test_a_subscription_over_websocket_through_gqlgate(played_base: PlayedPod) -> None:
    ws_url = f"ws://127.0.0.1:{played_base.gateway_port}/graphql"
    headers = {"X-Api-Key": played_base.api_key}
    with connect(ws_url, subprotocols=["graphql-transport-ws"], additional_headers=headers, open_timeout=10) as ws:
        assert ws.subprotocol == "graphql-transport-ws"
        ws.send(json.dumps({"type": "connection_init"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "connection_ack"
        ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": REVIEW_ADDED}}))
        # The upstream subscription starts asynchronously: create reviews until one arrives.
        created: list[dict[str, typing.Any]] = []
        received: list[dict[str, typing.Any]] = []

        def a_review_arrives() -> bool:
            review = {"stars": 5, "commentary": f"kube play {uuid.uuid4()}"}
            answer = played_base.graphql(CREATE_REVIEW, {"review": review})
            created.append(answer.json()["data"]["createReview"])
            try:
                received.append(json.loads(ws.recv(timeout=1)))
            except TimeoutError:
                return False
            return True

        wait_until(a_review_arrives, timeout=30, what="a reviewAdded event through gqlgate")
        assert received[0]["id"] == "1" and received[0]["type"] == "next", received
        assert received[0]["payload"]["data"]["reviewAdded"] in created
        ws.send(json.dumps({"id": "1", "type": "complete"}))


def test_containers_run_as_65532_on_a_read_only_root(played_base: PlayedPod) -> None:
    for name in played_base.containers.values():
        result = played_base.podman.run("exec", name, "id", "-u")
        assert result.stdout.strip() == "65532", name
        write = played_base.podman.run("exec", name, "touch", "/probe-write", check=False)
        assert write.returncode != 0 and "Read-only file system" in write.stderr, name


def test_the_egress_probes_ask_gqlgate_on_loopback(played_base: PlayedPod) -> None:
    """The egress overlay's exec probes (bash's /dev/tcp, gqlgate on 127.0.0.1 there), run in the
    image against this pod's gqlgate: they pass while it answers 200 and fail on a closed port."""
    gqlgate = sidecar(only(render("overlays/egress"), "Deployment")["spec"]["template"]["spec"])
    container = played_base.containers["gqlgate"]
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        command = gqlgate[probe]["exec"]["command"]
        assert "/dev/tcp/127.0.0.1/8080" in command[-1]
        here = [*command[:-1], command[-1].replace("/8080", f"/{played_base.gateway_port}")]
        assert played_base.podman.run("exec", container, *here, check=False).returncode == 0, probe
        closed = [*command[:-1], command[-1].replace("/8080", f"/{free_port()}")]
        assert played_base.podman.run("exec", container, *closed, check=False).returncode != 0, probe
