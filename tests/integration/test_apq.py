"""Automatic persisted queries over POST and GET, with the contract's error codes."""

from __future__ import annotations

import hashlib
import json

from harness import PREFLIGHT, assert_gateway_error, curl, post_graphql

QUERY = 'query APQ { hello(name: "persisted") }'
HASH = hashlib.sha256(QUERY.encode()).hexdigest()


def extensions(sha: str = HASH, version: int = 1) -> dict:
    return {"persistedQuery": {"version": version, "sha256Hash": sha}}


def test_unknown_hash_is_not_found_then_registered_and_used_over_post_and_get(gateway):
    sha = hashlib.sha256(b'query Fresh { hello(name: "fresh") }').hexdigest()
    missing = curl(gateway.url, json_body={"extensions": extensions(sha)})
    body = assert_gateway_error(missing, 200, "PERSISTED_QUERY_NOT_FOUND")
    assert body["errors"][0]["message"] == "PersistedQueryNotFound"

    registered = curl(gateway.url, json_body={"query": QUERY, "extensions": extensions()})
    assert registered.status == 200 and registered.json() == {"data": {"hello": "Hello, persisted!"}}, str(registered)

    by_post = curl(gateway.url, json_body={"extensions": extensions()})
    assert by_post.json() == {"data": {"hello": "Hello, persisted!"}}, str(by_post)
    by_get = curl(gateway.url, params={"extensions": json.dumps(extensions())}, headers=PREFLIGHT)
    assert by_get.status == 200 and by_get.json() == {"data": {"hello": "Hello, persisted!"}}, str(by_get)


def test_hash_that_does_not_match_the_query_is_refused(gateway, strawberry_upstream):
    before = strawberry_upstream.count()
    r = curl(gateway.url, json_body={"query": "{ hello }", "extensions": extensions()})
    assert_gateway_error(r, 400, "PERSISTED_QUERY_HASH_MISMATCH")
    assert strawberry_upstream.count() == before


def test_unsupported_version_is_a_bad_request(gateway):
    r = curl(gateway.url, json_body={"query": QUERY, "extensions": extensions(version=2)})
    assert_gateway_error(r, 400, "BAD_REQUEST")


def test_apq_upstream_sends_the_hash_first_and_the_query_only_when_asked(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/apq/graphql"), config="apq: {upstream: true}\n")

    def seen() -> list[str]:
        return curl(strawberry_upstream.path("/apq/seen")).json()

    query = 'query Upstream { hello(name: "upstream apq") }'
    before = len(seen())
    for _ in range(2):
        r = post_graphql(gw.url, query)
        assert r.status == 200 and r.json() == {"data": {"hello": "Hello, upstream apq!"}}, str(r)
    assert seen()[before:] == ["hash", "hash+query", "hash"]

    updated = post_graphql(gw.url, 'mutation { updateReview(id: "1", stars: 5) { review { stars } } }')
    assert updated.json() == {"data": {"updateReview": {"review": {"stars": 5}}}}, str(updated)
    assert seen()[before + 3:] == ["hash", "hash+query"]
