"""Subscriptions (and any operation) over WebSocket, end to end.

Clients speak graphql-transport-ws or legacy graphql-ws to gqlgate; gqlgate
keeps one upstream WebSocket per credential set to the Strawberry upstream.
Real clients: the ``gql`` library for both subprotocols, ``websockets`` for
raw protocol checks.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import textwrap
import typing
import urllib.request

import pytest
from gql import Client, GraphQLRequest
from gql.transport.websockets import WebsocketsTransport
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from conftest import _RUNNING, START_TIMEOUT
from harness import HERE, ProcessGroup, clean_env, curl, free_port, post_graphql, wait_for_http, wait_until

TRANSPORT_WS = "graphql-transport-ws"
LEGACY_WS = "graphql-ws"


def ws_url(gw: typing.Any) -> str:
    return f"ws://127.0.0.1:{gw.port}/graphql"


# ---------------------------------------------------------------------------
# Upstreams of a test's own (their subscription counts start at zero)


class OwnUpstream:
    """A Strawberry upstream on a fixed port that can be killed and started again."""

    def __init__(self, group: ProcessGroup, ws_protocols: str = "graphql-transport-ws,graphql-ws") -> None:
        self.group = group
        self.port = free_port()
        self.ws_protocols = ws_protocols
        self.proc: typing.Any = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/graphql"

    def start(self) -> None:
        self.proc = self.group.start(
            "own-upstream",
            [sys.executable, str(HERE / "upstream_app.py"), "--port", str(self.port), "--ws-protocols", self.ws_protocols],
            env=clean_env({"PYTHONUNBUFFERED": "1"}),
            cwd=HERE,
        )
        wait_for_http(f"http://127.0.0.1:{self.port}/counters", timeout=START_TIMEOUT, alive=self.proc)

    def kill(self) -> None:
        self.proc.popen.kill()
        self.proc.popen.wait(timeout=10)
        self.proc.stop()

    def stats(self) -> dict[str, int]:
        """Upstream subscriptions active now and started so far, WebSockets open now."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/subscriptions", timeout=5) as r:
            return json.loads(r.read())


@pytest.fixture
def own_upstream_factory(proc_dir) -> typing.Iterator[typing.Callable[..., OwnUpstream]]:
    group = ProcessGroup(proc_dir, _RUNNING)

    def make(ws_protocols: str = "graphql-transport-ws,graphql-ws") -> OwnUpstream:
        upstream = OwnUpstream(group, ws_protocols)
        upstream.start()
        return upstream

    try:
        yield make
    finally:
        group.stop_all()


@pytest.fixture
def own_upstream(own_upstream_factory) -> OwnUpstream:
    return own_upstream_factory()


# ---------------------------------------------------------------------------
# Raw protocol helpers


def open_ws(gw: typing.Any, subprotocols: typing.Sequence[str] = (TRANSPORT_WS,), headers: typing.Any = None) -> ClientConnection:
    return connect(ws_url(gw), subprotocols=list(subprotocols), additional_headers=headers, open_timeout=10, legacy=True)


def send(ws: ClientConnection, message: dict) -> None:
    ws.send(json.dumps(message))


def recv(ws: ClientConnection, timeout: float = 10) -> dict:
    return json.loads(ws.recv(timeout=timeout))


def recv_type(ws: ClientConnection, *types: str, timeout: float = 10) -> dict:
    """The next message of one of ``types``, skipping keep-alives."""
    while True:
        message = recv(ws, timeout)
        if message["type"] in types:
            return message
        assert message["type"] in ("ka", "ping", "pong"), message


def recv_end(ws: ClientConnection, timeout: float = 10) -> dict:
    """The next ``complete`` or ``error``, skipping the events still on their way."""
    while True:
        message = recv_type(ws, "next", "data", "complete", "error", timeout=timeout)
        if message["type"] not in ("next", "data"):
            return message


def close_code(ws: ClientConnection, timeout: float = 10) -> int:
    """Reads until the server closes; returns its close code."""
    try:
        while True:
            ws.recv(timeout=timeout)
    except ConnectionClosed as closed:
        assert closed.rcvd is not None, f"no close frame from gqlgate: {closed}"
        return closed.rcvd.code


