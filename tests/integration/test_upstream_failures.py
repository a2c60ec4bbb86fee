"""An upstream that is down, silent or slow gives the contract's 502 / 504 quickly."""

from __future__ import annotations

import socket
import threading
import time
import typing
import uuid

import pytest

from harness import assert_gateway_error, closed_port, curl, post_graphql

MUTATION = 'mutation { addBook(title: "%s", author: "X") { id } }'


class HangUpServer:
    """Accepts a connection, reads the request, then closes it without answering."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.requests = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/graphql"

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                data = b""
                try:
                    while b"\r\n\r\n" not in data:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                except OSError:
                    pass
                if data:
                    self.requests += 1

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sock.close()


@pytest.fixture
def hang_up_server() -> typing.Iterator[HangUpServer]:
    server = HangUpServer()
    yield server
    server.close()


# ---------------------------------------------------------------------------
# 502 UPSTREAM_UNAVAILABLE


def test_upstream_down_is_502_at_once(gqlgate):
    # A refused connection is known at once: the answer must not wait for the 10 s connect timeout.
    gw = gqlgate(f"http://127.0.0.1:{closed_port()}/graphql", config="upstream:\n  connect_timeout: 10s\n")
    start = time.monotonic()
    r = post_graphql(gw.url, "{ hello }")
    elapsed = time.monotonic() - start
    assert_gateway_error(r, 502, "UPSTREAM_UNAVAILABLE")
    assert r.time_total < 5 and elapsed < 5, f"502 took {r.time_total:.3f}s (curl), {elapsed:.3f}s (wall)"


def test_upstream_down_mutation_is_502(gqlgate):
    gw = gqlgate(f"http://127.0.0.1:{closed_port()}/graphql", config="upstream:\n  connect_timeout: 10s\n")
    r = post_graphql(gw.url, MUTATION % uuid.uuid4())
    assert_gateway_error(r, 502, "UPSTREAM_UNAVAILABLE")
    assert r.time_total < 5, f"502 took {r.time_total:.3f}s"


def test_gateway_keeps_serving_while_upstream_is_down(gqlgate):
    gw = gqlgate(f"http://127.0.0.1:{closed_port()}/graphql")
    for _ in range(5):
        assert_gateway_error(post_graphql(gw.url, "{ hello }"), 502, "UPSTREAM_UNAVAILABLE")
    health = curl(gw.path("/healthz"))
    assert health.status == 200, str(health)


def test_upstream_hanging_up_is_502(gqlgate, hang_up_server):
    gw = gqlgate(hang_up_server.url)
    r = post_graphql(gw.url, "{ hello }")
    assert_gateway_error(r, 502, "UPSTREAM_UNAVAILABLE")
    assert 1 <= hang_up_server.requests <= 3, f"{hang_up_server.requests} attempts (retry.max_attempts is 3)"


def test_mutation_that_reached_the_upstream_is_not_retried(gqlgate, hang_up_server):
    gw = gqlgate(hang_up_server.url)
    r = post_graphql(gw.url, MUTATION % uuid.uuid4())
    assert_gateway_error(r, 502, "UPSTREAM_UNAVAILABLE")
    # Give a wrongly scheduled retry the time to show up.
    time.sleep(0.5)
    assert hang_up_server.requests == 1, f"the mutation was sent {hang_up_server.requests} times"


# ---------------------------------------------------------------------------
# 504 UPSTREAM_TIMEOUT


def test_slow_upstream_is_504(gqlgate):
    gw = gqlgate(config="upstream:\n  timeout: 500ms\n")
    start = time.monotonic()
    r = post_graphql(gw.url, "{ slow(seconds: 6) }")
    elapsed = time.monotonic() - start
    assert_gateway_error(r, 504, "UPSTREAM_TIMEOUT")
    # Per attempt: at most 3 attempts of 0.5 s plus backoff, never the upstream's 6 s.
    assert elapsed < 5, f"504 took {elapsed:.2f}s"


def test_timeout_is_per_attempt(gqlgate):
    gw = gqlgate(config="upstream:\n  timeout: 500ms\nretry:\n  max_attempts: 1\n")
    start = time.monotonic()
    r = post_graphql(gw.url, "{ slow(seconds: 6) }")
    elapsed = time.monotonic() - start
    assert_gateway_error(r, 504, "UPSTREAM_TIMEOUT")
    assert 0.4 <= elapsed < 4, f"one attempt with a 500ms timeout took {elapsed:.2f}s"


def test_answer_within_timeout_passes(gqlgate):
    gw = gqlgate(config="upstream:\n  timeout: 500ms\n")
    r = post_graphql(gw.url, "{ slow(seconds: 0.1) }")
    assert r.status == 200, str(r)
    assert r.json() == {"data": {"slow": "slept 0.1"}}
