"""The response cache in Redis: two gqlgate processes share answers, scopes and invalidation; Redis outages bypass."""

from __future__ import annotations

import shutil
import time

import pytest

from harness import logged, post_graphql, wait_for_schema_learned, wait_until
from redis_servers import RedisStandalone, redis  # noqa: F401

REVIEWS = "query Reviews($episode: Episode!) { reviews(episode: $episode) { id stars commentary } }"
CREATE_REVIEW = """
mutation Create($episode: Episode!) { createReview(episode: $episode, review: {stars: 4, commentary: "shared?"}) { id stars } }
"""
BOOKS = "query Books { books { id title } }"

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed (make deps)")


def config(redis: RedisStandalone) -> str:
    return f"""
cache:
  enabled: true
  backend: redis
  redis_url: {redis.url}
  default_ttl: 30s
  types: {{Book: 1s}}
"""


@pytest.fixture
def replicas(gqlgate, redis):
    """Two gqlgate processes sharing one Redis, each with the upstream schema learned."""
    pair = (gqlgate(config=config(redis)), gqlgate(config=config(redis)))
    for gw in pair:
        wait_for_schema_learned(gw)
    return pair


def test_an_answer_fetched_through_one_replica_is_a_hit_on_the_other(replicas, strawberry_upstream):
    a, b = replicas
    query = "query Hello($name: String) { hello(name: $name) }"
    first = post_graphql(a.url, query, {"name": "shared"})
    assert first.status == 200, str(first)
    assert first.header("X-Cache") == "MISS", str(first)
    before = strawberry_upstream.count()
    second = post_graphql(b.url, query, {"name": "shared"})
    assert second.header("X-Cache") == "HIT", str(second)
    assert second.body == first.body
    assert int(second.header("Age")) >= 0, str(second)
    assert strawberry_upstream.count() == before


def test_a_hit_on_the_other_replica_is_in_the_media_type_its_client_asked_for(replicas, strawberry_upstream):
    a, b = replicas
    query = '{ hello(name: "typed") }'
    first = post_graphql(a.url, query, headers={"Accept": "application/json"})
    assert (first.status, first.header("X-Cache"), first.header("Content-Type")) == (200, "MISS", "application/json"), str(first)
    for accept in ("application/graphql-response+json", ""):
        hit = post_graphql(b.url, query, headers={"Accept": accept})
        assert (hit.status, hit.header("X-Cache"), hit.body) == (200, "HIT", first.body), str(hit)
        assert hit.header("Content-Type") == "application/graphql-response+json; charset=utf-8", str(hit)


def test_another_authorization_is_a_miss(replicas):
    a, b = replicas
    query = "{ hello(name: \"scoped\") }"
    assert post_graphql(a.url, query, headers={"Authorization": "Bearer one"}).header("X-Cache") == "MISS"
    other = post_graphql(b.url, query, headers={"Authorization": "Bearer two"})
    assert other.header("X-Cache") == "MISS", str(other)
    assert post_graphql(b.url, query, headers={"Authorization": "Bearer one"}).header("X-Cache") == "HIT"
    assert post_graphql(a.url, query).header("X-Cache") == "MISS"


def test_a_mutation_through_one_replica_purges_the_others_answers_of_that_episode_only(replicas):
    a, b = replicas
    for episode in ("JEDI", "EMPIRE"):
        assert post_graphql(b.url, REVIEWS, {"episode": episode}).header("X-Cache") == "MISS"
        assert post_graphql(b.url, REVIEWS, {"episode": episode}).header("X-Cache") == "HIT"
    created = post_graphql(a.url, CREATE_REVIEW, {"episode": "JEDI"})
    assert created.status == 200, str(created)
    jedi = post_graphql(b.url, REVIEWS, {"episode": "JEDI"})
    assert jedi.header("X-Cache") == "MISS", str(jedi)
    assert created.json()["data"]["createReview"]["id"] in [r["id"] for r in jedi.json()["data"]["reviews"]]
    assert post_graphql(b.url, REVIEWS, {"episode": "EMPIRE"}).header("X-Cache") == "HIT"


def test_a_per_type_ttl_expires(replicas):
    a, b = replicas
    assert post_graphql(a.url, BOOKS).header("X-Cache") == "MISS"
    started = time.monotonic()
    assert post_graphql(b.url, BOOKS).header("X-Cache") == "HIT"
    wait_until(lambda: post_graphql(b.url, BOOKS).header("X-Cache") == "MISS", timeout=5, what="Book TTL (1s) to expire")
    assert time.monotonic() - started >= 0.5


def test_redis_down_bypasses_and_hits_resume_when_it_is_back(replicas, redis, strawberry_upstream):
    a, b = replicas
    query = "{ hello(name: \"outage\") }"
    assert post_graphql(a.url, query).header("X-Cache") == "MISS"
    redis.stop()
    for gw in (a, b):
        answered = post_graphql(gw.url, query)
        assert answered.status == 200, str(answered)
        assert "hello" in answered.json()["data"], str(answered)
        assert answered.header("X-Cache") == "BYPASS", str(answered)
    wait_until(lambda: logged(a, "redis unavailable; cached answers are bypassed until it is back"), timeout=5,
               what="the outage warning", alive=a.proc)
    warnings = sum("redis unavailable" in line for line in a.proc.stderr().splitlines())
    for _ in range(3):
        assert post_graphql(a.url, query).header("X-Cache") == "BYPASS"
    assert sum("redis unavailable" in line for line in a.proc.stderr().splitlines()) == warnings, "one warning per outage"

    redis.start()
    wait_until(lambda: post_graphql(a.url, query).header("X-Cache") == "MISS", timeout=10, what="caching to resume on A")
    # B may still be waiting to connect again (a bypass goes upstream): wait for its first hit, then count.
    wait_until(lambda: post_graphql(b.url, query).header("X-Cache") == "HIT", timeout=10, what="hits to resume on B")
    before = strawberry_upstream.count()
    assert post_graphql(b.url, query).header("X-Cache") == "HIT"
    assert strawberry_upstream.count() == before
    assert logged(a, "redis reachable again")
