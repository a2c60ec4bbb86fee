"""Fixtures: a real Strawberry upstream, gqlgate processes, the demo.

The gqlgate binary is taken from ``$GQLGATE_BIN`` (``make integration`` sets it
to the debug build), else ``.build/debug/gqlgate``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import typing
import urllib.request
from pathlib import Path

import pytest

from harness import (
    HERE,
    REPO_ROOT,
    NotReady,
    Process,
    ProcessGroup,
    address_in_use,
    clean_env,
    free_port,
    post_graphql,
    wait_for_http,
    wait_for_port,
    wait_until,
)

START_TIMEOUT = float(os.environ.get("GQLGATE_TEST_START_TIMEOUT", "30"))

# Every process still running, for failure reports.
_RUNNING: list[Process] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: typing.Any) -> typing.Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for proc in list(_RUNNING):
            try:
                report.sections.append((f"process {proc.name} (pid {proc.pid})", proc.describe()))
            except Exception as e:  # noqa: BLE001 - a report must never break the run
                report.sections.append((f"process {proc.name}", f"(no output: {e})"))


# ---------------------------------------------------------------------------
# The binary


def _binary_path() -> Path:
    env = os.environ.get("GQLGATE_BIN")
    return Path(env) if env else REPO_ROOT / ".build" / "debug" / "gqlgate"


@pytest.fixture(scope="session")
def gqlgate_bin() -> str:
    path = _binary_path()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"gqlgate binary not found at {path}: build it (make build) or set GQLGATE_BIN", pytrace=False
        )
    return str(path)


@pytest.fixture(scope="session")
def proc_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("processes")


# ---------------------------------------------------------------------------
# Strawberry upstream


@dataclasses.dataclass
class Upstream:
    port: int
    proc: Process

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/graphql"

    def path(self, p: str) -> str:
        return f"{self.base}{p}"

    def counters(self) -> dict[str, int]:
        with urllib.request.urlopen(f"{self.base}/counters", timeout=5) as r:
            return json.loads(r.read())

    def count(self, path: str = "/graphql") -> int:
        return self.counters().get(path, 0)

    def book_count(self) -> int:
        """bookCount asked directly (not counted in ``counters``)."""
        r = post_graphql(self.url, "{ bookCount }", headers={"X-Test-Probe": "1"})
        assert r.status == 200, str(r)
        return r.json()["data"]["bookCount"]


def _start_with_port_retry(
    start: typing.Callable[[], tuple[Process, typing.Callable[[], None]]], attempts: int = 3
) -> Process:
    """Start a server on a fresh free port, again if that port was taken meanwhile."""
    last: typing.Optional[Exception] = None
    for _ in range(attempts):
        proc, wait = start()
        try:
            wait()
            return proc
        except NotReady as e:
            last = e
            if proc.exited() and address_in_use(proc):
                continue
            proc.stop()
            raise
    assert last is not None
    raise last


@pytest.fixture(scope="session")
def strawberry_upstream(proc_dir: Path) -> typing.Iterator[Upstream]:
    group = ProcessGroup(proc_dir, _RUNNING)
    ports: list[int] = []

    def start() -> tuple[Process, typing.Callable[[], None]]:
        port = free_port()
        ports.append(port)
        proc = group.start(
            "strawberry-upstream",
            [sys.executable, str(HERE / "upstream_app.py"), "--port", str(port)],
            env=clean_env({"PYTHONUNBUFFERED": "1"}),
            cwd=HERE,
        )
        return proc, lambda: wait_for_http(f"http://127.0.0.1:{port}/counters", timeout=START_TIMEOUT, alive=proc)

    try:
        proc = _start_with_port_retry(start)
        yield Upstream(port=ports[-1], proc=proc)
    finally:
        group.stop_all()


# ---------------------------------------------------------------------------
# gqlgate


@dataclasses.dataclass
class Gateway:
    port: int
    proc: Process
    config_path: typing.Optional[Path] = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/graphql"

    def path(self, p: str) -> str:
        return f"{self.base}{p}"


class GatewayFactory:
    """``gqlgate(upstream=..., config=..., args=[...], env={...})`` starts a gateway and waits for /healthz."""

    def __init__(self, binary: str, group: ProcessGroup, tmp: Path, default_upstream: typing.Callable[[], str]):
        self.binary = binary
        self.group = group
        self.tmp = tmp
        self.default_upstream = default_upstream
        self.started: list[Gateway] = []
        self._n = 0

    def write_config(self, text: str) -> Path:
        self._n += 1
        path = self.tmp / f"gqlgate-{self._n}.yaml"
        path.write_text(text)
        return path

    def __call__(
        self,
        upstream: typing.Optional[str] = None,
        *,
        config: typing.Optional[str] = None,
        args: typing.Sequence[str] = (),
        env: typing.Optional[dict[str, str]] = None,
        use_upstream_flag: bool = True,
        ready: typing.Optional[typing.Callable[[int], bool]] = None,
    ) -> Gateway:
        """A gqlgate on a free port, once it answers: ``ready(port)``, by default ``GET /healthz`` is 200."""
        config_path = self.write_config(config) if config is not None else None
        if upstream is None and use_upstream_flag:
            upstream = self.default_upstream()
        ports: list[int] = []

        def start() -> tuple[Process, typing.Callable[[], None]]:
            port = free_port()
            ports.append(port)
            argv = [self.binary, "run", "--listen", f"127.0.0.1:{port}"]
            if use_upstream_flag:
                argv += ["--upstream", typing.cast(str, upstream)]
            if config_path is not None:
                argv += ["--config", str(config_path)]
            argv += list(args)
            proc = self.group.start("gqlgate", argv, env=clean_env(env), cwd=self.tmp)
            if ready is not None:
                return proc, lambda: wait_until(lambda: ready(port), timeout=START_TIMEOUT, what="gqlgate ready", alive=proc)
            return proc, lambda: wait_for_http(
                f"http://127.0.0.1:{port}/healthz", timeout=START_TIMEOUT, alive=proc
            )

        proc = _start_with_port_retry(start)
        gw = Gateway(port=ports[-1], proc=proc, config_path=config_path)
        self.started.append(gw)
        return gw

    def check_alive(self) -> list[str]:
        """Gateways that died on their own (a crash is a failure whatever the test saw)."""
        return [gw.proc.describe() for gw in self.started if gw.proc.exited() and not gw.proc.stopped]


def _factory_fixture(
    request: pytest.FixtureRequest, binary: str, proc_dir: Path, tmp: Path
) -> typing.Iterator[GatewayFactory]:
    group = ProcessGroup(proc_dir, _RUNNING)
    factory = GatewayFactory(
        binary, group, tmp, lambda: request.getfixturevalue("strawberry_upstream").url
    )
    try:
        yield factory
        dead = factory.check_alive()
        if dead:
            pytest.fail("gqlgate exited while the test ran:\n" + "\n".join(dead), pytrace=False)
    finally:
        group.stop_all()


@pytest.fixture
def gqlgate(
    request: pytest.FixtureRequest, gqlgate_bin: str, proc_dir: Path, tmp_path: Path
) -> typing.Iterator[GatewayFactory]:
    yield from _factory_fixture(request, gqlgate_bin, proc_dir, tmp_path)


@pytest.fixture(scope="module")
def gateway(
    gqlgate_bin: str,
    proc_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
    strawberry_upstream: Upstream,
) -> typing.Iterator[Gateway]:
    """One gqlgate with the default config in front of the Strawberry upstream, shared by a module."""
    group = ProcessGroup(proc_dir, _RUNNING)
    factory = GatewayFactory(gqlgate_bin, group, tmp_path_factory.mktemp("gateway"), lambda: strawberry_upstream.url)
    try:
        yield factory(strawberry_upstream.url)
        dead = factory.check_alive()
        if dead:
            pytest.fail("gqlgate exited while the module's tests ran:\n" + "\n".join(dead), pytrace=False)
    finally:
        group.stop_all()


# ---------------------------------------------------------------------------
# demo


@dataclasses.dataclass
class Demo:
    port: int
    demo_port: int
    proc: Process

    @property
    def url(self) -> str:
        """gqlgate's GraphQL endpoint."""
        return f"http://127.0.0.1:{self.port}/graphql"

    @property
    def api_url(self) -> str:
        """The embedded demo API, directly."""
        return f"http://127.0.0.1:{self.demo_port}/graphql"


@pytest.fixture
def demo(gqlgate_bin: str, proc_dir: Path, tmp_path: Path) -> typing.Iterator[Demo]:
    group = ProcessGroup(proc_dir, _RUNNING)
    ports: list[tuple[int, int]] = []

    def start() -> tuple[Process, typing.Callable[[], None]]:
        p1, p2 = free_port(), free_port()
        while p2 == p1:
            p2 = free_port()
        ports.append((p1, p2))
        proc = group.start(
            "gqlgate-demo",
            [gqlgate_bin, "demo", "--listen", f"127.0.0.1:{p1}", "--demo-listen", f"127.0.0.1:{p2}"],
            env=clean_env(),
            cwd=tmp_path,
        )

        def wait() -> None:
            wait_for_port("127.0.0.1", p2, timeout=START_TIMEOUT, alive=proc)
            wait_for_http(f"http://127.0.0.1:{p1}/healthz", timeout=START_TIMEOUT, alive=proc)

        return proc, wait

    try:
        proc = _start_with_port_retry(start)
        p1, p2 = ports[-1]
        yield Demo(port=p1, demo_port=p2, proc=proc)
        assert not proc.exited(), "gqlgate demo exited while the test ran:\n" + proc.describe()
    finally:
        group.stop_all()
