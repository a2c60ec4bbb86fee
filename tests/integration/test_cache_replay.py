"""Repeated cache hits answered again from the bytes of the request (the memory backend's replay).

A request whose bytes are exactly those of an earlier hit (the X-Request-Id aside) must get
exactly what the normal path sends: the same status, header fields in the same order and body,
with only Age brought up to date and the request's own X-Request-Id. Covered here: byte
identity and request ids, metrics and access lines counted as for any hit, purges (by a
mutation and through the admin API), evictions and expiry never answered from an old replay,
scopes and query strings kept apart, Age kept current, which header changes still find the
answer, a repeated hit counting as a use for the least recently used order, and the rate limit
still applied to every repeated hit when it is configured (the replay is off then).
"""

from __future__ import annotations

import re
import time
import typing
import uuid

import pytest

from harness import Response, access_record, assert_gateway_error, curl, free_port, get_graphql, logged, port_open, post_graphql, wait_until

CACHE_CONFIG = "cache:\n  enabled: true\n  default_ttl: 30s\n"

GREETING = 'query Greeting { hello(name: "replay") }'
REVIEWS = "query Reviews($episode: Episode!) { reviews(episode: $episode) { id stars commentary } }"
CREATE_REVIEW = (
    "mutation Create($episode: Episode!) "
    '{ createReview(episode: $episode, review: {stars: 4, commentary: "replayed?"}) { id stars } }'
)
OK_QUERIES = 'gqlgate_requests_total{operation="query",status="2xx"}'
HITS = "gqlgate_cache_hits_total"
MISSES = "gqlgate_cache_misses_total"
# What may differ between two answers to the same request (a stored answer keeps the upstream's Date).
PER_ANSWER = {"x-request-id", "age"}


def start(gqlgate, config: str = CACHE_CONFIG, upstream: typing.Optional[str] = None, learned: bool = True):
    gw = gqlgate(upstream, config=config)
    message = "upstream schema learned" if learned else "upstream schema unknown"
    wait_until(lambda: logged(gw, message), timeout=10, what=message, alive=gw.proc)
    return gw


@pytest.fixture
def cached(gqlgate):
    return start(gqlgate)


def metric(gw, series: str) -> float:
    for line in curl(gw.path("/metrics")).text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    return 0.0


def names(r: Response) -> list[str]:
    return [k.lower() for k, _ in r.headers]


def stable(r: Response) -> list[tuple[str, str]]:
    return [(k.lower(), v) for k, v in r.headers if k.lower() not in PER_ANSWER]


def assert_same_answer(r: Response, model: Response) -> None:
    """``r`` is ``model`` but for the per-answer fields: status, fields in order, values, body."""
    assert r.status == model.status, f"{r}\nexpected as:\n{model}"
    assert names(r) == names(model), f"{r}\nexpected as:\n{model}"
    assert stable(r) == stable(model), f"{r}\nexpected as:\n{model}"
    assert r.body == model.body, f"{r}\nexpected as:\n{model}"


def hello(gw, name: str, headers: typing.Optional[dict[str, str]] = None) -> Response:
    return post_graphql(gw.url, f'query Greeting {{ hello(name: "{name}") }}', headers=headers)


def greet(gw, headers: typing.Optional[dict[str, str]] = None, expect: typing.Optional[str] = "HIT") -> Response:
    r = post_graphql(gw.url, GREETING, headers=headers)
    assert r.status == 200 and r.json() == {"data": {"hello": "Hello, replay!"}}, str(r)
    if expect is not None:
        assert r.header("X-Cache") == expect, str(r)
    return r


def test_repeated_hits_are_the_first_hit_byte_for_byte_but_for_the_request_id(cached, strawberry_upstream):
    before = strawberry_upstream.count()
    greet(cached, expect="MISS")
    first_hit, *again = [greet(cached) for _ in range(5)]
    for r in again:
        assert_same_answer(r, first_hit)
    ids = [r.header("X-Request-Id") for r in [first_hit, *again]]
    assert all(ids) and len(set(ids)) == len(ids), ids

    for _ in range(2):
        own = greet(cached, headers={"X-Request-Id": "abc-123"})
        assert own.header("X-Request-Id") == "abc-123", str(own)
        assert_same_answer(own, first_hit)
    fresh = greet(cached)
    assert fresh.header("X-Request-Id") not in ids + ["abc-123"], str(fresh)
    assert strawberry_upstream.count() == before + 1


