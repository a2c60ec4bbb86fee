"""APQ registrations shared by a fleet (``apq.store: redis``): three gqlgate processes in front of one
upstream and one Redis (a server, then a cluster of three masters). A hash registered through one
gateway is answered by the others over POST and GET; while Redis is stopped each gateway goes on with
its own registrations and no request fails; with ``apq.store: memory`` nothing is shared."""

from __future__ import annotations

import hashlib
import itertools
import json
import shutil
import typing

import pytest

from harness import PREFLIGHT, Response, assert_gateway_error, curl, wait_until
from redis_servers import RedisCluster, RedisStandalone, redis, redis_cluster  # noqa: F401 (fixtures)

PREFIX = "apq-fleet:"
UP, APQ_ERRORS = "gqlgate_redis_up", 'gqlgate_redis_errors_total{store="apq"}'
DAY = 24 * 60 * 60

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed (make deps)")

_names = itertools.count()


def fresh_query() -> tuple[str, str, str]:
    """A query no gateway has seen, its SHA-256 and the name it greets."""
    name = f"fleet {next(_names)}"
    query = f'query Fleet {{ hello(name: "{name}") }}'
    return query, hashlib.sha256(query.encode()).hexdigest(), name


def config(url: str, store: str = "redis") -> str:
    return f"""
redis:
  url: "{url}"
  key_prefix: "{PREFIX}"
  timeout: 250ms
apq:
  store: {store}
"""


def metric(gw, series: str) -> typing.Optional[float]:
    for line in curl(gw.path("/metrics")).text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    return None


def started(gqlgate, text: str, count: int = 3, redis_up: bool = True) -> list:
    """``count`` gqlgate processes with ``text`` as their config, each connected to Redis when ``redis_up``."""
    gateways = [gqlgate(config=text) for _ in range(count)]
    if redis_up:
        for gw in gateways:
            wait_until(lambda: metric(gw, UP) == 1, timeout=10, what="gqlgate_redis_up 1", alive=gw.proc)
    return gateways


def extensions(sha: str) -> dict:
    return {"persistedQuery": {"version": 1, "sha256Hash": sha}}


def by_hash(gw, sha: str, method: str = "POST") -> Response:
    if method == "GET":
        return curl(gw.url, params={"extensions": json.dumps(extensions(sha))}, headers=PREFLIGHT, timeout=5)
    return curl(gw.url, json_body={"extensions": extensions(sha)}, timeout=5)


def register(gw, query: str, sha: str) -> Response:
    return curl(gw.url, json_body={"query": query, "extensions": extensions(sha)}, timeout=5)


def assert_answered(r: Response, name: str) -> None:
    assert r.status == 200 and r.json() == {"data": {"hello": f"Hello, {name}!"}}, str(r)


def assert_not_found(r: Response) -> None:
    assert_gateway_error(r, 200, "PERSISTED_QUERY_NOT_FOUND")


def assert_shared(gateways: list, key_value: typing.Callable[[str], str], key_ttl: typing.Callable[[str], int]) -> None:
    """Unknown everywhere; registered through the first gateway, then answered by every other one over
    POST and GET, from the key Redis holds (the query, for 24 h)."""
    a, *others = gateways
    query, sha, name = fresh_query()
    for gw in gateways:
        assert_not_found(by_hash(gw, sha))
    assert_answered(register(a, query, sha), name)
    assert key_value(PREFIX + "apq:" + sha) == query
    assert DAY - 60 <= key_ttl(PREFIX + "apq:" + sha) <= DAY
    for gw in others:
        assert_answered(by_hash(gw, sha, "POST"), name)
        assert_answered(by_hash(gw, sha, "GET"), name)
    assert_answered(by_hash(a, sha, "GET"), name)
    for gw in gateways:
        assert (metric(gw, APQ_ERRORS) or 0) == 0, "no APQ command failed"


def test_a_hash_registered_through_one_gateway_is_answered_by_the_others(gqlgate, redis: RedisStandalone, strawberry_upstream):  # noqa: F811
    gateways = started(gqlgate, config(redis.url))
    assert_shared(gateways, lambda key: redis.cli("GET", key), lambda key: int(redis.cli("TTL", key)))
    keys = redis.cli("--scan", "--pattern", "*").split()
    assert keys and all(key.startswith(PREFIX + "apq:") for key in keys), keys


