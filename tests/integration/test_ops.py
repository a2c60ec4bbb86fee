"""Operations: metrics, access log, readiness, drain on SIGTERM, reload on SIGHUP."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import threading
import typing
import uuid

import pytest

from conftest import _RUNNING, START_TIMEOUT
from harness import (
    GRAPHQL_RESPONSE,
    HERE,
    ProcessGroup,
    assert_gateway_error,
    clean_env,
    curl,
    free_port,
    post_graphql,
    wait_for_http,
    wait_until,
)

CONTRACT_METRICS = [
    "gqlgate_requests_total",
    "gqlgate_request_duration_seconds",
    "gqlgate_upstream_requests_total",
    "gqlgate_upstream_duration_seconds",
    "gqlgate_retries_total",
    "gqlgate_cache_hits_total",
    "gqlgate_cache_misses_total",
    "gqlgate_cache_bytes",
    "gqlgate_subscriptions_active",
    "gqlgate_upstream_subscriptions_active",
    "gqlgate_websocket_connections_active",
    "gqlgate_token_refreshes_total",
]

SERIES = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$")


def scrape(gw) -> dict[str, float]:
    """Every series of GET /metrics, ``name{labels}`` -> value."""
    r = curl(gw.path("/metrics"))
    assert r.status == 200, str(r)
    assert (r.header("Content-Type") or "").startswith("text/plain"), str(r)
    series: dict[str, float] = {}
    for line in r.text.splitlines():
        m = SERIES.match(line)
        if m:
            series[m.group(1)] = float(m.group(2))
    return series


def log_records(proc) -> list[dict]:
    """The JSON records gqlgate wrote to stderr so far."""
    records = []
    for line in proc.stderr().splitlines():
        if line.startswith("{"):
            records.append(json.loads(line))
    return records


def find_record(proc, **fields: typing.Any) -> typing.Optional[dict]:
    for record in log_records(proc):
        if all(record.get(k) == v for k, v in fields.items()):
            return record
    return None


def wait_for_record(proc, timeout: float = 10, **fields: typing.Any) -> dict:
    wait_until(lambda: find_record(proc, **fields) is not None, timeout=timeout, what=f"log record {fields}", alive=proc)
    return typing.cast(dict, find_record(proc, **fields))


def connection_refused(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return False
    except ConnectionRefusedError:
        return True


class Background:
    """A request sent on a thread; ``result()`` waits for its answer."""

    def __init__(self, send: typing.Callable[[], typing.Any]) -> None:
        self._result: typing.Any = None
        self._error: typing.Optional[BaseException] = None
        self._thread = threading.Thread(target=self._run, args=(send,), daemon=True)
        self._thread.start()

    def _run(self, send: typing.Callable[[], typing.Any]) -> None:
        try:
            self._result = send()
        except BaseException as e:  # noqa: BLE001 - reported by result()
            self._error = e

    def result(self, timeout: float = 20) -> typing.Any:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the request got no answer"
        if self._error is not None:
            raise self._error
        return self._result


def wait_for_exit(proc, timeout: float = 15) -> int:
    """The exit status of a gateway told to stop (which the fixtures then do not count as a crash)."""
    try:
        rc = proc.popen.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"gqlgate did not exit within {timeout}s\n{proc.describe()}")
    proc.stop()
    return rc


# ---------------------------------------------------------------------------
# Metrics and access log


def test_metrics_has_every_contract_name(gateway):
    r = curl(gateway.path("/metrics"))
    assert r.status == 200, str(r)
    for name in CONTRACT_METRICS:
        assert f"# TYPE {name} " in r.text, f"{name} missing from /metrics:\n{r.text}"


def test_counters_move_with_traffic(gateway):
    before = scrape(gateway)
    for _ in range(3):
        assert post_graphql(gateway.url, "{ hello }").status == 200
    assert post_graphql(gateway.url, "{ hello", headers=GRAPHQL_RESPONSE).status == 400
    after = scrape(gateway)

    def delta(series: str) -> float:
        return after.get(series, 0) - before.get(series, 0)

    assert delta('gqlgate_requests_total{operation="query",status="2xx"}') == 3
    assert delta('gqlgate_requests_total{operation="unknown",status="4xx"}') == 1
    assert delta('gqlgate_request_duration_seconds_count{operation="query"}') == 3
    assert delta('gqlgate_upstream_requests_total{outcome="ok"}') == 3
    assert delta("gqlgate_upstream_duration_seconds_count") == 3


def test_upstream_failures_are_counted_by_outcome(gqlgate):
    from harness import closed_port

    gw = gqlgate(f"http://127.0.0.1:{closed_port()}/graphql")
    assert_gateway_error(post_graphql(gw.url, "{ hello }"), 502, "UPSTREAM_UNAVAILABLE")
    series = scrape(gw)
    # retry.max_attempts is 3: three attempts, two of them retries.
    assert series['gqlgate_upstream_requests_total{outcome="unreachable"}'] == 3
    assert series['gqlgate_retries_total{reason="unreachable"}'] == 2
    assert series['gqlgate_requests_total{operation="query",status="5xx"}'] == 1


def test_metrics_disabled_is_404(gqlgate):
    gw = gqlgate(config="metrics: {enabled: false}\n")
    assert_gateway_error(curl(gw.path("/metrics")), 404, "NOT_FOUND")


def test_access_line_per_request(gqlgate):
    gw = gqlgate()
    request_id = f"ops-{uuid.uuid4()}"
    r = post_graphql(gw.url, "query Greeting($name: String) { hello(name: $name) }", {"name": "secret-value"},
                     headers={"X-Request-Id": request_id, "Authorization": "Bearer secret-token"})
    assert r.status == 200, str(r)
    record = wait_for_record(gw.proc, msg="request", request_id=request_id)
    assert record["level"] == "info"
    assert record["operation"] == "query"
    assert record["operation_name"] == "Greeting"
    assert record["status"] == 200
    assert record["attempts"] == 1
    assert record["upstream_status"] == 200
    assert isinstance(record["duration_ms"], (int, float)) and record["duration_ms"] >= 0
    assert "cache" not in record  # the cache is off: its status is unknown, so absent
    stderr = gw.proc.stderr()
    assert "secret-value" not in stderr and "secret-token" not in stderr


def test_refused_request_has_access_line_without_upstream_fields(gqlgate):
    gw = gqlgate()
    request_id = f"ops-{uuid.uuid4()}"
    assert post_graphql(gw.url, "{ hello", headers={"X-Request-Id": request_id, **GRAPHQL_RESPONSE}).status == 400
    record = wait_for_record(gw.proc, msg="request", request_id=request_id)
    assert record["status"] == 400
    for absent in ("operation", "operation_name", "attempts", "upstream_status"):
        assert absent not in record, record


def test_lifecycle_lines(gqlgate, strawberry_upstream):
    gw = gqlgate()
    listening = wait_for_record(gw.proc, msg="listening")
    assert listening["address"] == f"http://127.0.0.1:{gw.port}/graphql"
    assert wait_for_record(gw.proc, msg="upstream")["url"] == strawberry_upstream.url


def test_text_log_format(gqlgate):
    gw = gqlgate(config="logging: {format: text}\n")
    request_id = f"ops-{uuid.uuid4()}"
    assert post_graphql(gw.url, "{ hello }", headers={"X-Request-Id": request_id}).status == 200
    wait_until(lambda: f"request_id={request_id}" in gw.proc.stderr(), timeout=10, what="text access line", alive=gw.proc)
    line = next(l for l in gw.proc.stderr().splitlines() if f"request_id={request_id}" in l)
    assert " info request " in line and " status=200" in line, line


# ---------------------------------------------------------------------------
# Readiness


class RestartableUpstream:
    """A Strawberry upstream of this test's own, on a fixed port, that can be stopped and started again."""

    def __init__(self, group: ProcessGroup) -> None:
        self.group = group
        self.port = free_port()
        self.proc = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/graphql"

    def start(self) -> None:
        self.proc = self.group.start(
            "restartable-upstream",
            [sys.executable, str(HERE / "upstream_app.py"), "--port", str(self.port)],
            env=clean_env({"PYTHONUNBUFFERED": "1"}),
            cwd=HERE,
        )
        wait_for_http(f"http://127.0.0.1:{self.port}/counters", timeout=START_TIMEOUT, alive=self.proc)

    def stop(self) -> None:
        assert self.proc is not None
        self.proc.stop()


