"""cache.backend: tiered: memory in front of Redis, coherent across three replicas through Redis pub/sub."""

from __future__ import annotations

import shutil

import pytest

from harness import curl, free_port, post_graphql, wait_until
from redis_servers import info, redis, redis_cluster, redis_cli  # noqa: F401 (fixtures)
from test_redis_fleet import CREATE_REVIEW, HELLO, REVIEWS, Load, hello, metric, started

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed (make deps)")

PREFIX = "tiered-test:"
DROPS = "gqlgate_cache_memory_tier_drops_total"


def config(url: str, admin_port: int = 0) -> str:
    admin = f"admin: {{listen: 127.0.0.1:{admin_port}}}\n" if admin_port else ""
    return admin + f"""
redis:
  url: "{url}"
  key_prefix: "{PREFIX}"
cache:
  enabled: true
  backend: tiered
  default_ttl: 30s
"""


def gets(port: int) -> int:
    """The GET commands the Redis at ``port`` has run."""
    stats = info(port, "commandstats").get("cmdstat_get", "calls=0,")
    return int(stats.split("calls=")[1].split(",")[0])


def reviews(gw, episode: str):
    r = post_graphql(gw.url, REVIEWS, {"episode": episode})
    assert r.status == 200 and "errors" not in r.json(), str(r)
    return r


def review_ids(answer) -> list[str]:
    return [review["id"] for review in answer.json()["data"]["reviews"]]


def assert_coherent(gateways, upstream, episode: str) -> None:
    """A miss on the first replica, hits from Redis then from memory on every replica; a mutation
    through the first purges every replica's memory within 1 s."""
    a = gateways[0]
    assert reviews(a, episode).header("X-Cache") == "MISS"
    before = upstream.count()
    for gw in gateways:
        assert reviews(gw, episode).header("X-Cache") == "HIT"  # the others: from Redis, into memory
        assert reviews(gw, episode).header("X-Cache") == "HIT"  # from memory
    assert upstream.count() == before
    created = post_graphql(a.url, CREATE_REVIEW, {"episode": episode})
    assert created.status == 200 and "errors" not in created.json(), str(created)
    new_id = created.json()["data"]["createReview"]["id"]
    for gw in gateways:
        wait_until(lambda: new_id in review_ids(reviews(gw, episode)), timeout=1, interval=0.02,
                   what=f"the new review through {gw.url} within 1 s")  # fmt: skip


def test_a_mutation_through_one_replica_reaches_every_replicas_memory_within_a_second(gqlgate, redis, strawberry_upstream):  # noqa: F811
    gateways = started(gqlgate, config(redis.url), 3)
    assert_coherent(gateways, strawberry_upstream, "JEDI")
    assert all(metric(gw, 'gqlgate_cache_invalidations_total{source="peer"}') >= 1 for gw in gateways[1:])
    assert metric(gateways[0], 'gqlgate_cache_invalidations_total{source="mutation"}') >= 1


def test_a_mutation_and_a_purge_through_one_replica_reach_every_replica_in_a_cluster(gqlgate, redis_cluster, strawberry_upstream):  # noqa: F811
    admin_ports = [free_port() for _ in range(3)]
    gateways = [started(gqlgate, config(redis_cluster.url, port))[0] for port in admin_ports]
    assert_coherent(gateways, strawberry_upstream, "EMPIRE")
    names = [f"cluster-{n}" for n in range(len(gateways))]
    for name in names:
        assert hello(gateways[0], name).header("X-Cache") == "MISS"
        for gw in gateways:
            assert hello(gw, name).header("X-Cache") == "HIT"
    purged = curl(f"http://127.0.0.1:{admin_ports[2]}/cache/purge", json_body={"all": True})
    assert purged.status == 200 and purged.json()["purged"] >= len(names), str(purged)
    # Each replica asks its own name only, so no replica stores again what another checks.
    for gw, name in zip(gateways, names):
        wait_until(lambda: hello(gw, name).header("X-Cache") == "MISS", timeout=1, interval=0.02,
                   what=f"{name!r} purged from {gw.url} within 1 s")  # fmt: skip


