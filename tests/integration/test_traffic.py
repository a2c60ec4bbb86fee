"""Traffic protection against the Strawberry upstream: client rate limits,
upstream concurrency with load shedding, and the circuit breaker.

The upstream counts the requests of each ``X-Load-Key`` in progress at once
(``/load/{key}``) and fails the first N requests of an ``X-Fail-Key``
(``flaky.py``); the configs forward those headers.
"""

from __future__ import annotations

import concurrent.futures
import json
import re
import signal
import time
import urllib.request
import uuid

from harness import assert_gateway_error, curl, post_graphql, wait_until
from test_ops import log_records
from test_subscriptions_ws import TICKS, initialised, own_upstream, own_upstream_factory, recv_end, recv_type, subscribe  # noqa: F401

FORWARD = "headers:\n  forward: [x-load-key, x-fail-key, x-fail-times, x-fail-status]\n"
NO_RETRIES = "retry: {max_attempts: 1}\n"


def metric(gw, series: str) -> float:
    text = curl(gw.path("/metrics")).text
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    return 0.0


def upstream_json(upstream, path: str) -> dict:
    with urllib.request.urlopen(upstream.path(path), timeout=5) as r:
        return json.loads(r.read())


def test_a_client_over_its_limit_gets_429_with_the_ratelimit_fields_while_another_is_untouched(gqlgate, tmp_path):
    keys = tmp_path / "keys"
    keys.write_text("key-one\nkey-two\n")
    gw = gqlgate(config=f"""
clients:
  api_keys_file: {keys}
  rate_limit: {{requests_per_second: 0.1, burst: 3, by: key}}
cache: {{enabled: true}}
""")
    one = [post_graphql(gw.url, "{ hello }", headers={"X-Api-Key": "key-one"}) for _ in range(3)]
    assert [r.status for r in one] == [200, 200, 200]
    assert one[-1].header("x-cache") == "HIT"  # cache hits take tokens too
    refused = post_graphql(gw.url, "{ hello }", headers={"X-Api-Key": "key-one"})
    assert_gateway_error(refused, 429, "RATE_LIMITED")
    assert 1 <= int(refused.header("retry-after")) <= 10
    assert refused.header("ratelimit-policy") == '"default";q=3;w=30'
    match = re.fullmatch(r'"default";r=0;t=(\d+)', refused.header("ratelimit") or "")
    assert match and 20 <= int(match.group(1)) <= 30, refused.header("ratelimit")
    two = [post_graphql(gw.url, "{ hello }", headers={"Authorization": "Bearer key-two"}) for _ in range(3)]
    assert [r.status for r in two] == [200, 200, 200]
    assert metric(gw, "gqlgate_rate_limited_total") == 1
    [line] = [r for r in log_records(gw.proc) if r.get("shed")]
    assert (line["shed"], line["status"], line["request_id"]) == ("rate_limited", 429, refused.header("x-request-id"))


def test_each_websocket_subscribe_takes_a_token_from_the_bucket_of_the_key_sent_in_connection_init(gqlgate, tmp_path):
    keys = tmp_path / "keys"
    keys.write_text("key-one\nkey-two\n")
    gw = gqlgate(config=f"clients:\n  api_keys_file: {keys}\n  rate_limit: {{requests_per_second: 0.1, burst: 2}}\n")
    ws = initialised(gw, payload={"X-Api-Key": "key-one"})
    try:
        for n in range(2):
            subscribe(ws, f"s{n}", "subscription { countdown(from: 1) }")
            assert recv_end(ws)["type"] == "complete"
        subscribe(ws, "s2", "subscription { countdown(from: 1) }")
        refused = recv_end(ws)
        assert refused["type"] == "error" and refused["id"] == "s2", refused
        assert refused["payload"][0]["extensions"]["code"] == "RATE_LIMITED", refused
    finally:
        ws.close()
    assert_gateway_error(post_graphql(gw.url, "{ hello }", headers={"X-Api-Key": "key-one"}), 429, "RATE_LIMITED")
    assert post_graphql(gw.url, "{ hello }", headers={"X-Api-Key": "key-two"}).status == 200


