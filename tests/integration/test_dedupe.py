"""Identical queries in flight share one upstream request."""

from __future__ import annotations

import concurrent.futures

from harness import post_graphql

SLOW = "query Slow { slow(seconds: 2.0) }"


def test_fifty_concurrent_identical_queries_make_one_upstream_request(gateway, strawberry_upstream):
    before = strawberry_upstream.count()
    with concurrent.futures.ThreadPoolExecutor(max_workers=50) as pool:
        answers = list(pool.map(lambda i: post_graphql(gateway.url, SLOW, headers={"X-Request-Id": f"dedupe-{i}"}), range(50)))
    for i, r in enumerate(answers):
        assert r.status == 200 and r.json() == {"data": {"slow": "slept 2.0"}}, str(r)
        assert r.header("X-Request-Id") == f"dedupe-{i}", str(r)
    assert strawberry_upstream.count() - before == 1


def test_queries_in_different_scopes_are_not_shared(gateway, strawberry_upstream):
    before = strawberry_upstream.count()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(lambda who: post_graphql(gateway.url, SLOW, headers={"Authorization": who}), ["a", "b"]))
    assert all(r.status == 200 for r in answers)
    assert strawberry_upstream.count() - before == 2