def test_a_registration_through_another_gateway_refreshes_the_ttl(gqlgate, redis: RedisStandalone, strawberry_upstream):  # noqa: F811
    a, b = started(gqlgate, config(redis.url), count=2)
    query, sha, name = fresh_query()
    key = PREFIX + "apq:" + sha
    assert_answered(register(a, query, sha), name)
    assert redis.cli("EXPIRE", key, "30") == "1"
    assert_answered(register(b, query, sha), name)
    assert int(redis.cli("TTL", key)) > DAY - 60


def test_cluster_a_hash_registered_through_one_gateway_is_answered_by_the_others(gqlgate, redis_cluster: RedisCluster, strawberry_upstream):  # noqa: F811
    gateways = started(gqlgate, config(redis_cluster.url))
    assert_shared(gateways, lambda key: redis_cluster.cli("GET", key), lambda key: int(redis_cluster.cli("TTL", key)))
    # Keys carry no hash tag: registrations spread over the masters.
    for _ in range(12):
        query, sha, name = fresh_query()
        assert_answered(register(gateways[0], query, sha), name)
    spread = redis_cluster.keys_per_node(PREFIX + "apq:*")
    assert len([port for port, keys in spread.items() if keys]) > 1, f"every registration on one master: {spread}"


def test_redis_stopped_each_gateway_goes_on_with_its_own_and_sharing_resumes(gqlgate, redis: RedisStandalone, strawberry_upstream):  # noqa: F811
    a, b, c = started(gqlgate, config(redis.url))
    known_query, known_sha, known_name = fresh_query()
    assert_answered(register(a, known_query, known_sha), known_name)
    assert_answered(by_hash(b, known_sha), known_name)  # now in b's memory too
    redis.stop()
    for gw in (a, b, c):
        wait_until(lambda: metric(gw, UP) == 0, timeout=5, what="gqlgate_redis_up 0 once Redis is stopped")

    query, sha, name = fresh_query()
    answers = [register(a, query, sha)]
    assert_answered(answers[-1], name)
    answers.append(by_hash(a, sha))
    assert_answered(answers[-1], name)
    answers.append(by_hash(b, sha))
    assert_not_found(answers[-1])
    answers.append(register(b, query, sha))
    assert_answered(answers[-1], name)
    answers.append(by_hash(b, sha, "GET"))
    assert_answered(answers[-1], name)
    # What a gateway held in memory before the outage it still answers.
    answers.append(by_hash(b, known_sha))
    assert_answered(answers[-1], known_name)
    answers.append(by_hash(c, known_sha))
    assert_not_found(answers[-1])
    assert all(r.status == 200 for r in answers), "no request failed"
    assert metric(a, APQ_ERRORS) >= 1, "the SET that failed is counted"
    assert metric(b, APQ_ERRORS) >= 2, "the GET and the SET that failed are counted"

    redis.start()
    for gw in (a, b, c):
        wait_until(lambda: metric(gw, UP) == 1, timeout=10, what="gqlgate_redis_up 1 once Redis is back")
    query, sha, name = fresh_query()
    assert_answered(register(c, query, sha), name)
    assert_answered(by_hash(a, sha), name)
    assert_answered(by_hash(b, sha, "GET"), name)


def test_memory_store_keeps_each_gateways_registrations_to_itself(gqlgate, redis: RedisStandalone, strawberry_upstream):  # noqa: F811
    a, b, c = started(gqlgate, config(redis.url, store="memory"), redis_up=False)
    query, sha, name = fresh_query()
    assert_answered(register(a, query, sha), name)
    assert_answered(by_hash(a, sha), name)
    assert_answered(by_hash(a, sha, "GET"), name)
    assert_not_found(by_hash(b, sha))
    assert_not_found(by_hash(c, sha, "GET"))
    assert_answered(register(b, query, sha), name)
    assert_answered(by_hash(b, sha), name)
    assert redis.dbsize() == 0, "Redis is not used"
    assert metric(a, UP) == 0, "no store uses Redis: no connection"