def test_by_header_each_value_has_its_own_bucket(gqlgate):
    gw = gqlgate(config="clients:\n  rate_limit: {requests_per_second: 0.1, burst: 1, by: header:X-Tenant}\n")
    assert post_graphql(gw.url, "{ hello }", headers={"X-Tenant": "red"}).status == 200
    assert_gateway_error(post_graphql(gw.url, "{ hello }", headers={"X-Tenant": "red"}), 429, "RATE_LIMITED")
    assert post_graphql(gw.url, "{ hello }", headers={"X-Tenant": "blue"}).status == 200


def test_a_reload_keeps_the_buckets_unless_the_rate_limit_changed(gqlgate):
    limited = "clients:\n  rate_limit: {requests_per_second: 0.1, burst: 1, by: global}\n"
    gw = gqlgate(config=limited)
    assert post_graphql(gw.url, "{ hello }").status == 200
    assert_gateway_error(post_graphql(gw.url, "{ hello }"), 429, "RATE_LIMITED")

    def reload(text: str, count: int) -> None:
        gw.config_path.write_text(text)
        gw.proc.popen.send_signal(signal.SIGHUP)
        wait_until(lambda: len([r for r in log_records(gw.proc) if r.get("msg") == "reloaded"]) == count, timeout=10,
                   what="the reload", alive=gw.proc)

    reload(limited + "limits: {max_depth: 20}\n", 1)
    assert_gateway_error(post_graphql(gw.url, "{ hello }"), 429, "RATE_LIMITED")
    reload(limited.replace("burst: 1", "burst: 2"), 2)
    assert post_graphql(gw.url, "{ hello }").status == 200


def test_at_most_max_concurrency_requests_reach_the_upstream_and_the_rest_are_shed_past_the_queue_timeout(
    gqlgate, strawberry_upstream
):
    gw = gqlgate(config=FORWARD + NO_RETRIES + "dedupe: {enabled: false}\nupstream:\n  max_concurrency: 4\n  queue_timeout: 1s\n")
    key = str(uuid.uuid4())

    def slow_query(_: int):
        return post_graphql(gw.url, "{ slow(seconds: 0.5) }", headers={"X-Load-Key": key}, timeout=30)

    with concurrent.futures.ThreadPoolExecutor(max_workers=50) as pool:
        answers = list(pool.map(slow_query, range(50)))
    served = [r for r in answers if r.status == 200]
    shed = [r for r in answers if r.status != 200]
    stats = upstream_json(strawberry_upstream, f"/load/{key}")
    assert stats["max"] == 4, stats
    assert stats["total"] == len(served), stats
    assert served and shed
    for r in shed:
        assert_gateway_error(r, 503, "UPSTREAM_OVERLOADED")
        assert int(r.header("retry-after")) >= 1
    assert metric(gw, 'gqlgate_load_shed_total{reason="overloaded"}') == len(shed)
    assert metric(gw, "gqlgate_upstream_in_flight") == 0


def two_clients(tmp_path) -> str:
    """Client keys `alpha` and `beta`: the breaker opens only on failures of more than one client."""
    (tmp_path / "keys").write_text("alpha\nbeta\n")
    return f"clients:\n  api_keys_file: {tmp_path / 'keys'}\n"


