"""The response cache: hits without upstream requests, scopes, bypasses, TTLs per type, invalidation."""

from __future__ import annotations

import hashlib
import signal
import time
import uuid

import pytest

from harness import GRAPHQL_RESPONSE, PREFLIGHT, access_record, assert_gateway_error, curl, get_graphql, logged, post_graphql, wait_for_schema_learned, wait_until

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


UPDATE_REVIEW = "mutation Update($id: ID!, $stars: Int!) { updateReview(id: $id, stars: $stars) { review { stars } } }"


@pytest.fixture
def cached(gqlgate):
    gw = gqlgate(config=CACHE_CONFIG)
    wait_for_schema_learned(gw)
    return gw


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


def test_a_request_repeated_byte_for_byte_keeps_its_scope_and_the_clients_no_cache(cached, strawberry_upstream):
    """Repeated hits skip decoding (the request's bytes map to its cache key); what scopes or
    bypasses the cache must still count on every one of them."""
    query = "query Count { bookCount }"
    assert post_graphql(cached.url, query, headers={"Authorization": "Bearer a"}).header("X-Cache") == "MISS"
    for _ in range(3):
        assert post_graphql(cached.url, query, headers={"Authorization": "Bearer a"}).header("X-Cache") == "HIT"
    before = strawberry_upstream.count()
    other = post_graphql(cached.url, query, headers={"Authorization": "Bearer b"})
    assert other.header("X-Cache") == "MISS", str(other)
    assert strawberry_upstream.count() == before + 1
    bypass = post_graphql(cached.url, query, headers={"Authorization": "Bearer a", "Cache-Control": "no-cache"})
    assert bypass.header("X-Cache") == "BYPASS", str(bypass)
    assert post_graphql(cached.url, query, headers={"Authorization": "Bearer a"}).header("X-Cache") == "HIT"


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


def test_entity_tags_from_the_schema_purge_answers_neither_client_selected_id_in(cached, strawberry_upstream):
    jedi_stars = "query JediStars { reviews(episode: JEDI) { stars } }"
    empire_stars = "query EmpireStars { reviews(episode: EMPIRE) { stars } }"
    for query in (jedi_stars, empire_stars):
        assert post_graphql(cached.url, query).header("X-Cache") == "MISS"
        hit = post_graphql(cached.url, query)
        assert hit.header("X-Cache") == "HIT", str(hit)
        assert all(set(review) == {"stars"} for review in hit.json()["data"]["reviews"]), str(hit)

    # Review 3 is a JEDI review; the mutation's root field returns a ReviewPayload, so only its entity tag can purge.
    updated = post_graphql(cached.url, UPDATE_REVIEW, {"id": "3", "stars": 2})
    assert updated.json() == {"data": {"updateReview": {"review": {"stars": 2}}}}, str(updated)

    jedi = post_graphql(cached.url, jedi_stars)
    assert jedi.header("X-Cache") == "MISS", str(jedi)
    assert {"stars": 2} in jedi.json()["data"]["reviews"], str(jedi)
    assert "_gqlgate" not in jedi.text
    assert post_graphql(cached.url, empire_stars).header("X-Cache") == "HIT"


