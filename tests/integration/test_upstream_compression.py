"""The upstream link compressed: gqlgate asks the upstream for compressed
answers (libcurl decodes them), passes on the decoded bytes without the
upstream's ``Content-Encoding``, compresses for the client itself, and cuts off
an answer that decodes past ``upstream.max_response_bytes`` (a gzip bomb).
"""

from __future__ import annotations

import concurrent.futures
import gzip
import http.server
import json
import re
import threading
import typing
import zlib

import brotli
import pytest

from harness import assert_gateway_error, curl, peak_rss_kib, post_graphql

QUERY = "{ books { id title } }"
# About 30 KiB of JSON that compresses well, as GraphQL answers do.
ANSWER = json.dumps(
    {"data": {"books": [{"id": str(n), "title": f"Book number {n} of the series"} for n in range(800)]}},
    separators=(",", ":"),
).encode()
# The test upstream is on loopback, which upstream.compression's default (auto) does not ask.
ASK = "upstream: {compression: true}\n"
BOMB_DECODED = 1 << 30  # what the bomb expands to: 1 GiB of spaces
BOMB_CHUNK = 1 << 20


class CompressingUpstream:
    """A GraphQL upstream on 127.0.0.1 answering every POST with ``ANSWER``.
    ``/gzip`` and ``/br`` compress it when the request's ``Accept-Encoding``
    allows; a query that names ``bomb`` gets a gzip body (about 1 MiB) that
    decodes to 1 GiB, made chunk by chunk while it is sent. Keeps each
    request's ``Accept-Encoding``."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, typing.Optional[str]]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                query = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))["query"]
                accepted = self.headers.get("Accept-Encoding")
                outer.seen.append((query, accepted))
                offered = [c.split(";")[0].strip() for c in (accepted or "").split(",")]
                if "bomb" in query and "gzip" in offered:
                    self.send_bomb()
                    return
                coding, body = None, ANSWER
                if self.path == "/gzip" and "gzip" in offered:
                    coding, body = "gzip", gzip.compress(ANSWER)
                elif self.path == "/br" and "br" in offered:
                    coding, body = "br", brotli.compress(ANSWER)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if coding:
                    self.send_header("Content-Encoding", coding)
                self.send_header("Vary", "Accept-Encoding")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def send_bomb(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Connection", "close")  # the body ends when the connection does
                self.end_headers()
                deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
                spaces = b" " * BOMB_CHUNK
                try:
                    for _ in range(BOMB_DECODED // BOMB_CHUNK):
                        self.wfile.write(deflate.compress(spaces))
                    self.wfile.write(deflate.flush())
                except (BrokenPipeError, ConnectionResetError):
                    pass  # gqlgate stopped reading: what the test wants

            def log_message(self, *args: typing.Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def upstream() -> typing.Iterator[CompressingUpstream]:
    server = CompressingUpstream()
    yield server
    server.close()


def offered(accept_encoding: typing.Optional[str]) -> set[str]:
    return {c.split(";")[0].strip() for c in (accept_encoding or "").split(",") if c.strip()}


def upstream_outcomes(gw, outcome: str) -> float:
    metrics = curl(gw.path("/metrics")).text
    match = re.search(r'^gqlgate_upstream_requests_total\{outcome="%s"\} (\S+)$' % outcome, metrics, re.M)
    return float(match.group(1)) if match else 0.0


@pytest.mark.parametrize("coding", ["gzip", "br"])
def test_the_upstream_is_asked_for_compression_and_the_client_gets_the_decoded_answer(gqlgate, upstream, coding):
    gw = gqlgate(upstream.url(f"/{coding}"), config=ASK)
    plain = post_graphql(gw.url, QUERY)
    assert plain.status == 200, str(plain)
    assert plain.body == ANSWER
    assert plain.header("content-encoding") is None, str(plain)
    assert plain.header("content-length") == str(len(ANSWER)), str(plain)
    assert {"gzip", "br"} <= offered(upstream.seen[-1][1]), upstream.seen

    # A client that asks gets the answer compressed by gqlgate, in the coding it asked for.
    for client_coding, decode in (("gzip", gzip.decompress), ("br", brotli.decompress)):
        r = post_graphql(gw.url, QUERY, headers={"Accept-Encoding": client_coding})
        assert r.status == 200 and r.header("content-encoding") == client_coding, str(r)
        assert r.header_values("content-encoding") == [client_coding], str(r)
        assert decode(r.body) == ANSWER
    assert all(coding in offered(accepted) for _, accepted in upstream.seen), upstream.seen


def test_a_clients_accept_encoding_is_not_passed_upstream(gqlgate, upstream):
    gw = gqlgate(upstream.url("/gzip"), config=ASK + "headers: {forward: [accept-encoding, accept-language]}\n")
    r = post_graphql(gw.url, QUERY, headers={"Accept-Encoding": "identity"})
    assert r.status == 200 and r.body == ANSWER, str(r)
    assert "gzip" in offered(upstream.seen[-1][1]), upstream.seen


@pytest.mark.parametrize("config", ["upstream: {compression: false}\n", "", "upstream: {compression: auto}\n"])
def test_with_upstream_compression_off_or_on_loopback_nothing_is_asked_for(gqlgate, upstream, config):
    # auto, the default, asks only an upstream on another machine: this one is on loopback.
    gw = gqlgate(upstream.url("/gzip"), config=config)
    r = post_graphql(gw.url, QUERY)
    assert r.status == 200 and r.body == ANSWER and r.header("content-encoding") is None, str(r)
    r = post_graphql(gw.url, QUERY, headers={"Accept-Encoding": "gzip"})
    assert r.header("content-encoding") == "gzip" and gzip.decompress(r.body) == ANSWER, str(r)
    assert [accepted for _, accepted in upstream.seen] == [None, None]


@pytest.mark.parametrize("limit_mib, config", [(64, ASK), (8, "upstream: {compression: true, max_response_bytes: 8MiB}\n")])
def test_a_gzip_bomb_is_cut_off_and_the_gateway_keeps_serving(gqlgate, upstream, limit_mib, config):
    gw = gqlgate(upstream.url("/gzip"), config=config)
    assert post_graphql(gw.url, QUERY).body == ANSWER  # the process warmed up
    peak_before = peak_rss_kib(gw.proc.pid)

    r = post_graphql(gw.url, "{ bomb }", timeout=60)
    error = assert_gateway_error(r, 502, "UPSTREAM_RESPONSE_TOO_LARGE")
    assert "max_response_bytes" in error["errors"][0]["message"], error
    assert [query for query, _ in upstream.seen].count("{ bomb }") == 1  # not retried
    assert upstream_outcomes(gw, "too_large") == 1
    # Bounded by the limit (the body collected up to it, doubling), not the 1 GiB the bomb decodes to.
    growth = peak_rss_kib(gw.proc.pid) - peak_before
    assert growth < (2 * limit_mib + 32) * 1024, f"peak RSS grew by {growth} KiB"

    # The same process keeps serving, the next bomb included.
    assert post_graphql(gw.url, QUERY).body == ANSWER
    assert_gateway_error(post_graphql(gw.url, "{ bomb }", timeout=60), 502, "UPSTREAM_RESPONSE_TOO_LARGE")
    assert post_graphql(gw.url, QUERY).body == ANSWER


def test_bombs_at_once_are_bounded_together(gqlgate, upstream):
    """Eight bombs at once, each cut off at max_response_bytes, could still take eight times it;
    max_response_bytes_in_flight bounds what they hold together."""
    gw = gqlgate(upstream.url("/gzip"), config="upstream: {compression: true, max_response_bytes: 64MiB, "
                                               "max_response_bytes_in_flight: 96MiB}\n")
    assert post_graphql(gw.url, QUERY).body == ANSWER  # the process warmed up
    peak_before = peak_rss_kib(gw.proc.pid)
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda n: post_graphql(gw.url, "{ b%d: bomb }" % n, timeout=120), range(8)))  # distinct: no dedupe
    messages = [assert_gateway_error(r, 502, "UPSTREAM_RESPONSE_TOO_LARGE")["errors"][0]["message"] for r in answers]
    assert any("max_response_bytes_in_flight" in m for m in messages), messages
    growth = peak_rss_kib(gw.proc.pid) - peak_before
    assert growth < (2 * 96 + 32) * 1024, f"peak RSS grew by {growth} KiB"
    assert post_graphql(gw.url, QUERY).body == ANSWER