def test_a_failing_upstream_opens_the_breaker_requests_fail_fast_and_recovery_closes_it(gqlgate, strawberry_upstream, tmp_path):
    gw = gqlgate(config=FORWARD + NO_RETRIES + two_clients(tmp_path) + """upstream:
  circuit_breaker: {enabled: true, error_ratio: 0.5, min_requests: 4, window: 10s, open_for: 1s}
""")
    key = str(uuid.uuid4())
    failing = {"X-Fail-Key": key, "X-Fail-Times": "4", "X-Fail-Status": "503", "X-Api-Key": "alpha"}
    for n in range(4):
        assert post_graphql(gw.url, "{ hello }", headers=failing | {"X-Api-Key": ["alpha", "beta"][n % 2]}).status == 503
    assert metric(gw, "gqlgate_circuit_state") == 1
    for _ in range(5):
        r = post_graphql(gw.url, "{ hello }", headers=failing)
        assert_gateway_error(r, 503, "UPSTREAM_CIRCUIT_OPEN")
        assert r.header("retry-after") == "1"
    assert upstream_json(strawberry_upstream, "/flaky/calls")[key] == 4  # nothing reached it while open
    ready = curl(gw.path("/readyz"))
    assert ready.status == 200, ready.text  # the upstream answers: the gateway can serve

    # gqlgate probes with a query of its own; clients' requests wait for its outcome.
    wait_until(lambda: post_graphql(gw.url, "{ hello }", headers=failing).status == 200, timeout=10, what="a probe that closes it")
    assert upstream_json(strawberry_upstream, "/flaky/calls")[key] == 5  # no client's request went while it was not closed
    assert metric(gw, "gqlgate_circuit_state") == 0
    assert metric(gw, 'gqlgate_load_shed_total{reason="circuit_open"}') >= 5


def test_a_stale_answer_is_served_while_the_breaker_is_open(gqlgate, strawberry_upstream, tmp_path):
    gw = gqlgate(config=FORWARD + NO_RETRIES + two_clients(tmp_path) + """cache: {enabled: true, default_ttl: 1s, stale_if_error: 60s}
upstream:
  circuit_breaker: {enabled: true, error_ratio: 0.5, min_requests: 2, window: 10s, open_for: 60s}
""")
    alpha = {"X-Api-Key": "alpha"}
    key = str(uuid.uuid4())  # X-Load-Key is forwarded, so part of the cache key: the same on every request
    fresh = post_graphql(gw.url, "{ hello }", headers={"X-Load-Key": key} | alpha)
    assert fresh.status == 200 and fresh.header("x-cache") == "MISS"
    failing = {"X-Fail-Key": str(uuid.uuid4()), "X-Fail-Times": "100"}
    for n, client in enumerate(["alpha", "beta"]):
        assert post_graphql(gw.url, "{ books%d: books { id } }" % n, headers=failing | {"X-Api-Key": client}).status == 503
    assert_gateway_error(post_graphql(gw.url, "{ bookCount }", headers=alpha), 503, "UPSTREAM_CIRCUIT_OPEN")

    def stale():
        r = post_graphql(gw.url, "{ hello }", headers={"X-Load-Key": key} | alpha)
        return r.status == 200 and r.header("x-cache") == "HIT" and int(r.header("age") or 0) >= 2 and r.json() == fresh.json()

    wait_until(stale, timeout=10, what="the expired answer served while the breaker is open")
    assert upstream_json(strawberry_upstream, f"/load/{key}")["total"] == 1  # the fresh one; no stale one reached the upstream


def test_the_upstream_websocket_waits_out_an_open_breaker_before_reconnecting(gqlgate, own_upstream):
    gw = gqlgate(own_upstream.url, config=NO_RETRIES + """upstream:
  circuit_breaker: {enabled: true, error_ratio: 0.5, min_requests: 2, window: 10s, open_for: 8s}
""")
    with initialised(gw) as ws:
        subscribe(ws, "1", TICKS)
        recv_type(ws, "next")
        own_upstream.kill()
        # Two clients (two addresses) fail: the breaker opens.
        assert_gateway_error(post_graphql(gw.url, "{ hello }"), 502, "UPSTREAM_UNAVAILABLE")
        assert_gateway_error(post_graphql(gw.url, "{ hello }", extra=["--interface", "127.0.0.2"]), 502, "UPSTREAM_UNAVAILABLE")
        opened = time.monotonic()
        assert_gateway_error(post_graphql(gw.url, "{ hello }"), 503, "UPSTREAM_CIRCUIT_OPEN")
        own_upstream.start()  # back at once; the reconnect backoff alone would find it within a second or two
        wait_until(lambda: own_upstream.stats()["active"] == 1, timeout=20, what="the subscription made again upstream")
        assert time.monotonic() - opened >= 7, "reconnected while the breaker was open"
        assert any(r.get("msg") == "upstream websocket connect waits for the circuit breaker" for r in log_records(gw.proc))
        assert recv_type(ws, "next")["id"] == "1"