@pytest.fixture
def restartable_upstream(proc_dir) -> typing.Iterator[RestartableUpstream]:
    group = ProcessGroup(proc_dir, _RUNNING)
    upstream = RestartableUpstream(group)
    upstream.start()
    try:
        yield upstream
    finally:
        group.stop_all()


def readyz(gw) -> tuple[int, dict]:
    r = curl(gw.path("/readyz"))
    return r.status, r.json()


def test_readyz_follows_the_upstream(gqlgate, restartable_upstream):
    gw = gqlgate(restartable_upstream.url)
    assert readyz(gw) == (200, {"status": "ready"})
    restartable_upstream.stop()
    wait_until(lambda: readyz(gw)[0] == 503, timeout=20, what="/readyz 503 with the upstream down", alive=gw.proc)
    status, body = readyz(gw)
    assert status == 503 and body["status"] == "not ready", body
    assert curl(gw.path("/healthz")).status == 200
    restartable_upstream.start()
    wait_until(lambda: readyz(gw)[0] == 200, timeout=20, what="/readyz 200 with the upstream back", alive=gw.proc)


def test_the_cache_learns_the_upstream_schema_once_the_upstream_comes_up(gqlgate, restartable_upstream):
    restartable_upstream.stop()
    gw = gqlgate(restartable_upstream.url, config="cache: {enabled: true}\n")
    waiting = wait_for_record(gw.proc, msg="upstream schema not learned yet")
    assert waiting["level"] == "warning" and waiting["detail"] == "asking again", waiting
    restartable_upstream.start()
    learned = wait_for_record(gw.proc, timeout=20, msg="upstream schema learned")
    assert int(learned["types_with_id"]) >= 2, learned  # Book and Review
    assert [r["msg"] for r in log_records(gw.proc)].count("upstream schema not learned yet") == 1


