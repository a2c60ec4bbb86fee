"""Compressed answers: gzip and br negotiated from ``Accept-Encoding``, the
decoded bytes exactly the upstream's, on cache misses and hits; small answers,
streams and clients that accept nothing are sent as they are.
"""

from __future__ import annotations

import gzip
import json
import subprocess

import brotli
import pytest

from harness import curl, post_graphql

BIG = '{ hello(name: "%s") }' % ("compressible " * 200)
DECODE = {"gzip": gzip.decompress, "br": brotli.decompress}


def identity_body(gw) -> bytes:
    r = post_graphql(gw.url, BIG)
    assert r.status == 200 and r.header("content-encoding") is None, str(r)
    assert r.header("vary") == "Accept-Encoding", str(r)
    return r.body


@pytest.mark.parametrize(
    "accept, coding",
    [("gzip, deflate, br", "br"), ("gzip", "gzip"), ("br;q=0.5, gzip", "gzip"), ("*", "br"), ("x-gzip", "gzip"),
     ("br;q=0, *;q=0.1", "gzip")],
)  # fmt: skip
def test_answers_are_compressed_as_the_client_prefers_on_misses_and_hits(gqlgate, accept, coding):
    gw = gqlgate(config="cache: {enabled: true}\n")
    plain = identity_body(gw)  # the miss, stored
    for expected_cache in ("HIT", "HIT"):
        r = post_graphql(gw.url, BIG, headers={"Accept-Encoding": accept})
        assert r.status == 200 and r.header("x-cache") == expected_cache, str(r)
        assert r.header("content-encoding") == coding, str(r)
        assert r.header("vary") == "Accept-Encoding", str(r)
        assert len(r.body) < len(plain) // 5
        assert DECODE[coding](r.body) == plain


def test_a_miss_is_compressed_too_and_decodes_to_the_upstreams_bytes(gqlgate, strawberry_upstream):
    gw = gqlgate()
    direct = post_graphql(strawberry_upstream.url, BIG).body
    for coding in ("br", "gzip"):
        r = post_graphql(gw.url, BIG, headers={"Accept-Encoding": coding})
        assert r.header("content-encoding") == coding and r.header("x-cache") is None, str(r)
        assert DECODE[coding](r.body) == direct


def test_curl_compressed_decodes_to_the_same_bytes(gqlgate):
    gw = gqlgate(config="cache: {enabled: true}\n")
    plain = identity_body(gw)
    for _ in range(2):  # miss stored above: hits
        out = subprocess.run(
            ["curl", "-sS", "--compressed", "-H", "Content-Type: application/json", "--data-binary", json.dumps({"query": BIG}), gw.url],
            capture_output=True, timeout=30, check=True,
        ).stdout  # fmt: skip
        assert out == plain


@pytest.mark.parametrize("accept", [None, "identity", "br;q=0, gzip;q=0", "deflate, zstd"])
def test_clients_that_accept_no_offered_coding_get_the_answer_as_it_is(gqlgate, accept):
    gw = gqlgate()
    r = post_graphql(gw.url, BIG, headers={"Accept-Encoding": accept} if accept else {})
    assert r.status == 200 and r.header("content-encoding") is None, str(r)
    assert r.json()["data"]["hello"].startswith("Hello, compressible")


def test_small_answers_streams_and_a_disabled_compression_are_left_alone(gqlgate):
    gw = gqlgate(config="compression: {min_bytes: 4KiB}\n")
    r = post_graphql(gw.url, BIG, headers={"Accept-Encoding": "br, gzip"})  # about 2.6 KiB
    assert r.header("content-encoding") is None and r.header("vary") is None, str(r)
    sse = post_graphql(gw.url, "subscription { countdown(from: 2) }",
                       headers={"Accept-Encoding": "br, gzip", "Accept": "text/event-stream"})  # fmt: skip
    assert sse.status == 200 and sse.header("content-encoding") is None, str(sse)
    assert b"event: complete" in sse.body
    off = gqlgate(config="compression: {enabled: false}\n")
    r = post_graphql(off.url, BIG, headers={"Accept-Encoding": "br, gzip"})
    assert r.header("content-encoding") is None and r.header("vary") is None, str(r)


def test_algorithms_limit_and_order_what_is_offered(gqlgate):
    gw = gqlgate(config="compression: {algorithms: [gzip]}\n")
    r = post_graphql(gw.url, BIG, headers={"Accept-Encoding": "br, gzip"})
    assert r.header("content-encoding") == "gzip", str(r)
    r = post_graphql(gw.url, BIG, headers={"Accept-Encoding": "br"})
    assert r.header("content-encoding") is None, str(r)