def initialised(gw: typing.Any, subprotocol: str = TRANSPORT_WS, payload: typing.Any = None, headers: typing.Any = None) -> ClientConnection:
    ws = open_ws(gw, (subprotocol,), headers)
    init: dict = {"type": "connection_init"}
    if payload is not None:
        init["payload"] = payload
    send(ws, init)
    assert recv_type(ws, "connection_ack")["type"] == "connection_ack"
    return ws


def subscribe(ws: ClientConnection, id: str, query: str, variables: typing.Any = None, legacy: bool = False) -> None:
    payload: dict = {"query": query}
    if variables is not None:
        payload["variables"] = variables
    send(ws, {"type": "start" if legacy else "subscribe", "id": id, "payload": payload})


# ---------------------------------------------------------------------------
# gql helpers


def gql_subscribe(url: str, subprotocol: str, query: str, variables: typing.Any = None, **transport: typing.Any) -> list[dict]:
    """Every result of a subscription made with the gql client, until it completes."""

    async def run() -> list[dict]:
        client = Client(transport=WebsocketsTransport(url=url, subprotocols=[subprotocol], **transport))
        results: list[dict] = []
        async with client as session:
            async for result in session.subscribe(GraphQLRequest(query, variable_values=variables)):
                results.append(result)
        return results

    return asyncio.run(asyncio.wait_for(run(), timeout=30))


def gql_execute(url: str, subprotocol: str, query: str) -> dict:
    async def run() -> dict:
        client = Client(transport=WebsocketsTransport(url=url, subprotocols=[subprotocol]))
        async with client as session:
            return await session.execute(GraphQLRequest(query))

    return asyncio.run(asyncio.wait_for(run(), timeout=30))


COUNTDOWN = "subscription Countdown($from: Int!) { countdown(from: $from) }"
TICKS = "subscription { ticks(intervalMs: 50) }"


# ---------------------------------------------------------------------------
# Real clients, both subprotocols


@pytest.mark.parametrize("subprotocol", [TRANSPORT_WS, LEGACY_WS])
def test_a_finite_subscription_delivers_every_event_and_completes(gateway, subprotocol):
    results = gql_subscribe(ws_url(gateway), subprotocol, COUNTDOWN, {"from": 3})
    assert results == [{"countdown": 3}, {"countdown": 2}, {"countdown": 1}, {"countdown": 0}]


@pytest.mark.parametrize("subprotocol", [TRANSPORT_WS, LEGACY_WS])
def test_queries_and_mutations_over_the_socket_get_their_result(gateway, subprotocol):
    assert gql_execute(ws_url(gateway), subprotocol, "query { hello(name: \"socket\") }") == {"hello": "Hello, socket!"}
    added = gql_execute(ws_url(gateway), subprotocol, 'mutation { addBook(title: "Socket", author: "WS") { title } }')
    assert added == {"addBook": {"title": "Socket"}}


def test_events_caused_by_mutations_sent_through_gqlgate(gqlgate, own_upstream):
    gw = gqlgate(own_upstream.url)
    with initialised(gw) as ws:
        subscribe(ws, "books", "subscription { bookAdded { title author } }")
        wait_until(lambda: own_upstream.stats()["active"] == 1, timeout=5, what="the upstream subscription")
        for title in ("Solaris", "Ubik"):
            r = post_graphql(gw.url, "mutation($t: String!) { addBook(title: $t, author: \"A\") { id } }", {"t": title})
            assert r.status == 200, str(r)
            event = recv_type(ws, "next")
            assert event == {"type": "next", "id": "books", "payload": {"data": {"bookAdded": {"title": title, "author": "A"}}}}


def test_a_gateway_error_becomes_the_protocols_error_message(gateway):
    with initialised(gateway) as ws:
        subscribe(ws, "bad", "subscription { ticks(")
        error = recv_type(ws, "error")
        assert error["id"] == "bad"
        assert error["payload"][0]["extensions"]["code"] == "GRAPHQL_PARSE_FAILED"
        subscribe(ws, "bad", "subscription { countdown(from: 0) }")
        assert recv_type(ws, "next")["payload"] == {"data": {"countdown": 0}}
        assert recv_type(ws, "complete") == {"type": "complete", "id": "bad"}


def test_an_upstream_error_reaches_the_client_as_error(gateway):
    with initialised(gateway, LEGACY_WS) as ws:
        subscribe(ws, "1", "subscription { nope }", legacy=True)
        error = recv_type(ws, "error")
        assert error["id"] == "1" and "nope" in error["payload"]["message"]


