"""Incremental delivery (``@defer``, ``@stream``) in front of Strawberry's incremental execution
(``/defer/graphql`` of the upstream app): refused with 406 before it goes upstream when the
client's ``Accept`` admits no ``multipart/mixed``."""

from __future__ import annotations

import pytest

from harness import assert_gateway_error, get_graphql, post_graphql

DEFERRED = '{ hello ... @defer { held(key: "never") } }'
STREAMED = '{ heldBooks(key: "never") @stream(initialCount: 1) { title } }'


@pytest.fixture
def defer_gateway(gqlgate, strawberry_upstream):
    """A gqlgate in front of the upstream's incremental schema."""
    return gqlgate(strawberry_upstream.path("/defer/graphql"))


@pytest.mark.parametrize(
    "accept",
    [None, "application/json", "application/graphql-response+json", "*/*", "multipart/*",
     "multipart/mixed;q=0, application/json", 'multipart/mixed;subscriptionSpec="1.0", application/json'],
)
@pytest.mark.parametrize("query", [DEFERRED, STREAMED])
def test_defer_or_stream_without_multipart_is_406_and_never_goes_upstream(defer_gateway, strawberry_upstream, accept, query):
    before = strawberry_upstream.count("/defer/graphql")
    headers = {"Accept": accept} if accept is not None else {}
    r = post_graphql(defer_gateway.url, query, headers=headers)
    body = assert_gateway_error(r, 406, "NOT_ACCEPTABLE")
    assert "multipart/mixed" in body["errors"][0]["message"], str(r)
    r = get_graphql(defer_gateway.url, query, headers=headers)
    assert_gateway_error(r, 406, "NOT_ACCEPTABLE")
    assert strawberry_upstream.count("/defer/graphql") == before


def test_a_deferring_fragment_is_found_where_it_is_spread(defer_gateway, strawberry_upstream):
    before = strawberry_upstream.count("/defer/graphql")
    query = 'query { ...Later } fragment Later on DeferQuery { hello ... @defer { held(key: "never") } }'
    assert_gateway_error(post_graphql(defer_gateway.url, query), 406, "NOT_ACCEPTABLE")
    assert strawberry_upstream.count("/defer/graphql") == before


def caching_gateway(gqlgate, strawberry_upstream, config: str = ""):
    """A gqlgate with the cache on in front of the incremental schema, once the introspection query the cache sends
    at start (to learn the entity schema) reached the upstream: the requests counted after it are the test's."""
    before = strawberry_upstream.count("/defer/graphql")
    gw = gqlgate(strawberry_upstream.path("/defer/graphql"), config="cache: {enabled: true}\n" + config)
    wait_until(lambda: strawberry_upstream.count("/defer/graphql") > before, timeout=5, what="the cache's introspection query")
    return gw


def test_the_cache_and_dedupe_refuse_it_too(gqlgate, strawberry_upstream):
    gw = caching_gateway(gqlgate, strawberry_upstream, "dedupe: {enabled: true}\n")
    before = strawberry_upstream.count("/defer/graphql")
    for _ in range(2):
        assert_gateway_error(post_graphql(gw.url, DEFERRED), 406, "NOT_ACCEPTABLE")
    assert strawberry_upstream.count("/defer/graphql") == before


def test_a_query_without_the_directives_needs_no_multipart(defer_gateway):
    r = post_graphql(defer_gateway.url, "{ hello }", headers={"Accept": "application/json"})
    assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, str(r)
