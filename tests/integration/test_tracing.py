"""Distributed tracing: gqlgate's spans reach an OTLP/HTTP receiver, decoded
with the official ``opentelemetry-proto`` package (``otlp_receiver.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid

import pytest

from harness import closed_port, curl, post_graphql, wait_until
from otlp_receiver import OTLPReceiver, attributes
from opentelemetry.proto.trace.v1 import trace_pb2

CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"
DROPPED = "gqlgate_spans_dropped_total"


@pytest.fixture
def receiver():
    receiver = OTLPReceiver()
    yield receiver
    receiver.close()


def tracing_config(endpoint: str, extra: str = "") -> str:
    return f"""
tracing:
  enabled: true
  endpoint: {endpoint}
  service_name: books-gateway
  headers:
    X-Collector-Token: "${{COLLECTOR_TOKEN:-none}}"
{extra}"""


def metric(gw, series: str) -> float:
    for line in curl(gw.path("/metrics")).text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    return 0.0


def traceparent(trace_id: str = CLIENT_TRACE, span_id: str = CLIENT_SPAN, flags: str = "01") -> str:
    return f"00-{trace_id}-{span_id}-{flags}"


def test_a_query_makes_a_server_span_and_an_attempt_span_under_the_clients_trace(gqlgate, receiver):
    gw = gqlgate(config=tracing_config(receiver.endpoint), env={"COLLECTOR_TOKEN": "collector-secret"})
    query = 'query Greeting($name: String) { hello(name: $name) }'
    r = post_graphql(gw.url, query, variables={"name": "confidential-variable"}, operation_name="Greeting",
                     headers={"traceparent": traceparent(), "tracestate": "vendor=opaque", "X-Request-Id": "trace-me-1"})
    assert r.status == 200, str(r)
    wait_until(lambda: len(receiver.spans()) == 2, timeout=10, what="two spans exported", alive=gw.proc)

    spans = receiver.spans()
    server = next(s for s in spans if s.kind == trace_pb2.Span.SPAN_KIND_SERVER)
    attempt = next(s for s in spans if s.kind == trace_pb2.Span.SPAN_KIND_CLIENT)
    assert server.trace_id.hex() == CLIENT_TRACE and attempt.trace_id.hex() == CLIENT_TRACE
    assert server.parent_span_id.hex() == CLIENT_SPAN
    assert attempt.parent_span_id == server.span_id
    assert server.trace_state == "vendor=opaque"
    assert server.start_time_unix_nano <= attempt.start_time_unix_nano <= attempt.end_time_unix_nano <= server.end_time_unix_nano
    assert server.name == "POST /graphql"

    facts = attributes(server)
    assert facts["http.request.method"] == "POST"
    assert facts["http.route"] == "/graphql"
    assert facts["http.response.status_code"] == 200
    assert facts["graphql.operation.type"] == "query"
    assert facts["graphql.operation.name"] == "Greeting"
    assert facts["graphql.document.sha256"] == hashlib.sha256(query.encode()).hexdigest()
    assert facts["gqlgate.request_id"] == "trace-me-1"
    assert facts["gqlgate.upstream.attempts"] == 1
    upstream = attributes(attempt)
    assert upstream["gqlgate.upstream.attempt"] == 1
    assert upstream["gqlgate.upstream.outcome"] == "answered"
    assert upstream["http.response.status_code"] == 200
    assert upstream["server.address"] == "127.0.0.1"

    assert receiver.service_names() == {"books-gateway"}
    assert receiver.headers[0].get("x-collector-token") == "collector-secret"
    assert receiver.headers[0].get("content-type") == "application/x-protobuf"
    exported = b"".join(request.SerializeToString() for request in receiver.requests)
    assert b"confidential-variable" not in exported
    assert b"collector-secret" not in exported

    line = next(json.loads(l) for l in gw.proc.stderr().splitlines() if "trace-me-1" in l)
    assert line["trace_id"] == CLIENT_TRACE
    assert line["span_id"] == server.span_id.hex()


def test_the_upstream_receives_a_traceparent_naming_the_attempt_span(gqlgate, receiver, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"), config=tracing_config(receiver.endpoint))
    r = post_graphql(gw.url, "{ hello }", headers={"traceparent": traceparent()})
    assert r.status == 200, str(r)
    sent = r.json()["data"]["headers"]["traceparent"]
    wait_until(lambda: len(receiver.spans()) == 2, timeout=10, what="two spans exported", alive=gw.proc)
    attempt = next(s for s in receiver.spans() if s.kind == trace_pb2.Span.SPAN_KIND_CLIENT)
    assert sent == traceparent(CLIENT_TRACE, attempt.span_id.hex(), "01")


def test_a_new_trace_starts_without_a_client_traceparent(gqlgate, receiver, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"), config=tracing_config(receiver.endpoint))
    r = post_graphql(gw.url, "{ hello }")
    sent = r.json()["data"]["headers"]["traceparent"]
    wait_until(lambda: len(receiver.spans()) == 2, timeout=10, what="two spans exported", alive=gw.proc)
    server = next(s for s in receiver.spans() if s.kind == trace_pb2.Span.SPAN_KIND_SERVER)
    assert server.parent_span_id == b""
    assert sent.split("-")[1] == server.trace_id.hex()


def test_a_clients_unsampled_trace_is_not_exported_and_its_traceparent_passes_unchanged(gqlgate, receiver, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"), config=tracing_config(receiver.endpoint))
    unsampled = traceparent(flags="00")
    r = post_graphql(gw.url, "{ hello }", headers={"traceparent": unsampled})
    assert r.json()["data"]["headers"]["traceparent"] == unsampled
    sampled = post_graphql(gw.url, "{ hello }", headers={"traceparent": traceparent(trace_id="a" * 32)})
    assert sampled.status == 200
    wait_until(lambda: len(receiver.spans()) == 2, timeout=10, what="the sampled request's spans", alive=gw.proc)
    assert {s.trace_id.hex() for s in receiver.spans()} == {"a" * 32}


def test_retries_and_cache_hits_shape_the_trace(gqlgate, receiver, strawberry_upstream):
    config = tracing_config(receiver.endpoint, """headers:
  forward: [x-fail-key, x-fail-times, x-fail-status]