def test_memory_hits_do_not_ask_redis(gqlgate, redis, strawberry_upstream):  # noqa: F811
    (gw,) = started(gqlgate, config(redis.url))
    assert hello(gw, "memory").header("X-Cache") == "MISS"
    before = gets(redis.port)
    for _ in range(20):
        assert hello(gw, "memory").header("X-Cache") == "HIT"
    assert gets(redis.port) == before


def test_a_replica_whose_subscription_dropped_drops_its_memory_tier(gqlgate, redis, strawberry_upstream):  # noqa: F811
    a, b = started(gqlgate, config(redis.url), 2)
    assert hello(a, "drop").header("X-Cache") == "MISS"
    assert hello(b, "drop").header("X-Cache") == "HIT"
    drops = metric(b, DROPS)
    # Every subscriber is cut off: neither replica knows what it may have missed.
    assert redis_cli(redis.port, "CLIENT", "KILL", "TYPE", "pubsub") != "0"
    wait_until(lambda: metric(b, DROPS) > drops, timeout=5, what="the memory tier dropped once subscribed again")
    before = gets(redis.port)
    assert hello(b, "drop").header("X-Cache") == "HIT", "still in Redis"
    assert gets(redis.port) > before, "the hit came from Redis: memory was dropped"


def test_a_purge_redis_refused_to_publish_reaches_the_other_replicas_once_it_takes_it(gqlgate, redis, strawberry_upstream):  # noqa: F811
    """Replica A may not PUBLISH (an ACL): its mutation's purge waits, B's memory still serves the
    old answer; once A may, the purge is published again and reaches B's memory."""
    assert redis.cli("ACL", "SETUSER", "replica-a", "on", ">secret", "~*", "&*", "+@all", "-publish") == "OK"
    (a,) = started(gqlgate, config(redis.url.replace("redis://", "redis://replica-a:secret@")))
    (b,) = started(gqlgate, config(redis.url))
    assert reviews(b, "NEWHOPE").header("X-Cache") == "MISS"
    old = reviews(b, "NEWHOPE")
    assert old.header("X-Cache") == "HIT"  # from B's memory from now on
    created = post_graphql(a.url, CREATE_REVIEW, {"episode": "NEWHOPE"})
    assert created.status == 200 and "errors" not in created.json(), str(created)
    new_id = created.json()["data"]["createReview"]["id"]
    wait_until(lambda: metric(a, 'gqlgate_redis_errors_total{store="cache"}') >= 1, timeout=5, what="A's PUBLISH refused")
    held = reviews(b, "NEWHOPE")
    assert held.header("X-Cache") == "HIT" and new_id not in review_ids(held), "B's memory did not hear of the purge"
    assert redis.cli("ACL", "SETUSER", "replica-a", "+publish") == "OK"
    wait_until(lambda: new_id in review_ids(reviews(b, "NEWHOPE")), timeout=5, interval=0.05,
               what="the purge published again and applied to B's memory")  # fmt: skip


def test_redis_killed_under_load_fails_no_request(gqlgate, redis, strawberry_upstream):  # noqa: F811
    gateways = started(gqlgate, config(redis.url), 3)
    names = [f"tiered-{n}" for n in range(12)]
    with Load(gateways, names) as load:
        load.wait_for(60)
        redis.kill()
        wait_until(lambda: all(metric(gw, "gqlgate_redis_up") == 0 for gw in gateways), timeout=5, what="Redis seen down")
        load.wait_for(len(load.answers) + 120)
        redis.start()
        wait_until(lambda: all(metric(gw, "gqlgate_redis_up") == 1 for gw in gateways), timeout=10, what="Redis seen back")
        load.wait_for(len(load.answers) + 60)
    load.assert_all_answered()
