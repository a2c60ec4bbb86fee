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


class FixedAnswerServer:
    """Answers every request with the same bytes and keeps the connection
    open, as an upstream that switched protocols would."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self._connections: list[socket.socket] = []
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
            self._connections.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        data = b""
        try:
            while True:
                head_end = data.find(b"\r\n\r\n")
                if head_end >= 0:
                    head = data[:head_end].decode("latin-1").lower()
                    length = next((int(line.split(":", 1)[1]) for line in head.split("\r\n") if line.startswith("content-length:")), 0)
                    if len(data) >= head_end + 4 + length:
                        data = data[head_end + 4 + length :]
                        conn.sendall(self.answer)
                        continue
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
        except OSError:
            return

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for conn in self._connections:
            conn.close()
        self.sock.close()


@pytest.fixture
def fixed_answer() -> typing.Iterator[typing.Callable[[bytes], FixedAnswerServer]]:
    servers: list[FixedAnswerServer] = []

    def start(answer: bytes) -> FixedAnswerServer:
        servers.append(FixedAnswerServer(answer))
        return servers[-1]

    yield start
    for server in servers:
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


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
        b"HTTP/1.1 600 Unknown\r\nContent-Type: application/json\r\nContent-Length: 29\r\n\r\n{\"data\":{\"hello\":\"from 600\"}}",
    ],
    ids=["switching-protocols", "status-600"],
)
def test_an_upstream_answer_without_a_final_status_is_502(gqlgate, fixed_answer, answer):
    gw = gqlgate(fixed_answer(answer).url)
    # At once: the upstream keeps its connection open, and upstream.timeout is 10 s.
    r = post_graphql(gw.url, "{ hello }", timeout=5)
    assert_gateway_error(r, 502, "UPSTREAM_UNAVAILABLE")


def test_interim_answers_before_the_final_one_are_passed_over(gqlgate, fixed_answer):
    body = b'{"data":{"hello":"after 103"}}'
    early_hints = b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
    final = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    gw = gqlgate(fixed_answer(early_hints + final).url)
    r = post_graphql(gw.url, "{ hello }", timeout=5)
    assert r.status == 200 and r.json() == {"data": {"hello": "after 103"}}, str(r)


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