# ---------------------------------------------------------------------------
# Drain on SIGTERM


def start_slow_request(gw, upstream, seconds: float) -> Background:
    """Sends a query taking ``seconds`` at the upstream; returns once the upstream has it."""
    before = upstream.count()
    pending = Background(lambda: post_graphql(gw.url, "query Slow($s: Float!) { slow(seconds: $s) }", {"s": seconds}, timeout=30))
    wait_until(lambda: upstream.count() > before, timeout=10, what="the slow request to reach the upstream", alive=gw.proc)
    return pending


def test_sigterm_lets_the_request_in_flight_finish(gqlgate, strawberry_upstream):
    gw = gqlgate()
    pending = start_slow_request(gw, strawberry_upstream, 2)
    gw.proc.popen.send_signal(signal.SIGTERM)
    wait_until(lambda: connection_refused(gw.port), timeout=5, what="the listening socket to close", alive=gw.proc)
    r = pending.result()
    assert r.status == 200 and r.json() == {"data": {"slow": "slept 2.0"}}, str(r)
    assert wait_for_exit(gw.proc) == 0, gw.proc.describe()
    assert find_record(gw.proc, msg="draining") is not None
    assert find_record(gw.proc, msg="stopped") is not None
    assert find_record(gw.proc, msg="drain timed out") is None


def test_sigterm_past_drain_timeout_answers_503(gqlgate, strawberry_upstream):
    gw = gqlgate(config="server: {drain_timeout: 500ms}\n")
    pending = start_slow_request(gw, strawberry_upstream, 10)
    gw.proc.popen.send_signal(signal.SIGTERM)
    r = pending.result(timeout=10)
    assert_gateway_error(r, 503, "SHUTTING_DOWN")
    assert r.time_total < 5, str(r)
    assert wait_for_exit(gw.proc) == 0, gw.proc.describe()
    assert find_record(gw.proc, msg="drain timed out")["answered_shutting_down"] == 1
    assert find_record(gw.proc, msg="request", status=503) is not None


