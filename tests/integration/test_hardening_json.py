"""JSON hardening: a request that repeats a key gqlgate reads is refused before anything runs
(POST and both WebSocket subprotocols), nesting is bounded, and cached answers keep every
number's text, from memory and from Redis."""

from __future__ import annotations

import json
import shutil
import typing
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from conftest import _RUNNING
from harness import ProcessGroup, assert_gateway_error, curl, free_port, post_graphql, wait_for_port
from upstream_app import RAW_NUMBERS

# Past limits.max_depth (15): refused by gqlgate if it were the query gqlgate read.
DEEP_QUERY = "{ " + "book(id: 1) { " * 20 + "id" + " }" * 20 + " }"
SMUGGLING_PAYLOAD = '{"query": %s, "query": "{ hello }"}' % json.dumps(DEEP_QUERY)
NESTED = "[" * 100_000


def message(resp) -> str:
    return resp.json()["errors"][0]["message"]


# ---------------------------------------------------------------------------
# HTTP


@pytest.mark.parametrize(
    "body, key",
    [
        (SMUGGLING_PAYLOAD, "query"),
        ('{"query": "{ hello }", "variables": {"name": "a", "name": "b"}}', "name"),
        ('{"query": "{ hello }", "extensions": {"persistedQuery": {"version": 1, "version": 1}}}', "version"),
    ],
    ids=["query", "variables", "extensions"],
)
def test_a_body_that_repeats_a_key_is_400_and_never_reaches_the_upstream(gateway, strawberry_upstream, body, key):
    before = strawberry_upstream.count()
    resp = curl(gateway.url, data=body)
    assert_gateway_error(resp, 400, "BAD_REQUEST")
    assert f'repeats the key "{key}"' in message(resp), str(resp)
    assert strawberry_upstream.count() == before


def test_json_nested_past_the_bound_is_400_and_the_gateway_keeps_serving(gateway):
    for body in (NESTED, '{"query": "{ hello }", "variables": {"v": %s}}' % NESTED):
        resp = curl(gateway.url, data=body)
        assert_gateway_error(resp, 400, "BAD_REQUEST")
        assert "nests arrays and objects deeper than 512 levels" in message(resp), str(resp)
    assert post_graphql(gateway.url, "{ hello }").json() == {"data": {"hello": "Hello, world!"}}


# ---------------------------------------------------------------------------
# WebSocket


def initialised(gw, subprotocol: str) -> ClientConnection:
    ws = connect(f"ws://127.0.0.1:{gw.port}/graphql", subprotocols=[subprotocol], open_timeout=10, legacy=True)
    ws.send('{"type": "connection_init"}')
    assert receive(ws)["type"] == "connection_ack"
    return ws


def receive(ws: ClientConnection) -> dict:
    """The next message other than a keep-alive."""
    while (answer := json.loads(ws.recv(timeout=10)))["type"] == "ka":
        pass
    return answer


def close_code(ws: ClientConnection) -> int:
    try:
        while True:
            ws.recv(timeout=10)
    except ConnectionClosed as closed:
        assert closed.rcvd is not None, f"no close frame from gqlgate: {closed}"
        return closed.rcvd.code


@pytest.mark.parametrize("payload", [SMUGGLING_PAYLOAD, '{"query": "{ a }", "variables": {"v": %s}}' % NESTED])
def test_graphql_transport_ws_closes_4400_on_a_repeated_key_or_deep_nesting(gateway, strawberry_upstream, payload):
    before = strawberry_upstream.count()
    with initialised(gateway, "graphql-transport-ws") as ws:
        ws.send('{"type": "subscribe", "id": "1", "payload": %s}' % payload)
        assert close_code(ws) == 4400
    assert strawberry_upstream.count() == before


def test_graphql_ws_answers_a_repeated_key_with_an_error_for_that_operation(gateway, strawberry_upstream):
    before = strawberry_upstream.count()
    with initialised(gateway, "graphql-ws") as ws:
        ws.send('{"type": "start", "id": "1", "payload": %s}' % SMUGGLING_PAYLOAD)
        assert receive(ws) == {
            "type": "error", "id": "1", "payload": {"message": 'The message repeats the key "query" in one object'}
        }
        assert strawberry_upstream.count() == before
        ws.send(json.dumps({"type": "start", "id": "2", "payload": {"query": "{ hello }"}}))
        assert receive(ws) == {"type": "data", "id": "2", "payload": {"data": {"hello": "Hello, world!"}}}


# ---------------------------------------------------------------------------
# Cached answers


@pytest.fixture
def redis_url(proc_dir: Path) -> typing.Iterator[str]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (make deps)")
    group = ProcessGroup(proc_dir, _RUNNING)
    port = free_port()
    try:
        proc = group.start(
            "redis-server", ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        )
        wait_for_port("127.0.0.1", port, timeout=10, alive=proc)
        yield f"redis://127.0.0.1:{port}"
    finally:
        group.stop_all()


@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_cached_answers_keep_every_numbers_text_on_miss_and_hit(request, gqlgate, strawberry_upstream, backend):
    store = f"backend: redis\n  redis_url: {request.getfixturevalue('redis_url')}\n  " if backend == "redis" else ""
    gw = gqlgate(strawberry_upstream.path("/raw-numbers"), config=f"cache:\n  enabled: true\n  {store}default_ttl: 30s\n")
    query = "{ stats { ratio huge negativeZero big exponent list } }"
    expected = ('{"data": {"stats": {%s}}}' % RAW_NUMBERS).encode()
    assert b"1e400" in expected and b"12345678901234567890" in expected and b"-0," in expected
    miss = post_graphql(gw.url, query)
    assert (miss.status, miss.header("X-Cache")) == (200, "MISS"), str(miss)
    assert miss.body == expected
    hit = post_graphql(gw.url, query)
    assert (hit.status, hit.header("X-Cache")) == (200, "HIT"), str(hit)
    assert hit.body == expected
