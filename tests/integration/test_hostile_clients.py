"""A hostile client's bounded random run: thousands of mutated request bodies,
GET queries and WebSocket messages against one gateway (cache on), then a
normal query must still be answered and the process's memory must stay bounded.

Every mutated request must get exactly one HTTP answer (no empty reply, no hang);
an answer gqlgate makes itself is a GraphQL error with a 4xx status and a code.
Every mutated WebSocket message must leave the socket open or closed with a
protocol close code. The run is deterministic (fixed seeds), so a failure
reproduces; the failing input is printed.
"""

from __future__ import annotations

import http.client
import json
import random
import typing
import urllib.parse

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from conftest import _factory_fixture
from harness import post_graphql, rss_kib

BODIES = 3000
GETS = 500
WS_MESSAGES = 1500
# The gateway's resident memory may grow by at most this much over the run
# (caches are bounded; a leak of one buffer per request would pass it quickly).
RSS_GROWTH_LIMIT_KIB = 96 * 1024

SEED_REQUESTS: list[dict[str, typing.Any]] = [
    {"query": "{ hello }"},
    {"query": "query Q($n: String) { hello(name: $n) books { title author } }", "variables": {"n": "x"}, "operationName": "Q"},
    {"query": "{ books { title } reviews(episode: JEDI) { stars } }"},
    {"query": "mutation { addBook(title: \"t\", author: \"a\") { title } }"},
    {"query": "{ __typename a: hello b: hello }"},
    {"query": "fragment F on Book { title } { books { ...F ... on Book { author } } }"},
    {"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "0" * 64}}},
    {"query": "{ hello }", "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "1" * 64}}},
]

FRAGMENTS = [b"{", b"}", b"[", b"]", b"(", b")", b'"', b"\\", b",", b":", b"\x00", b"\xff", b"\xc3", b"\\u0000",
             b"\\ud800", b"1e99999", b"-0", b"12345678901234567890", b"null", b"true", b'"query"', b'"variables"',
             b'"extensions"', b"{ a {", b"...", b"$", b"@", b"#", b"\n", b"\t", b"__schema", b"query", b"mutation",
             b"subscription", b"fragment", b'"""']


def mutate(rng: random.Random, data: bytes) -> bytes:
    """One to four random edits: flip, insert, delete, duplicate, splice a token, nest."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        pos = rng.randrange(len(out) + 1)
        if op == 0 and out:
            out[min(pos, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            out[pos:pos] = rng.choice(FRAGMENTS)
        elif op == 2 and out:
            del out[pos:pos + rng.randint(1, 8)]
        elif op == 3 and out:
            start = rng.randrange(len(out))
            out[pos:pos] = out[start:start + rng.randint(1, 32)]
        elif op == 4:
            opener, closer = rng.choice([(b"{", b"}"), (b"[", b"]"), (b"a{", b"}"), (b"(x:", b")"), (b"{a:", b"}")])
            n = rng.choice([10, 100, 1000, 5000])
            out[pos:pos] = opener * n + closer * rng.choice([0, n])
        elif op == 5:
            out[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 6)))
        else:
            out = out[:pos]
    return bytes(out)


def check_answer(status: int, body: bytes, what: bytes) -> None:
    assert 200 <= status < 600, f"status {status} for {what[:300]!r}"
    if status in (414, 431):
        return  # past server.max_header_bytes: libmicrohttpd answers before gqlgate sees the request
    assert status < 500 or status in (502, 503, 504), f"status {status} for {what[:300]!r}: {body[:300]!r}"
    if status >= 400:
        try:
            answer = json.loads(body)
        except ValueError:
            pytest.fail(f"status {status} without a JSON body for {what[:300]!r}: {body[:300]!r}")
        errors = answer.get("errors") if isinstance(answer, dict) else None
        assert errors, f"status {status} without errors for {what[:300]!r}: {body[:300]!r}"


class Client:
    """A kept-alive HTTP connection that reconnects when the gateway closes it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: typing.Optional[http.client.HTTPConnection] = None

    def request(self, method: str, path: str, body: typing.Optional[bytes], what: bytes) -> tuple[int, bytes]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        try:
            self.conn.request(method, path, body=body, headers=headers)
            resp = self.conn.getresponse()
            data = resp.read()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # The gateway may close a kept-alive connection between requests; the same
            # request on a new connection must then be answered.
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
            try:
                self.conn.request(method, path, body=body, headers=headers)
                resp = self.conn.getresponse()
                data = resp.read()
            except (http.client.HTTPException, OSError) as e:
                pytest.fail(f"no answer ({e!r}) for {what[:300]!r}")
        except (http.client.HTTPException, OSError) as e:
            pytest.fail(f"no answer ({e!r}) for {what[:300]!r}")
        if resp.getheader("Connection", "").lower() == "close":
            self.conn.close()
            self.conn = None
        return resp.status, data


@pytest.fixture(scope="module")
def module_gqlgate(request: pytest.FixtureRequest, gqlgate_bin: str, proc_dir: typing.Any,
                   tmp_path_factory: pytest.TempPathFactory) -> typing.Iterator[typing.Any]:
    yield from _factory_fixture(request, gqlgate_bin, proc_dir, tmp_path_factory.mktemp("hostile"))


@pytest.fixture(scope="module")
def hostile_gateway(module_gqlgate: typing.Any) -> typing.Any:
    return module_gqlgate(config="cache: {enabled: true}\nlimits: {max_depth: 15}\nlogging: {level: error}\n")


def test_random_bodies_and_queries_each_get_one_answer(hostile_gateway: typing.Any) -> None:
    gw = hostile_gateway
    warm = post_graphql(gw.url, "{ hello }")
    assert warm.status == 200, str(warm)
    rss_before = rss_kib(gw.proc.pid)
    rng = random.Random(20261125)
    client = Client(gw.port)
    for _ in range(BODIES):
        body = mutate(rng, json.dumps(rng.choice(SEED_REQUESTS)).encode())
        status, answer = client.request("POST", "/graphql", body, body)
        check_answer(status, answer, body)
    for _ in range(GETS):
        seed = rng.choice(SEED_REQUESTS)
        params = {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in seed.items()}
        key = rng.choice(list(params))
        params[key] = mutate(rng, params[key].encode()).decode("utf-8", "replace")
        path = "/graphql?" + urllib.parse.urlencode(params)
        status, answer = client.request("GET", path, None, path.encode())
        check_answer(status, answer, path.encode())
    after = post_graphql(gw.url, "{ hello }")
    assert after.status == 200 and after.json() == warm.json(), str(after)
    growth = rss_kib(gw.proc.pid) - rss_before
    assert growth < RSS_GROWTH_LIMIT_KIB, f"RSS grew by {growth} KiB over the run"


WS_SEEDS = [
    {"id": "1", "type": "subscribe", "payload": {"query": "subscription { countdown(from: 2) }"}},
    {"id": "2", "type": "subscribe", "payload": {"query": "{ hello }"}},
    {"id": "1", "type": "complete"},
    {"type": "ping", "payload": {"a": 1}},
    {"type": "pong"},
    {"id": "3", "type": "subscribe", "payload": {"query": "query Q($n: String) { hello(name: $n) }",
                                                  "variables": {"n": "x"}, "operationName": "Q"}},
]
LEGACY_SEEDS = [
    {"id": "1", "type": "start", "payload": {"query": "subscription { countdown(from: 2) }"}},
    {"id": "1", "type": "stop"},
    {"id": "2", "type": "start", "payload": {"query": "{ hello }"}},
]


def open_socket(gw: typing.Any, subprotocol: str) -> ClientConnection:
    return connect(f"ws://127.0.0.1:{gw.port}/graphql", subprotocols=[subprotocol], open_timeout=10, close_timeout=2)


def initialise(ws: ClientConnection) -> None:
    ws.send(json.dumps({"type": "connection_init", "payload": {}}))
    ack = json.loads(ws.recv(timeout=10))
    assert ack["type"] == "connection_ack", ack


def drain(ws: ClientConnection, seen: set[str]) -> None:
    """Reads whatever the gateway sent so far, without waiting for more; notes the message types."""
    while True:
        try:
            message = json.loads(ws.recv(timeout=0.01))
        except TimeoutError:
            return
        assert isinstance(message, dict) and isinstance(message.get("type"), str), message
        seen.add(message["type"])


@pytest.mark.parametrize("subprotocol,seeds,seed", [("graphql-transport-ws", WS_SEEDS, 4400), ("graphql-ws", LEGACY_SEEDS, 4401)])
def test_random_websocket_messages_keep_protocol(hostile_gateway: typing.Any, subprotocol: str,
                                                 seeds: list[dict[str, typing.Any]], seed: int) -> None:
    gw = hostile_gateway
    rng = random.Random(seed)
    closes: dict[int, int] = {}
    seen: set[str] = set()
    remaining = WS_MESSAGES // 2
    while remaining > 0:
        with open_socket(gw, subprotocol) as ws:
            initialise(ws)
            while remaining > 0:
                remaining -= 1
                message = mutate(rng, json.dumps(rng.choice(seeds)).encode())
                try:
                    ws.send(message.decode("utf-8", "replace") if rng.random() < 0.8 else message)
                    drain(ws, seen)
                except ConnectionClosed as closed:
                    code = closed.rcvd.code if closed.rcvd else 1006
                    assert code in (1000, 1002, 1003, 1007, 1008, 1009, 1011) or 4000 <= code < 5000, \
                        f"close code {code} after {message[:300]!r}"
                    closes[code] = closes.get(code, 0) + 1
                    break
    # graphql-transport-ws closes on a bad message (4400); graphql-ws answers `error` or `connection_error`.
    assert closes or {"error", "connection_error"} & seen, \
        f"no mutated message was refused: the run did not reach the protocol's checks ({seen})"
    after = post_graphql(gw.url, "{ hello }")
    assert after.status == 200 and after.json()["data"]["hello"], str(after)