def http_on(conn: socket.socket, path: str) -> str:
    """GET ``path`` on an open connection; the raw answer (its JSON body ends in '}')."""
    conn.sendall(f"GET {path} HTTP/1.1\r\nHost: gqlgate\r\n\r\n".encode())
    answer = b""
    while not answer.endswith(b"}"):
        chunk = conn.recv(4096)
        if not chunk:
            break
        answer += chunk
    return answer.decode()


def test_readyz_is_503_while_draining(gqlgate, strawberry_upstream):
    gw = gqlgate()
    pending = start_slow_request(gw, strawberry_upstream, 2)
    # A kept-alive connection the gateway accepted before SIGTERM still reaches it while it drains.
    with socket.create_connection(("127.0.0.1", gw.port), timeout=5) as conn:
        assert http_on(conn, "/healthz").startswith("HTTP/1.1 200")
        gw.proc.popen.send_signal(signal.SIGTERM)
        wait_until(lambda: connection_refused(gw.port), timeout=5, what="the listening socket to close", alive=gw.proc)
        answer = http_on(conn, "/readyz")
    assert answer.startswith("HTTP/1.1 503"), answer
    assert '"status":"draining"' in answer, answer
    assert pending.result().status == 200
    assert wait_for_exit(gw.proc) == 0


# ---------------------------------------------------------------------------
# Reload on SIGHUP


def echoed_headers(gw, headers: dict[str, str]) -> dict[str, str]:
    r = post_graphql(gw.url, "{ hello }", headers=headers)
    assert r.status == 200, str(r)
    return r.json()["data"]["headers"]


def test_sighup_applies_changed_forward_headers(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"), config="headers: {forward: [accept-language]}\n")
    assert "x-tenant" not in echoed_headers(gw, {"X-Tenant": "t1"})
    assert gw.config_path is not None
    gw.config_path.write_text("headers: {forward: [x-tenant]}\n")
    gw.proc.popen.send_signal(signal.SIGHUP)
    wait_for_record(gw.proc, msg="reloaded")
    # Flags keep their precedence over the file: the --upstream flag still names /echo-headers.
    assert echoed_headers(gw, {"X-Tenant": "t1"}).get("x-tenant") == "t1"


def test_sighup_with_a_broken_file_keeps_the_running_config(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"), config="headers: {forward: [x-tenant]}\n")
    assert gw.config_path is not None
    gw.config_path.write_text("headers: {forward: [x-tenant]\nretry: {max_attempts: zero}\n")
    gw.proc.popen.send_signal(signal.SIGHUP)
    failed = wait_for_record(gw.proc, msg="reload failed")
    assert failed["level"] == "error" and failed["error"], failed
    assert echoed_headers(gw, {"X-Tenant": "t1"}).get("x-tenant") == "t1"
    gw.config_path.write_text("retry: {max_attempts: 0}\n")
    gw.proc.popen.send_signal(signal.SIGHUP)
    wait_until(lambda: len([r for r in log_records(gw.proc) if r.get("msg") == "reload failed"]) == 2, timeout=10,
               what="the second reload to fail", alive=gw.proc)
    assert "retry.max_attempts" in [r for r in log_records(gw.proc) if r.get("msg") == "reload failed"][1]["error"]
    assert echoed_headers(gw, {"X-Tenant": "t1"}).get("x-tenant") == "t1"
    assert find_record(gw.proc, msg="reloaded") is None


def test_sighup_keeps_start_only_settings_and_says_so(gqlgate):
    gw = gqlgate(config="server: {max_body_bytes: 1MiB}\n")
    assert gw.config_path is not None
    gw.config_path.write_text("server: {max_body_bytes: 2MiB}\n")
    gw.proc.popen.send_signal(signal.SIGHUP)
    restart = wait_for_record(gw.proc, msg="needs restart")
    assert restart["keys"] == ["server.max_body_bytes"], restart
    wait_for_record(gw.proc, msg="reloaded")
    assert post_graphql(gw.url, "{ hello }").status == 200