def test_repeated_hits_count_in_the_metrics_like_any_hit(cached, strawberry_upstream):
    greet(cached, expect="MISS")
    greet(cached)
    ok, hits, misses = metric(cached, OK_QUERIES), metric(cached, HITS), metric(cached, MISSES)
    n = 5
    for _ in range(n):
        greet(cached)
    assert (metric(cached, OK_QUERIES) - ok, metric(cached, HITS) - hits, metric(cached, MISSES) - misses) == (n, n, 0)


def admin_purge(port: int, body: dict) -> int:
    r = curl(f"http://127.0.0.1:{port}/cache/purge", json_body=body)
    assert r.status == 200, str(r)
    return r.json()["purged"]


@pytest.mark.parametrize("how", ["mutation", "admin"])
def test_a_purge_is_never_answered_from_an_earlier_hit(how, gqlgate, strawberry_upstream):
    admin_port = free_port()
    gw = start(gqlgate, CACHE_CONFIG + f'admin:\n  listen: "127.0.0.1:{admin_port}"\n')
    wait_until(lambda: port_open("127.0.0.1", admin_port), timeout=5, what="the admin listener", alive=gw.proc)
    ask = lambda: post_graphql(gw.url, REVIEWS, {"episode": "EMPIRE"})  # noqa: E731
    assert ask().header("X-Cache") == "MISS"
    hits = [ask() for _ in range(3)]
    assert [r.header("X-Cache") for r in hits] == ["HIT"] * 3, "\n".join(map(str, hits))
    unrelated = greet(gw, expect="MISS")

    if how == "mutation":
        created = post_graphql(gw.url, CREATE_REVIEW, {"episode": "EMPIRE"})
    else:
        created = post_graphql(strawberry_upstream.url, CREATE_REVIEW, {"episode": "EMPIRE"}, headers={"X-Test-Probe": "1"})
    assert created.status == 200 and "errors" not in created.json(), str(created)
    new_id = created.json()["data"]["createReview"]["id"]
    if how == "admin":
        assert admin_purge(admin_port, {"types": ["Review"]}) >= 1

    before = strawberry_upstream.count()
    after = ask()
    assert after.header("X-Cache") == "MISS", str(after)
    assert strawberry_upstream.count() == before + 1
    assert new_id in [review["id"] for review in after.json()["data"]["reviews"]], str(after)
    for _ in range(2):
        again = ask()
        assert again.header("X-Cache") == "HIT" and again.body == after.body, str(again)
    assert greet(gw).body == unrelated.body, "an answer the purge did not select is still a hit"
    assert strawberry_upstream.count() == before + 1


def test_an_expired_answer_is_not_answered_again(gqlgate, strawberry_upstream):
    gw = start(gqlgate, "cache:\n  enabled: true\n  default_ttl: 1s\n")
    before = strawberry_upstream.count()
    greet(gw, expect="MISS")
    started = time.monotonic()
    greet(gw)
    greet(gw)
    wait_until(lambda: greet(gw, expect=None).header("X-Cache") == "MISS", timeout=5, what="the 1s TTL to expire")
    assert time.monotonic() - started >= 0.5
    assert strawberry_upstream.count() == before + 2
    greet(gw)
    assert strawberry_upstream.count() == before + 2


