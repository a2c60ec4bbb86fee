"""Fixtures for the container tests: podman, the runtime image, the demo API.

The image is docker/Dockerfile's ``prebuilt`` target around ``dist/gqlgate``
(``make dist``: the static-stdlib release build, stripped), built once per
session by ``scripts/image.sh`` with podman as ``scripts/podman.sh`` runs it
(docs/deployment.md, "The image"). Other suites (Kubernetes manifests played
with ``podman kube play``) build on the same fixtures: ``podman``,
``gqlgate_image`` (the local tag) and ``demo_api``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import typing
import uuid
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "tests" / "integration"))

from harness import Process, free_port, wait_for_http  # noqa: E402

DIST_BINARY = REPO_ROOT / "dist" / "gqlgate"


class Podman:
    """podman with this project's settings (scripts/podman.sh)."""

    argv = [str(REPO_ROOT / "scripts" / "podman.sh")]

    def run(self, *args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [*self.argv, *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
        if check and result.returncode != 0:
            raise AssertionError(
                f"podman {' '.join(args)} exited with {result.returncode}:\n{result.stdout}\n{result.stderr}"
            )
        return result


@dataclasses.dataclass
class Container:
    """One container started with ``podman run -d``; removed at the end of its test."""

    podman: Podman
    name: str

    def logs(self) -> str:
        r = self.podman.run("logs", self.name, check=False)
        return r.stdout + r.stderr

    def state(self) -> dict[str, typing.Any]:
        out = self.podman.run("inspect", "--type", "container", "--format", "{{json .State}}", self.name).stdout
        return json.loads(out)

    def wait(self, timeout: float = 60) -> int:
        """The container's exit code once it has stopped."""
        return int(self.podman.run("wait", self.name, timeout=timeout).stdout.strip())

    def exec(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return self.podman.run("exec", self.name, *argv, check=False)

    def remove(self) -> None:
        self.podman.run("rm", "--force", "--time", "0", self.name, check=False)


@pytest.fixture(scope="session")
def podman() -> Podman:
    p = Podman()
    version = p.run("--version", check=False)
    if version.returncode != 0:
        pytest.fail("podman does not run (make image-deps installs it):\n" + version.stderr)
    return p


@pytest.fixture(scope="session")
def dist_binary() -> Path:
    """The binary the image ships, built on this machine by ``make dist``."""
    if not os.access(DIST_BINARY, os.X_OK):
        pytest.fail(f"{DIST_BINARY} not found: run `make dist` (make test-containers does)")
    return DIST_BINARY


@pytest.fixture(scope="session")
def gqlgate_image(podman: Podman, dist_binary: Path) -> typing.Iterator[str]:
    """The runtime image around dist/gqlgate, under a tag of this session; removed afterwards
    (the base image it was built on stays, for the next run). GQLGATE_TEST_IMAGE names an
    image to use instead, kept afterwards (for trying tests again without a rebuild)."""
    given = os.environ.get("GQLGATE_TEST_IMAGE")
    if given:
        podman.run("image", "exists", given)
        yield given
        return
    tag = f"localhost/gqlgate:test-{uuid.uuid4().hex[:8]}"
    build = subprocess.run(
        [str(REPO_ROOT / "scripts" / "image.sh"), "host", tag],
        capture_output=True,
        text=True,
        timeout=900,
        stdin=subprocess.DEVNULL,
        cwd=REPO_ROOT,
    )
    if build.returncode != 0:
        pytest.fail(f"scripts/image.sh host {tag} exited with {build.returncode}:\n{build.stdout}\n{build.stderr}")
    try:
        yield tag
    finally:
        podman.run("rmi", "--force", tag, check=False)


@pytest.fixture()
def start_container(podman: Podman, gqlgate_image: str) -> typing.Iterator[typing.Callable[..., Container]]:
    """``start_container(*run_flags, command=[...])``: ``podman run -d`` of the image on the
    host's network (ports are this machine's loopback ports), read-only root filesystem and
    every capability dropped unless the flags say otherwise."""
    started: list[Container] = []

    def start(*flags: str, command: typing.Sequence[str] = ()) -> Container:
        name = f"gqlgate-test-{uuid.uuid4().hex[:8]}"
        podman.run(
            "run", "--detach", "--name", name, "--network", "host", "--read-only", "--cap-drop=ALL",
            "--security-opt", "no-new-privileges", *flags, gqlgate_image, *command,
        )
        container = Container(podman, name)
        started.append(container)
        return container

    yield start
    for container in started:
        container.remove()


@dataclasses.dataclass
class DemoAPI:
    port: int
    proc: Process

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/graphql"


@pytest.fixture(scope="session")
def demo_api(dist_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> typing.Iterator[DemoAPI]:
    """``gqlgate demo --api-only`` on this machine: the upstream of the containers under test."""
    port = free_port()
    proc = Process(
        "demo-api",
        [str(dist_binary), "demo", "--api-only", "--demo-listen", f"127.0.0.1:{port}"],
        workdir=tmp_path_factory.mktemp("demo-api"),
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/healthz", timeout=30, alive=proc)
        yield DemoAPI(port=port, proc=proc)
    finally:
        proc.stop(timeout=10)
