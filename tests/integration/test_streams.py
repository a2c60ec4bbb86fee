"""Results as HTTP streams: Server-Sent Events (graphql-sse, distinct connections
mode) and Apollo multipart subscriptions, read with ``curl -N`` as a user would."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request

import pytest

from harness import assert_gateway_error, closed_port, curl, get_graphql, post_graphql, wait_until

SSE = {"Accept": "text/event-stream"}
MULTIPART = {"Accept": 'multipart/mixed;subscriptionSpec="1.0", application/json'}
MULTIPART_TYPE = 'multipart/mixed;boundary="graphql";subscriptionSpec=1.0'



def sse_events(body: bytes) -> list[tuple[str, str]]:
    """The (event, data) pairs of an event stream, comments left out."""
    events = []
    for block in body.decode().split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if not lines:
            continue
        event = next(line[len("event: "):] for line in lines if line.startswith("event: "))
        data = "\n".join(line[len("data:"):].removeprefix(" ") for line in lines if line.startswith("data:"))
        events.append((event, data))
    return events


def multipart_parts(body: bytes) -> list[dict]:
    """The JSON bodies of an Apollo multipart answer, checking the delimiters."""
    text = body.decode()
    assert text.startswith("\r\n--graphql\r\n"), repr(text)
    assert text.endswith("\r\n--graphql--\r\n"), repr(text)
    parts = text[len("\r\n--graphql"):-len("--\r\n")].split("\r\n--graphql")[:-1]
    out = []
    for part in parts:
        head, _, payload = part.partition("\r\n\r\n")
        assert head == "\r\ncontent-type: application/json", repr(part)
        out.append(json.loads(payload))
    return out


def assert_sse_answer(r) -> None:
    assert r.status == 200, str(r)
    assert r.header("Content-Type") == "text/event-stream; charset=utf-8", str(r)
    assert r.header("Cache-Control") == "no-cache", str(r)
    assert r.header("X-Request-Id"), str(r)
    assert (r.header("Transfer-Encoding") or "").lower() == "chunked", str(r)


def stream_lines(url: str, body: dict, headers: dict[str, str], timeout: float = 15.0) -> list[tuple[float, bytes]]:
    """Runs ``curl -N`` and returns each output line with the time it arrived."""
    cmd = ["curl", "-sS", "-N", "--max-time", str(timeout), "-H", "Content-Type: application/json", "--data-binary", json.dumps(body)]
    for k, v in headers.items():
        cmd += ["-H", f"{k}: {v}"]
    proc = subprocess.Popen(cmd + [url], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    lines = []
    start = time.monotonic()
    for line in proc.stdout:
        lines.append((time.monotonic() - start, line))
    assert proc.wait() == 0
    return lines


# ---------------------------------------------------------------------------
# Server-Sent Events


def test_query_over_sse_is_one_next_then_complete(gateway):
    r = post_graphql(gateway.url, "{ hello }", headers=SSE, extra=["-N"])
    assert_sse_answer(r)
    text = r.body.decode()
    # A comment flushes the headers, then the result as it came from the upstream, then complete.
    assert text.startswith(":\n\nevent: next\ndata: "), repr(text)
    assert text.endswith("\n\nevent: complete\ndata:\n\n"), repr(text)
    data = text[len(":\n\nevent: next\ndata: "):-len("\n\nevent: complete\ndata:\n\n")]
    assert "\n" not in data
    assert json.loads(data) == {"data": {"hello": "Hello, world!"}}


def test_mutation_over_sse_runs_once(gateway, strawberry_upstream):
    before = strawberry_upstream.book_count()
    r = post_graphql(gateway.url, 'mutation { addBook(title: "Streams", author: "SSE") { title author } }', headers=SSE)
    assert_sse_answer(r)
    events = sse_events(r.body)
    assert [e for e, _ in events] == ["next", "complete"], str(r)
    assert json.loads(events[0][1]) == {"data": {"addBook": {"title": "Streams", "author": "SSE"}}}
    assert events[1][1] == ""
    assert strawberry_upstream.book_count() == before + 1


def test_get_query_over_sse(gateway):
    r = get_graphql(gateway.url, "query Hi($n: String) { hello(name: $n) }", variables={"n": "GET"}, headers=SSE)
    assert_sse_answer(r)
    events = sse_events(r.body)
    assert events == [("next", events[0][1]), ("complete", "")], str(r)
    assert json.loads(events[0][1]) == {"data": {"hello": "Hello, GET!"}}


def test_field_errors_stay_in_the_next_event(gateway):
    r = post_graphql(gateway.url, "{ hello fail }", headers=SSE)
    assert_sse_answer(r)
    events = sse_events(r.body)
    assert [e for e, _ in events] == ["next", "complete"], str(r)
    result = json.loads(events[0][1])
    assert result["data"] == {"hello": "Hello, world!", "fail": None}
    assert result["errors"][0]["message"] == "fail resolver always fails"


def test_an_upstream_error_answer_goes_in_the_stream(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/status/500"))
    r = post_graphql(gw.url, "{ hello }", headers=SSE)
    assert_sse_answer(r)
    events = sse_events(r.body)
    assert [e for e, _ in events] == ["next", "complete"], str(r)
    assert json.loads(events[0][1])["errors"][0]["extensions"]["code"] == "UPSTREAM_TEST_STATUS"


# ---------------------------------------------------------------------------
# Multipart


def test_query_over_multipart_is_one_part(gateway):
    r = post_graphql(gateway.url, "{ hello }", headers=MULTIPART, extra=["-N"])
    assert r.status == 200, str(r)
    assert r.header("Content-Type") == MULTIPART_TYPE, str(r)
    assert r.header("X-Request-Id"), str(r)
    assert multipart_parts(r.body) == [{"payload": {"data": {"hello": "Hello, world!"}}}]


def test_apollo_clients_accept_header_is_understood(gateway):
    apollo = {"Accept": "multipart/mixed;boundary=graphql;subscriptionSpec=1.0,application/json"}
    r = post_graphql(gateway.url, "{ hello }", headers=apollo)
    assert r.header("Content-Type") == MULTIPART_TYPE, str(r)
    assert multipart_parts(r.body) == [{"payload": {"data": {"hello": "Hello, world!"}}}]


# ---------------------------------------------------------------------------
# Errors before the stream starts: ordinary JSON answers


@pytest.mark.parametrize(
    ("accept", "media_type", "parse_failed_status"),
    [(SSE, "application/graphql-response+json", 400), (MULTIPART, "application/json", 200)],
    ids=["sse", "multipart"],
)
def test_bad_requests_before_the_stream_are_json(gateway, accept, media_type, parse_failed_status):
    """In the JSON media type the Accept names beside the stream (gqlgate's own choice,
    application/graphql-response+json, when it names none): a syntax error is a 200 in application/json."""
    bad_body = curl(gateway.url, data=b'{"query": ', headers=accept)
    assert_gateway_error(bad_body, 400, "BAD_REQUEST")
    parse_failed = post_graphql(gateway.url, "{ hello", headers=accept)
    assert_gateway_error(parse_failed, parse_failed_status, "GRAPHQL_PARSE_FAILED")
    for r in (bad_body, parse_failed):
        assert r.header("Content-Type") == media_type + "; charset=utf-8", str(r)


def test_mutation_over_get_with_sse_is_405(gateway):
    r = get_graphql(gateway.url, 'mutation { addBook(title: "x", author: "y") { id } }', headers=SSE)
    assert_gateway_error(r, 405, "METHOD_NOT_ALLOWED")
    assert r.header("Allow") == "POST", str(r)


@pytest.mark.parametrize("accept", [SSE, MULTIPART], ids=["sse", "multipart"])
def test_client_keys_are_checked_before_the_stream(gqlgate, tmp_path, accept):
    keys = tmp_path / "client-keys"
    keys.write_text("stream-key\n")
    gw = gqlgate(config=f"clients:\n  api_keys_file: {keys}\n")
    assert_gateway_error(post_graphql(gw.url, "{ hello }", headers=accept), 401, "UNAUTHENTICATED")
    ok = post_graphql(gw.url, "{ hello }", headers={**accept, "X-Api-Key": "stream-key"})
    assert ok.status == 200, str(ok)
    assert ok.header("Content-Type") in ("text/event-stream; charset=utf-8", MULTIPART_TYPE), str(ok)


def test_an_unreachable_upstream_before_the_stream_is_502(gqlgate):
    gw = gqlgate(f"http://127.0.0.1:{closed_port()}/graphql", config="retry:\n  max_attempts: 1\n")
    assert_gateway_error(post_graphql(gw.url, "{ hello }", headers=SSE), 502, "UPSTREAM_UNAVAILABLE")


@pytest.mark.parametrize("accept", ["*/*", "application/json", "multipart/mixed"])
def test_subscription_without_a_streaming_accept_is_400(gateway, accept):
    r = post_graphql(gateway.url, "subscription { countdown(from: 2) }", headers={"Accept": accept})
    assert_gateway_error(r, 400, "SUBSCRIPTION_TRANSPORT_REQUIRED")


# ---------------------------------------------------------------------------
# Subscriptions (through the upstream WebSocket transport)


def test_subscription_over_sse_streams_each_event_then_complete(gateway):
    lines = stream_lines(gateway.url, {"query": "subscription { countdown(from: 3) }"}, SSE)
    body = b"".join(line for _, line in lines)
    events = sse_events(body)
    assert [e for e, _ in events] == ["next"] * 4 + ["complete"], body
    assert [json.loads(d) for _, d in events[:4]] == [{"data": {"countdown": n}} for n in (3, 2, 1, 0)]
    # Events leave as they happen (the upstream waits 50 ms between them), not at the end.
    arrivals = [t for t, line in lines if line.startswith(b"event: next")]
    assert arrivals[-1] - arrivals[0] >= 0.1, lines


def test_subscription_over_multipart_sends_a_part_per_event(gateway):
    r = post_graphql(gateway.url, "subscription { countdown(from: 2) }", headers=MULTIPART, extra=["-N"])
    assert r.header("Content-Type") == MULTIPART_TYPE, str(r)
    parts = [p for p in multipart_parts(r.body) if p != {}]
    assert parts == [{"payload": {"data": {"countdown": n}}} for n in (2, 1, 0)]


def test_sse_keep_alive_comments_flow_during_a_subscription(gqlgate):
    gw = gqlgate(config="subscriptions:\n  keepalive: 200ms\n")
    lines = stream_lines(gw.url, {"query": "subscription { countdown(from: 20) }"}, SSE)
    comments = [line for _, line in lines if line == b":\n"]
    assert len(comments) >= 3, lines


def test_subscription_validation_errors_arrive_in_the_stream(gateway):
    r = post_graphql(gateway.url, "subscription { countdown(from: 1) nope }", headers=SSE)
    assert_sse_answer(r)
    events = sse_events(r.body)
    assert [e for e, _ in events] == ["next", "complete"], str(r)
    assert json.loads(events[0][1])["errors"]


# ---------------------------------------------------------------------------
# Clients that close their streams

STREAMS = 200


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def gauge(base: str, name: str) -> float:
    with urllib.request.urlopen(f"{base}/metrics", timeout=5) as r:
        lines = r.read().decode().splitlines()
    return next(float(line.split()[1]) for line in lines if line.startswith(name + " "))


def upstream_active(upstream) -> int:
    with urllib.request.urlopen(upstream.path("/subscriptions"), timeout=5) as r:
        return json.loads(r.read())["active"]


def open_stream(port: int, accept: str) -> socket.socket:
    """A subscription that sends nothing until a book is added, its answer's head read."""
    body = json.dumps({"query": "subscription { bookAdded { title } }"}).encode()
    head = f"POST /graphql HTTP/1.1\r\nHost: gqlgate\r\nContent-Type: application/json\r\nAccept: {accept}\r\n"
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
    return sock