def test_each_scope_gets_its_own_answer(gqlgate, strawberry_upstream):
    config = CACHE_CONFIG + "  vary_headers: [authorization]\nheaders:\n  forward_client_authorization: true\n"
    gw = start(gqlgate, config, strawberry_upstream.path("/echo-headers"), learned=False)
    query = "query Who { headers }"

    def ask(user: str) -> Response:
        r = post_graphql(gw.url, query, headers={"Authorization": f"Bearer {user}"})
        assert r.status == 200, str(r)
        assert r.json()["data"]["headers"]["authorization"] == f"Bearer {user}", str(r)
        return r

    before = strawberry_upstream.count("/echo-headers")
    assert [ask("a").header("X-Cache") for _ in range(3)] == ["MISS", "HIT", "HIT"]
    assert [ask("b").header("X-Cache") for _ in range(3)] == ["MISS", "HIT", "HIT"]
    assert [ask(user).header("X-Cache") for user in ("a", "b", "a", "b")] == ["HIT"] * 4
    assert strawberry_upstream.count("/echo-headers") == before + 2


def test_age_is_brought_up_to_date_on_every_repeated_hit(cached):
    started = time.monotonic()
    greet(cached, expect="MISS")
    first_hit = greet(cached)
    ages = [greet(cached).header("Age") for _ in range(3)]
    assert all(age is not None and re.fullmatch(r"[0-9]+", age) for age in [first_hit.header("Age"), *ages]), ages
    wait_until(lambda: int(greet(cached).header("Age") or 0) >= 1, timeout=5, what="Age to reach 1", interval=0.1)
    later = greet(cached)
    assert re.fullmatch(r"[0-9]+", later.header("Age") or ""), str(later)
    assert 1 <= int(later.header("Age")) <= time.monotonic() - started, str(later)
    assert_same_answer(later, first_hit)


def test_only_the_request_id_may_differ_for_a_repeated_hit_yet_any_header_still_finds_the_answer(cached, strawberry_upstream):
    greet(cached, headers={"X-Foo": "1"}, expect="MISS")
    model = greet(cached, headers={"X-Foo": "1"})
    before = strawberry_upstream.count()
    for i in range(3):
        r = greet(cached, headers={"X-Foo": "1", "X-Request-Id": f"other-{i}"})
        assert r.header("X-Request-Id") == f"other-{i}", str(r)
        assert_same_answer(r, model)
    for value in ("2", "2", "1", "3"):
        assert_same_answer(greet(cached, headers={"X-Foo": value}), model)
    assert_same_answer(greet(cached), model)
    assert strawberry_upstream.count() == before


def test_gets_differing_only_in_their_query_string_get_their_own_answers(cached, strawberry_upstream):
    query = "query Named($name: String) { hello(name: $name) }"

    def ask(name: str) -> Response:
        r = get_graphql(cached.url, query, {"name": name})
        assert r.status == 200 and r.json() == {"data": {"hello": f"Hello, {name}!"}}, str(r)
        return r

    before = strawberry_upstream.count()
    for name in ("get-a", "get-b"):
        assert [ask(name).header("X-Cache") for _ in range(3)] == ["MISS", "HIT", "HIT"]
    assert [ask(name).header("X-Cache") for name in ("get-a", "get-b", "get-a")] == ["HIT"] * 3
    assert strawberry_upstream.count() == before + 2


def test_repeated_hits_write_the_access_line_of_a_hit(cached):
    ids = [f"replay-{uuid.uuid4()}" for _ in range(4)]
    for request_id, expect in zip(ids, ["MISS", "HIT", "HIT", "HIT"]):
        greet(cached, headers={"X-Request-Id": request_id}, expect=expect)
    records = [access_record(cached, request_id) for request_id in ids]
    summary = [(r["status"], r.get("cache"), r.get("operation"), r.get("operation_name")) for r in records]
    assert summary == [(200, "MISS", "query", "Greeting")] + [(200, "HIT", "query", "Greeting")] * 3, records
    same = lambda r: {k: v for k, v in r.items() if k not in ("ts", "duration_ms", "request_id")}  # noqa: E731
    assert same(records[1]) == same(records[2]) == same(records[3]), records
    lines = cached.proc.stderr().splitlines()
    assert all(sum(f'"request_id":"{i}"' in line for line in lines) == 1 for i in ids)


