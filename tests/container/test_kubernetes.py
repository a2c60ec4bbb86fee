"""The Kubernetes manifests (deploy/kubernetes), rendered with kustomize and played with podman.

Every kustomization renders with ``kubectl kustomize``, and the gqlgate.yaml it generates passes
``gqlgate check-config`` with the environment its Deployment gives gqlgate. The base is then
played with ``podman kube play``, after the changes podman 4.3 needs (each explained where it is
made, see ``manifests.for_podman``), and checked through gqlgate in the pod: /healthz, /readyz, /metrics,
the client keys of the Secret, a query over HTTP, a subscription over WebSocket.
"""

from __future__ import annotations

import dataclasses
import json
import re
import secrets
import subprocess
import typing
import uuid
from pathlib import Path

import pytest
import yaml
from websockets.sync.client import connect

from conftest import Podman
from harness import curl, free_port, wait_until
from manifests import for_podman, gqlgate_config, only, render, sidecar

NAMES = ["base", "overlays/egress", "overlays/shared-cache"]
# What the Secrets hold on a cluster, for check-config: any value of the right form (the Redis URL
# in the Sentinel form overlays/shared-cache documents).
SECRET_STAND_INS = {
    "REDIS_URL": "redis-sentinel://:secret@redis-sentinel-0.redis-headless:26379,"
    "redis-sentinel-1.redis-headless:26379,redis-sentinel-2.redis-headless:26379/mymaster"
}
# What the manifests budget for the app's own drain after its preStop.
APP_DRAIN_SECONDS = 10

REVIEW_ADDED = "subscription { reviewAdded(episode: JEDI) { episode stars commentary } }"
CREATE_REVIEW = (
    "mutation($review: ReviewInput!) { createReview(episode: JEDI, review: $review) { episode stars commentary } }"
)


# ---------------------------------------------------------------------------
# The manifests as kustomize renders them


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
        # --skip-files: the files it names (the client keys) are mounted from Secrets on a cluster.
        [str(dist_binary), "check-config", "--skip-files", str(config_file)],
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