# ---------------------------------------------------------------------------
# Raw protocol checks


def test_subprotocol_negotiation(gateway):
    with open_ws(gateway, (LEGACY_WS, TRANSPORT_WS)) as ws:
        assert ws.subprotocol == TRANSPORT_WS
    with open_ws(gateway, (LEGACY_WS,)) as ws:
        assert ws.subprotocol == LEGACY_WS
    with open_ws(gateway, ("mqtt",)) as ws:
        assert ws.subprotocol is None
        assert close_code(ws) == 4406


def test_bad_upgrade_requests_get_400_and_426(gateway):
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13"}
    r = curl(gateway.url, headers=upgrade)
    assert r.status == 400 and r.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST", str(r)
    r = curl(gateway.url, headers={**upgrade, "Sec-WebSocket-Version": "8", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
    assert r.status == 426 and r.header("Sec-WebSocket-Version") == "13", str(r)


@pytest.mark.parametrize(
    "messages, code",
    [
        (["not json"], 4400),
        ([{"type": "subscribe", "id": "1", "payload": {"query": "subscription { ticks }"}}], 4401),
        ([{"type": "connection_init"}, {"type": "connection_init"}], 4429),
        (
            [
                {"type": "connection_init"},
                {"type": "subscribe", "id": "1", "payload": {"query": TICKS}},
                {"type": "subscribe", "id": "1", "payload": {"query": TICKS}},
            ],
            4409,
        ),
    ],
    ids=["unreadable", "subscribe-before-ack", "second-init", "id-in-use"],
)
def test_protocol_violations_close_with_their_code(gateway, messages, code):
    with open_ws(gateway) as ws:
        for message in messages:
            ws.send(message if isinstance(message, str) else json.dumps(message))
        assert close_code(ws) == code


def test_no_connection_init_in_time_closes_4408(gqlgate):
    gw = gqlgate(config="subscriptions: {init_timeout: 300ms}\n")
    with open_ws(gw) as ws:
        assert close_code(ws, timeout=5) == 4408


def test_ping_gets_pong_and_idle_connections_get_keepalives(gqlgate):
    gw = gqlgate(config="subscriptions: {keepalive: 200ms}\n")
    with initialised(gw) as ws:
        send(ws, {"type": "ping"})
        assert recv(ws) == {"type": "pong"}
        assert recv(ws, timeout=5) == {"type": "ping"}
    with initialised(gw, LEGACY_WS) as ws:
        assert recv(ws) == {"type": "ka"}
        assert recv(ws, timeout=5) == {"type": "ka"}


def test_max_per_connection_refuses_one_more_subscription(gqlgate):
    gw = gqlgate(config="subscriptions: {max_per_connection: 2}\n")
    with initialised(gw) as ws:
        for id in ("1", "2", "3"):
            subscribe(ws, id, TICKS)
        messages = [recv_type(ws, "next", "error") for _ in range(8)]
        errors = [m for m in messages if m["type"] == "error"]
        assert [(e["id"], e["payload"][0]["extensions"]["code"]) for e in errors] == [("3", "TOO_MANY_SUBSCRIPTIONS")]
        assert {m["id"] for m in messages if m["type"] == "next"} == {"1", "2"}


def test_websockets_count_against_max_connections(gqlgate):
    """gqlgate takes an upgraded socket over from libmicrohttpd: it still counts until it is closed."""
    gw = gqlgate(config="server: {max_connections: 3}\n")
    held: list[ClientConnection] = []
    # A place may still be held by the fixture's readiness probe, whose close a busy server can
    # read after the first upgrades come: each of the three waits for a free place.
    for _ in range(3):
        wait_until(lambda: held.append(initialised(gw)) is None, timeout=10, what="a place for a WebSocket", alive=gw.proc)
    try:
        assert not healthz_answers(gw.port)  # a fourth connection is closed as it is accepted
        held.pop().close()
        wait_until(lambda: healthz_answers(gw.port), timeout=10, what="a place to free up", alive=gw.proc)
        for ws in held:
            send(ws, {"type": "ping"})
            assert recv(ws) == {"type": "pong"}
    finally:
        for ws in held:
            ws.close()


def healthz_answers(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: gqlgate\r\nConnection: close\r\n\r\n")
        try:
            return sock.recv(1024).startswith(b"HTTP/1.1 200")
        except ConnectionResetError:
            return False


# ---------------------------------------------------------------------------
# Upstream bookkeeping: teardown, dedupe, reconnect


KILLED_CLIENT = textwrap.dedent(
    """
    import json, sys
    from websockets.sync.client import connect
    ws = connect(sys.argv[1], subprotocols=["graphql-transport-ws"], legacy=True)
    ws.send(json.dumps({"type": "connection_init"}))
    ws.recv()
    ws.send(json.dumps({"type": "subscribe", "id": "1", "payload": {"query": sys.argv[2]}}))
    while True:
        message = json.loads(ws.recv())
        if message["type"] == "next":
            print("receiving", flush=True)
    """
)


def test_a_client_killed_mid_stream_ends_its_upstream_subscription_within_2s(gqlgate, own_upstream):
    gw = gqlgate(own_upstream.url)
    client = subprocess.Popen(
        [sys.executable, "-c", KILLED_CLIENT, ws_url(gw), TICKS], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert client.stdout is not None
        assert client.stdout.readline().strip() == "receiving"
        assert own_upstream.stats()["active"] == 1
    finally:
        client.send_signal(signal.SIGKILL)
        client.wait(timeout=10)
    wait_until(lambda: own_upstream.stats()["active"] == 0, timeout=2, what="the upstream subscription to end")


def test_a_client_that_completes_ends_the_upstream_subscription(gqlgate, own_upstream):
    gw = gqlgate(own_upstream.url)
    with initialised(gw) as ws:
        subscribe(ws, "1", TICKS)
        recv_type(ws, "next")
        send(ws, {"type": "complete", "id": "1"})
        wait_until(lambda: own_upstream.stats()["active"] == 0, timeout=2, what="the upstream subscription to end")


def test_thirty_identical_subscriptions_are_one_upstream_subscription(gqlgate, own_upstream):
    gw = gqlgate(own_upstream.url)
    clients = [initialised(gw, TRANSPORT_WS if n % 2 else LEGACY_WS) for n in range(30)]
    try:
        for n, ws in enumerate(clients):
            subscribe(ws, f"s{n}", TICKS, legacy=n % 2 == 0)
        for n, ws in enumerate(clients):
            assert recv_type(ws, "next", "data")["id"] == f"s{n}"
        stats = own_upstream.stats()
        assert (stats["active"], stats["started"], stats["connections"]) == (1, 1, 1), stats
        assert active_gauges(gw) == (30, 1, 30)
    finally:
        for ws in clients:
            ws.close()
    wait_until(lambda: own_upstream.stats()["active"] == 0, timeout=2, what="the shared upstream subscription to end")
    wait_until(lambda: active_gauges(gw) == (0, 0, 0), timeout=2, what="the gauges to drop to 0")


def active_gauges(gw: typing.Any) -> tuple[float, float, float]:
    """gqlgate_subscriptions_active, gqlgate_upstream_subscriptions_active, gqlgate_websocket_connections_active."""
    names = ("gqlgate_subscriptions_active", "gqlgate_upstream_subscriptions_active", "gqlgate_websocket_connections_active")
    values = {}
    for line in curl(gw.path("/metrics")).text.splitlines():
        name, _, value = line.partition(" ")
        if name in names:
            values[name] = float(value)
    return tuple(values.get(name, 0.0) for name in names)  # type: ignore[return-value]


def test_the_upstream_restarting_mid_stream_keeps_the_clients_stream(gqlgate, own_upstream):
    gw = gqlgate(own_upstream.url)
    with initialised(gw) as ws:
        subscribe(ws, "1", TICKS)
        while recv_type(ws, "next")["payload"]["data"]["ticks"] < 10:
            pass
        own_upstream.kill()
        own_upstream.start()
        wait_until(lambda: own_upstream.stats()["active"] == 1, timeout=10, what="the subscription made again upstream")
        # The new upstream process counts from 0 again: a tick below 10 on the same id came through it.
        while True:
            message = recv_type(ws, "next", "complete", "error")
            assert (message["type"], message["id"]) == ("next", "1"), message
            if message["payload"]["data"]["ticks"] < 10:
                break


def test_a_legacy_graphql_ws_upstream(gqlgate, own_upstream_factory):
    legacy = own_upstream_factory("graphql-ws")
    gw = gqlgate(legacy.url, config="upstream: {ws_protocol: graphql-ws}\n")
    for subprotocol in (TRANSPORT_WS, LEGACY_WS):
        assert gql_subscribe(ws_url(gw), subprotocol, COUNTDOWN, {"from": 1}) == [{"countdown": 1}, {"countdown": 0}]


def test_upstream_credentials_and_ws_init_payload_reach_connection_init(gqlgate, own_upstream):
    gw = gqlgate(
        own_upstream.url,
        config=textwrap.dedent(
            """
            auth:
              headers: {X-Upstream-Key: s3cret}
              ws_init_payload: {tenant: blue}
            """
        ),
    )
    [result] = gql_subscribe(ws_url(gw), TRANSPORT_WS, "subscription { connectionParams }")
    assert json.loads(result["connectionParams"]) == {"X-Upstream-Key": "s3cret", "tenant": "blue"}


# ---------------------------------------------------------------------------
# Client keys


@pytest.fixture
def keyed_gateway(gqlgate, tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text("k-123\n")
    return gqlgate(config=f"clients: {{api_keys_file: {keys}}}\n")


def test_client_keys_in_the_upgrade_headers(keyed_gateway):
    with initialised(keyed_gateway, headers={"X-Api-Key": "k-123"}) as ws:
        subscribe(ws, "1", "subscription { countdown(from: 0) }")
        assert recv_type(ws, "next")["payload"] == {"data": {"countdown": 0}}
    results = gql_subscribe(ws_url(keyed_gateway), LEGACY_WS, COUNTDOWN, {"from": 0}, headers={"Authorization": "Bearer k-123"})
    assert results == [{"countdown": 0}]


def test_client_keys_in_connection_init(keyed_gateway):
    with initialised(keyed_gateway, payload={"X-Api-Key": "k-123"}):
        pass
    results = gql_subscribe(ws_url(keyed_gateway), TRANSPORT_WS, COUNTDOWN, {"from": 0}, init_payload={"Authorization": "Bearer k-123"})
    assert results == [{"countdown": 0}]


def test_no_valid_client_key_is_refused(keyed_gateway):
    with open_ws(keyed_gateway) as ws:
        send(ws, {"type": "connection_init", "payload": {"X-Api-Key": "wrong"}})
        assert close_code(ws) == 4403
    with open_ws(keyed_gateway, (LEGACY_WS,)) as ws:
        send(ws, {"type": "connection_init"})
        assert recv(ws)["type"] == "connection_error"
        assert close_code(ws) == 1011


# ---------------------------------------------------------------------------
# Reload and drain


def reload(gw: typing.Any, config: str) -> None:
    """Writes ``config`` and sends SIGHUP; returns once gqlgate logged the reload."""
    done = gw.proc.stderr().count('"msg":"reloaded"')
    gw.config_path.write_text(config)
    gw.proc.popen.send_signal(signal.SIGHUP)
    wait_until(lambda: gw.proc.stderr().count('"msg":"reloaded"') > done, timeout=10, what="the reload")


def test_sighup_keeps_live_subscriptions_unless_their_upstream_settings_change(gqlgate, own_upstream):
    gw = gqlgate(own_upstream.url, config="cache: {default_ttl: 30s}\n")
    with initialised(gw) as ws:
        subscribe(ws, "1", TICKS)
        recv_type(ws, "next")
        reload(gw, "cache: {default_ttl: 5s}\n")
        for _ in range(3):
            assert recv_type(ws, "next")["id"] == "1"
        assert (own_upstream.stats()["active"], own_upstream.stats()["started"]) == (1, 1)
        reload(gw, "subscriptions: {keepalive: 10s}\n")
        assert recv_end(ws) == {"type": "complete", "id": "1"}
        wait_until(lambda: own_upstream.stats()["active"] == 0, timeout=2, what="the old upstream subscription to end")
        subscribe(ws, "2", "subscription { countdown(from: 0) }")
        assert recv_type(ws, "next")["payload"] == {"data": {"countdown": 0}}




def test_sigterm_completes_live_subscriptions_before_exit(gqlgate):
    gw = gqlgate()
    with initialised(gw) as ws:
        subscribe(ws, "live", TICKS)
        recv_type(ws, "next")
        gw.proc.popen.send_signal(signal.SIGTERM)
        assert recv_end(ws) == {"type": "complete", "id": "live"}
        assert close_code(ws) == 1001
    assert gw.proc.popen.wait(timeout=15) == 0
    gw.proc.stop()