@pytest.mark.parametrize("accept", [SSE["Accept"], MULTIPART["Accept"]], ids=["sse", "multipart"])
def test_streams_their_clients_close_end_at_once_with_the_upstream_subscription(gqlgate, strawberry_upstream, accept):
    # No keep-alive is written while the test waits (multipart's heartbeat comes every 5 s): the close itself must end each stream.
    gw = gqlgate(config="subscriptions:\n  keepalive: 60s\n")
    baseline, active_before = open_fds(gw.proc.pid), upstream_active(strawberry_upstream)
    streams = [open_stream(gw.port, accept) for _ in range(STREAMS)]
    for sock in streams:
        assert sock.recv(4096).startswith(b"HTTP/1.1 200 "), "no stream"
    wait_until(lambda: gauge(gw.base, "gqlgate_subscriptions_active") == STREAMS, timeout=10, what="every subscription", alive=gw.proc)
    assert upstream_active(strawberry_upstream) > active_before
    assert open_fds(gw.proc.pid) >= baseline + STREAMS
    for sock in streams:
        sock.close()
    wait_until(
        lambda: open_fds(gw.proc.pid) <= baseline + 5 and gauge(gw.base, "gqlgate_subscriptions_active") == 0
        and upstream_active(strawberry_upstream) == active_before,
        timeout=4, what="the streams, their descriptors and the upstream subscription to end", alive=gw.proc,
    )  # fmt: skip