retry:
  base_delay: 10ms
  max_delay: 50ms
cache:
  enabled: true
  default_ttl: 30s
""")
    gw = gqlgate(config=config)
    key = str(uuid.uuid4())
    headers = {"X-Fail-Key": key, "X-Fail-Times": "1", "X-Fail-Status": "503", "traceparent": traceparent(trace_id="b" * 32)}
    assert post_graphql(gw.url, "query Retried { hello }", headers=headers).status == 200
    wait_until(lambda: len(receiver.spans()) == 3, timeout=10, what="a server span and two attempts", alive=gw.proc)
    attempts = sorted((s for s in receiver.spans() if s.kind == trace_pb2.Span.SPAN_KIND_CLIENT),
                      key=lambda s: attributes(s)["gqlgate.upstream.attempt"])
    assert [attributes(s)["gqlgate.upstream.outcome"] for s in attempts] == ["error_status", "answered"]
    assert attributes(attempts[1])["http.request.resend_count"] == 1
    assert attempts[0].status.code == trace_pb2.Status.STATUS_CODE_ERROR

    # The same forwarded headers (part of the cache key); another trace (left out of it).
    hit = post_graphql(gw.url, "query Retried { hello }", headers=headers | {"traceparent": traceparent(trace_id="c" * 32)})
    assert hit.header("X-Cache") == "HIT", str(hit)
    wait_until(lambda: any(s.trace_id.hex() == "c" * 32 for s in receiver.spans()), timeout=10, what="the hit's span", alive=gw.proc)
    hits = [s for s in receiver.spans() if s.trace_id.hex() == "c" * 32]
    assert len(hits) == 1 and hits[0].kind == trace_pb2.Span.SPAN_KIND_SERVER
    assert attributes(hits[0])["gqlgate.cache.status"] == "HIT"


def test_a_receiver_that_is_down_costs_the_requests_nothing_and_its_spans_are_counted(gqlgate):
    gw = gqlgate(config=tracing_config(f"http://127.0.0.1:{closed_port()}/v1/traces"))
    for _ in range(10):
        assert post_graphql(gw.url, "{ hello }").status == 200
    wait_until(lambda: metric(gw, DROPPED) == 20, timeout=10, what="20 spans counted as dropped", alive=gw.proc)


def test_a_receiver_that_hangs_costs_the_requests_nothing_and_its_spans_are_counted(gqlgate, receiver):
    receiver.hold()
    gw = gqlgate(config=tracing_config(receiver.endpoint))
    for _ in range(10):
        assert post_graphql(gw.url, "{ hello }").status == 200
    # Exports time out after 10 s; every span is then counted once, exported or not.
    wait_until(lambda: metric(gw, DROPPED) == 20, timeout=30, what="20 spans counted as dropped", alive=gw.proc)


def test_tracing_off_exports_nothing_and_adds_no_traceparent(gqlgate, receiver, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"))
    r = post_graphql(gw.url, "{ hello }")
    assert "traceparent" not in r.json()["data"]["headers"]
    assert metric(gw, DROPPED) == 0


def test_check_config_redacts_the_export_headers(gqlgate_bin, tmp_path):
    import subprocess

    path = tmp_path / "gqlgate.yaml"
    path.write_text("upstream:\n  url: http://127.0.0.1:1/graphql\n" + tracing_config("http://127.0.0.1:4318/v1/traces"))
    env = dict(os.environ, COLLECTOR_TOKEN="collector-secret", OTEL_SERVICE_NAME="from-env", OTEL_TRACES_SAMPLER_ARG="0.25")
    out = subprocess.run([gqlgate_bin, "check-config", str(path)], env=env, capture_output=True, text=True, check=True).stdout
    assert "collector-secret" not in out
    assert 'service_name: "from-env"' in out
    assert "sample_ratio: 0.25" in out


def test_a_subscription_over_sse_is_one_span_that_ends_with_its_stream(gqlgate, receiver):
    gw = gqlgate(config=tracing_config(receiver.endpoint))
    r = post_graphql(gw.url, "subscription Count { countdown(from: 2) }",
                     headers={"Accept": "text/event-stream", "traceparent": traceparent(trace_id="d" * 32)})
    assert r.status == 200, str(r)
    assert r.text.count("event: next") == 3, r.text
    wait_until(lambda: any(s.trace_id.hex() == "d" * 32 for s in receiver.spans()), timeout=10, what="the subscription's span",
               alive=gw.proc)
    spans = [s for s in receiver.spans() if s.trace_id.hex() == "d" * 32]
    assert [s.kind for s in spans] == [trace_pb2.Span.SPAN_KIND_SERVER]
    assert attributes(spans[0])["graphql.operation.type"] == "subscription"
    assert attributes(spans[0])["graphql.operation.name"] == "Count"
    # The upstream sleeps 50 ms after each of the three results: a span that ended with the
    # stream's head would be shorter than the two sleeps between the first result and the last.
    assert spans[0].end_time_unix_nano - spans[0].start_time_unix_nano >= 100_000_000


# ---------------------------------------------------------------------------
# Operations on client WebSockets

from test_subscriptions_ws import (  # noqa: E402 - the WebSocket tests' helpers and killable upstream
    LEGACY_WS,
    TICKS,
    TRANSPORT_WS,
    initialised,
    own_upstream,
    own_upstream_factory,
    recv_type,
    send,
    subscribe,
)

SOCKET_SECRET = "socket-secret-key"


def spans_of(receiver: OTLPReceiver, trace_id: str) -> list:
    return [s for s in receiver.spans() if s.trace_id.hex() == trace_id]


@pytest.mark.parametrize(
    ("subprotocol", "parent_in", "ending"),
    [(TRANSPORT_WS, "upgrade", "stopped"), (LEGACY_WS, "connection_init", "connection_closed")],
)
def test_a_subscription_over_a_websocket_is_one_span_for_its_lifetime_with_the_upstream_reconnects(
    gqlgate, receiver, own_upstream, subprotocol, parent_in, ending
):
    trace_id = ("e" if parent_in == "upgrade" else "f") * 32
    legacy = subprotocol == LEGACY_WS
    gw = gqlgate(own_upstream.url, config=tracing_config(receiver.endpoint))
    parent = {"traceparent": traceparent(trace_id=trace_id)}
    payload = {"headers": {"Authorization": f"Bearer {SOCKET_SECRET}", **(parent if parent_in == "connection_init" else {})}}
    ws = initialised(gw, subprotocol, payload=payload, headers=parent if parent_in == "upgrade" else None)
    try:
        subscribe(ws, "1", TICKS, legacy=legacy)
        while recv_type(ws, "next", "data")["payload"]["data"]["ticks"] < 3:
            pass
        own_upstream.kill()
        own_upstream.start()
        wait_until(lambda: own_upstream.stats()["active"] == 1, timeout=10, what="the subscription made again upstream")
        # The new upstream process counts from 0 again: a tick below 3 came through the new connection.
        while recv_type(ws, "next", "data")["payload"]["data"]["ticks"] >= 3:
            pass
        assert spans_of(receiver, trace_id) == []  # the span lasts as long as the subscription
        if ending == "stopped":
            send(ws, {"type": "complete", "id": "1"})
    finally:
        ws.close()
    wait_until(lambda: spans_of(receiver, trace_id), timeout=10, what="the subscription's span", alive=gw.proc)

    [span] = spans_of(receiver, trace_id)
    assert span.kind == trace_pb2.Span.SPAN_KIND_SERVER
    assert span.parent_span_id.hex() == CLIENT_SPAN
    assert span.name == "subscription"
    facts = attributes(span)
    assert facts["graphql.operation.type"] == "subscription"
    assert facts["gqlgate.websocket.subprotocol"] == subprotocol
    assert facts["gqlgate.websocket.end"] == ending
    assert facts["client.address"] == "127.0.0.1"
    reconnects = [e for e in span.events if e.name == "upstream.reconnect"]
    assert reconnects, "no reconnect event"
    details = [{a.key: a.value for a in e.attributes} for e in reconnects]
    assert [d["gqlgate.upstream.reconnect.attempt"].int_value for d in details] == list(range(1, len(reconnects) + 1))
    assert details[0]["gqlgate.upstream.reconnect.reason"].string_value == "closed"
    assert all(span.start_time_unix_nano <= e.time_unix_nano <= span.end_time_unix_nano for e in reconnects)
    exported = b"".join(request.SerializeToString() for request in receiver.requests)
    assert SOCKET_SECRET.encode() not in exported


def test_a_query_over_a_websocket_is_a_server_span_over_its_upstream_attempt(gqlgate, receiver):
    gw = gqlgate(config=tracing_config(receiver.endpoint))
    trace_id = "7" * 32
    with initialised(gw, TRANSPORT_WS) as ws:
        own = {"traceparent": traceparent(trace_id=trace_id)}
        send(ws, {"type": "subscribe", "id": "q", "payload": {"query": "query Greeting { hello }", "extensions": own}})
        assert recv_type(ws, "next")["payload"] == {"data": {"hello": "Hello, world!"}}
        assert recv_type(ws, "complete")["id"] == "q"
    wait_until(lambda: len(spans_of(receiver, trace_id)) == 2, timeout=10, what="two spans exported", alive=gw.proc)
    spans = spans_of(receiver, trace_id)
    server = next(s for s in spans if s.kind == trace_pb2.Span.SPAN_KIND_SERVER)
    attempt = next(s for s in spans if s.kind == trace_pb2.Span.SPAN_KIND_CLIENT)
    assert server.name == "query Greeting"
    assert server.parent_span_id.hex() == CLIENT_SPAN
    assert attempt.parent_span_id == server.span_id
    assert attributes(server)["gqlgate.websocket.end"] == "completed"
    assert attributes(attempt)["gqlgate.upstream.outcome"] == "answered"
    # An operation on a WebSocket has no access line, as with tracing off.
    assert trace_id not in gw.proc.stderr()


def test_a_client_key_is_named_by_its_id_never_sent(gqlgate, receiver, tmp_path):
    key, other = "tenant-a-" + uuid.uuid4().hex, "tenant-b-" + uuid.uuid4().hex
    keys = tmp_path / "client-keys"
    keys.write_text(f"{key}\n{other}\n")
    gw = gqlgate(config=tracing_config(receiver.endpoint, f"clients: {{api_keys_file: {keys}}}\n"))
    http_trace, socket_trace = "8" * 32, "9" * 32

    r = post_graphql(gw.url, "{ hello }", headers={"X-Api-Key": key, "traceparent": traceparent(trace_id=http_trace)})
    assert r.status == 200, str(r)
    # Over a WebSocket the key may come in connection_init, as a browser sends it.
    with initialised(gw, TRANSPORT_WS, payload={"X-Api-Key": other}) as ws:
        send(ws, {"type": "subscribe", "id": "q", "payload": {
            "query": "{ hello }", "extensions": {"traceparent": traceparent(trace_id=socket_trace)}}})
        assert recv_type(ws, "next")["payload"] == {"data": {"hello": "Hello, world!"}}
        assert recv_type(ws, "complete")["id"] == "q"

    for trace_id, sent in ((http_trace, key), (socket_trace, other)):
        wait_until(lambda: len(spans_of(receiver, trace_id)) == 2, timeout=10, what="two spans exported", alive=gw.proc)
        server = next(s for s in spans_of(receiver, trace_id) if s.kind == trace_pb2.Span.SPAN_KIND_SERVER)
        assert attributes(server)["gqlgate.client.key_id"] == hashlib.sha256(sent.encode()).hexdigest()[:16]
    exported = b"".join(request.SerializeToString() for request in receiver.requests)
    assert key.encode() not in exported and other.encode() not in exported
