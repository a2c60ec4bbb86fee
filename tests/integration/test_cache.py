"""The response cache: hits without upstream requests, scopes, bypasses, TTLs per type, invalidation."""

from __future__ import annotations

import time

import pytest

from harness import post_graphql, wait_until

CACHE_CONFIG = """
cache:
  enabled: true
  default_ttl: 30s
  types: {Book: 1s}
"""

BOOKS = "query Books { books { id title } }"
REVIEWS = "query Reviews($episode: Episode!) { reviews(episode: $episode) { id stars commentary } }"
CREATE_REVIEW = """
mutation Create($episode: Episode!) { createReview(episode: $episode, review: {stars: 3, commentary: "cached?"}) { id stars } }
"""


@pytest.fixture
def cached(gqlgate):
    return gqlgate(config=CACHE_CONFIG)


def test_second_identical_query_is_a_hit_without_upstream_request(cached, strawberry_upstream):
    query = "query Hello($name: String) { hello(name: $name) }"
    first = post_graphql(cached.url, query, {"name": "cache"})
    assert first.status == 200, str(first)
    assert first.header("X-Cache") == "MISS", str(first)
    before = strawberry_upstream.count()
    second = post_graphql(cached.url, query, {"name": "cache"})
    assert second.header("X-Cache") == "HIT", str(second)
    assert second.body == first.body
    assert second.header("Age") is not None and int(second.header("Age")) >= 0, str(second)
    assert second.header("X-Request-Id"), str(second)
    assert strawberry_upstream.count() == before


def test_variable_order_does_not_matter_but_authorization_does(cached, strawberry_upstream):
    query = "query Two($a: String, $b: String) { a: hello(name: $a) b: hello(name: $b) }"
    assert post_graphql(cached.url, query, {"a": "x", "b": "y"}).header("X-Cache") == "MISS"
    assert post_graphql(cached.url, query, {"b": "y", "a": "x"}).header("X-Cache") == "HIT"
    other = post_graphql(cached.url, query, {"a": "x", "b": "y"}, headers={"Authorization": "Bearer someone-else"})
    assert other.header("X-Cache") == "MISS", str(other)
    again = post_graphql(cached.url, query, {"a": "x", "b": "y"}, headers={"Authorization": "Bearer someone-else"})
    assert again.header("X-Cache") == "HIT", str(again)


def test_an_answer_with_errors_is_bypassed(cached, strawberry_upstream):
    for _ in range(2):
        r = post_graphql(cached.url, "{ fail hello }")
        assert r.status == 200 and r.json()["errors"], str(r)
        assert r.header("X-Cache") == "BYPASS", str(r)


def test_client_no_cache_bypasses(cached):
    post_graphql(cached.url, "{ bookCount }")
    r = post_graphql(cached.url, "{ bookCount }", headers={"Cache-Control": "no-cache"})
    assert r.header("X-Cache") == "BYPASS", str(r)


def test_answer_has_exactly_the_clients_shape(cached, strawberry_upstream):
    query = """
    query Shape { books { ...B } b2: book(id: "2") { ... on Book { t: title __typename } } }
    fragment B on Book { id }
    """
    direct = post_graphql(strawberry_upstream.url, query, headers={"X-Test-Probe": "1"})
    for expected_cache in ("MISS", "HIT"):
        via = post_graphql(cached.url, query)
        assert via.header("X-Cache") == expected_cache, str(via)
        assert via.json() == direct.json(), f"via gqlgate: {via}\ndirect: {direct}"
        assert "_gqlgate_typename" not in via.text


def test_per_type_ttl_expires_without_typename_in_the_query(cached, strawberry_upstream):
    assert post_graphql(cached.url, BOOKS).header("X-Cache") == "MISS"
    assert post_graphql(cached.url, "{ hello }").header("X-Cache") == "MISS"
    started = time.monotonic()
    assert post_graphql(cached.url, BOOKS).header("X-Cache") == "HIT"
    wait_until(lambda: post_graphql(cached.url, BOOKS).header("X-Cache") == "MISS", timeout=5, what="Book TTL (1s) to expire")
    assert time.monotonic() - started >= 0.5
    assert post_graphql(cached.url, "{ hello }").header("X-Cache") == "HIT", "the default TTL (30s) should still hold"


def test_create_review_purges_that_episodes_reviews_and_nothing_else(cached, strawberry_upstream):
    for episode in ("JEDI", "EMPIRE"):
        assert post_graphql(cached.url, REVIEWS, {"episode": episode}).header("X-Cache") == "MISS"
        assert post_graphql(cached.url, REVIEWS, {"episode": episode}).header("X-Cache") == "HIT"
    assert post_graphql(cached.url, "{ hello }").header("X-Cache") == "MISS"

    created = post_graphql(cached.url, CREATE_REVIEW, {"episode": "JEDI"})
    assert created.status == 200, str(created)
    assert set(created.json()["data"]["createReview"]) == {"id", "stars"}, str(created)
    assert created.header("X-Cache") is None

    jedi = post_graphql(cached.url, REVIEWS, {"episode": "JEDI"})
    assert jedi.header("X-Cache") == "MISS", str(jedi)
    assert created.json()["data"]["createReview"]["id"] in [r["id"] for r in jedi.json()["data"]["reviews"]]
    assert post_graphql(cached.url, REVIEWS, {"episode": "EMPIRE"}).header("X-Cache") == "HIT"
    assert post_graphql(cached.url, "{ hello }").header("X-Cache") == "HIT"


def test_cache_headers_are_absent_while_the_cache_is_off(gateway):
    r = post_graphql(gateway.url, "{ hello }")
    assert r.status == 200 and r.header("X-Cache") is None, str(r)