def test_without_introspection_the_cache_falls_back_to_client_ids(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"), config=CACHE_CONFIG)
    wait_until(lambda: logged(gw, "upstream schema unknown"), timeout=10, what="the introspection refusal", alive=gw.proc)
    assert post_graphql(gw.url, "{ headers }").header("X-Cache") == "MISS"
    assert post_graphql(gw.url, "{ headers }").header("X-Cache") == "HIT"
    assert len([line for line in gw.proc.stderr().splitlines() if "upstream schema" in line]) == 1, gw.proc.stderr()


def hits_counted(gw) -> float:
    for line in curl(gw.path("/metrics")).text.splitlines():
        if line.startswith("gqlgate_cache_hits_total"):
            return float(line.split()[-1])
    return 0.0


def test_hits_keep_every_check_header_metric_and_log_line_of_the_pipeline(cached, strawberry_upstream):
    query = 'query Greeting { hello(name: "hit") }'
    sha = hashlib.sha256(query.encode()).hexdigest()
    persisted = {"persistedQuery": {"version": 1, "sha256Hash": sha}}
    assert curl(cached.url, json_body={"query": query, "extensions": persisted}).header("X-Cache") == "MISS"
    before, hits_before = strawberry_upstream.count(), hits_counted(cached)

    request_id = f"hit-{uuid.uuid4()}"
    by_hash = curl(cached.url, json_body={"extensions": persisted}, headers={"X-Request-Id": request_id})
    assert by_hash.json() == {"data": {"hello": "Hello, hit!"}}, str(by_hash)
    assert by_hash.header("X-Cache") == "HIT" and by_hash.header("Age") is not None, str(by_hash)
    assert by_hash.header("X-Request-Id") == request_id
    by_get = get_graphql(cached.url, query)
    assert by_get.header("X-Cache") == "HIT" and len(by_get.header("X-Request-Id") or "") == 32, str(by_get)
    assert strawberry_upstream.count() == before
    assert hits_counted(cached) == hits_before + 2
    record = access_record(cached, request_id)
    assert (record["status"], record["cache"], record["operation"], record["operation_name"]) == (200, "HIT", "query", "Greeting")
    assert "attempts" not in record, record

    assert_gateway_error(curl(cached.url, json_body={"query": "{ hello }", "extensions": persisted}), 400, "PERSISTED_QUERY_HASH_MISMATCH")
    assert_gateway_error(post_graphql(cached.url, query, operation_name="Other", headers=GRAPHQL_RESPONSE), 400, "BAD_REQUEST")
    assert_gateway_error(curl(cached.url, json_body={"query": query}, content_type="text/plain", headers=PREFLIGHT), 415, "UNSUPPORTED_MEDIA_TYPE")
    assert post_graphql(cached.url, query, headers={"Cache-Control": "no-cache"}).header("X-Cache") == "BYPASS"


def metric(gw, series: str) -> float:
    for line in curl(gw.path("/metrics")).text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    return 0.0


def test_every_request_is_recorded_once_however_it_is_answered(cached):
    ok, refused = 'gqlgate_requests_total{operation="query",status="2xx"}', 'gqlgate_requests_total{operation="query",status="4xx"}'
    query = 'query Once { hello(name: "once") }'
    ok_before, refused_before = metric(cached, ok), metric(cached, refused)
    ids = [f"once-{uuid.uuid4()}" for _ in range(4)]
    assert post_graphql(cached.url, query, headers={"X-Request-Id": ids[0]}).header("X-Cache") == "MISS"
    assert post_graphql(cached.url, query, headers={"X-Request-Id": ids[1]}).header("X-Cache") == "HIT"
    assert get_graphql(cached.url, query, headers={"X-Request-Id": ids[2]}).header("X-Cache") == "HIT"
    # Refused by the method rules on the server thread, before the cache.
    assert_gateway_error(
        get_graphql(cached.url, "mutation M { createReview(episode: JEDI, review: {stars: 1}) { id } }", headers={"X-Request-Id": ids[3]}),
        405, "METHOD_NOT_ALLOWED")
    assert (metric(cached, ok) - ok_before, metric(cached, refused) - refused_before) == (3, 0)
    records = [access_record(cached, request_id) for request_id in ids]
    assert [(r["status"], r.get("cache")) for r in records] == [(200, "MISS"), (200, "HIT"), (200, "HIT"), (405, None)]
    assert all(sum(f'"request_id":"{i}"' in line for line in cached.proc.stderr().splitlines()) == 1 for i in ids)


def test_a_reload_learns_the_schema_again(cached):
    cached.proc.popen.send_signal(signal.SIGHUP)
    wait_until(
        lambda: sum(1 for line in cached.proc.stderr().splitlines() if '"msg":"upstream schema learned"' in line) == 2,
        timeout=10, what="the schema learned again after the reload", alive=cached.proc,
    )


def test_cache_headers_are_absent_while_the_cache_is_off(gateway):
    r = post_graphql(gateway.url, "{ hello }")
    assert r.status == 200 and r.header("X-Cache") is None, str(r)