def test_an_evicted_answer_is_not_answered_again(gqlgate, strawberry_upstream):
    probe = start(gqlgate)
    greet(probe, expect="MISS")
    one_answer = metric(probe, "gqlgate_cache_bytes")
    assert one_answer > 0
    # Room for eight answers like it, so that a repeated hit is still remembered.
    gw = start(gqlgate, CACHE_CONFIG + f"  max_bytes: {int(one_answer * 8)}\n")
    greet(gw, expect="MISS")
    greet(gw)
    greet(gw)
    for i in range(12):
        other = hello(gw, f"evict{i:02}")
        assert other.header("X-Cache") == "MISS", str(other)
    assert metric(gw, "gqlgate_cache_bytes") <= one_answer * 8
    before = strawberry_upstream.count()
    greet(gw, expect="MISS")
    assert strawberry_upstream.count() == before + 1


@pytest.mark.parametrize("repeat", ["same bytes", "another header each time"])
def test_a_repeated_hit_counts_as_a_use_for_the_least_recently_used_order(repeat, gqlgate, strawberry_upstream):
    probe = start(gqlgate)
    hello(probe, "lru-a")
    one_answer = metric(probe, "gqlgate_cache_bytes")
    # Eight answers of the same size fit, a ninth drops the least recently used.
    gw = start(gqlgate, CACHE_CONFIG + f"  max_bytes: {int(one_answer * 8.5)}\n")
    assert [hello(gw, "lru-a").header("X-Cache") for _ in range(2)] == ["MISS", "HIT"]
    for i in range(7):
        assert hello(gw, f"lru-{i}").header("X-Cache") == "MISS"
    for i in range(3):
        headers = {"X-Foo": str(i)} if repeat == "another header each time" else None
        assert hello(gw, "lru-a", headers).header("X-Cache") == "HIT"
    assert hello(gw, "lru-7").header("X-Cache") == "MISS"
    assert hello(gw, "lru-0").header("X-Cache") == "MISS", "the least recently used answer is dropped first"
    again = hello(gw, "lru-a")
    assert again.header("X-Cache") == "HIT", f"the most recently used answer was dropped:\n{again}"


def test_with_a_rate_limit_every_repeated_hit_is_still_counted_against_it(gqlgate):
    gw = start(gqlgate, CACHE_CONFIG + "clients:\n  rate_limit: {requests_per_second: 0.001, burst: 3, by: global}\n")
    assert [greet(gw, expect=None).header("X-Cache") for _ in range(3)] == ["MISS", "HIT", "HIT"]
    assert_gateway_error(post_graphql(gw.url, GREETING), 429, "RATE_LIMITED")



def test_a_revoked_client_key_is_refused_even_for_a_repeated_hit(gqlgate, tmp_path):
    keys = tmp_path / "client-keys"
    keys.write_text("key-one\n")
    gw = start(gqlgate, config=CACHE_CONFIG + f"clients:\n  api_keys_file: {keys}\n")
    headers = {"X-Api-Key": "key-one"}
    greet(gw, headers=headers, expect="MISS")
    for _ in range(3):
        greet(gw, headers=headers)
    (tmp_path / "client-keys.next").write_text("key-two\n")
    (tmp_path / "client-keys.next").replace(keys)

    wait_until(lambda: post_graphql(gw.url, GREETING, headers=headers).status == 401, timeout=5, what="the revoked key to be refused")
    assert_gateway_error(post_graphql(gw.url, GREETING, headers=headers), 401, "UNAUTHENTICATED")


def test_a_request_with_many_and_large_header_fields_is_answered_again(cached, strawberry_upstream):
    headers = {f"X-Field-{i}": ("v" * 60 + "  ") for i in range(40)}
    headers["Cookie"] = "session=" + "c" * 2000
    greet(cached, headers=headers, expect=None)
    first = greet(cached, headers=headers)
    before = strawberry_upstream.count()
    for _ in range(3):
        assert_same_answer(greet(cached, headers=headers), first)
    assert strawberry_upstream.count() == before
