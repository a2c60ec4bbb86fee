"""The circuit breaker cannot be turned into a weapon: one client (key or address) whose queries
make the upstream fail, or time out, cannot open it for everyone; once open, the half-open probe
is gqlgate's own `{ __typename }`, never a client's request; and `/readyz` says whether the
gateway can serve, not whether one client's queries fail."""

from __future__ import annotations

import uuid

from harness import assert_gateway_error, curl, post_graphql, wait_until
from test_traffic import FORWARD, NO_RETRIES, metric, two_clients, upstream_json

BREAKER = "upstream:\n  circuit_breaker: {enabled: true, error_ratio: 0.5, min_requests: 5, window: 10s, open_for: 1s}\n"


def failing(times: int = 100, status: str = "503") -> dict[str, str]:
    return {"X-Fail-Key": str(uuid.uuid4()), "X-Fail-Times": str(times), "X-Fail-Status": status}


def test_one_clients_failing_queries_do_not_open_the_breaker_for_others(gqlgate):
    gw = gqlgate(config=FORWARD + NO_RETRIES + BREAKER)
    poison = failing()
    for _ in range(7):
        assert post_graphql(gw.url, "{ hello }", headers=poison).status == 503
    assert metric(gw, "gqlgate_circuit_state") == 0
    other = post_graphql(gw.url, "{ hello }", extra=["--interface", "127.0.0.2"])
    assert other.status == 200 and "hello" in other.json()["data"], str(other)
    ready = curl(gw.path("/readyz"))
    assert ready.status == 200, ready.text


def test_one_clients_slow_queries_do_not_open_the_breaker(gqlgate, tmp_path):
    gw = gqlgate(config=NO_RETRIES + two_clients(tmp_path) + BREAKER + "  timeout: 300ms\n")
    for _ in range(12):
        slow = post_graphql(gw.url, "{ slow(seconds: 1.0) }", headers={"X-Api-Key": "alpha"})
        assert_gateway_error(slow, 504, "UPSTREAM_TIMEOUT")
    assert metric(gw, "gqlgate_circuit_state") == 0
    assert post_graphql(gw.url, "{ hello }", headers={"X-Api-Key": "beta"}).status == 200


def test_the_half_open_probe_is_gqlgates_own_and_readiness_stays(gqlgate, strawberry_upstream, tmp_path):
    gw = gqlgate(config=FORWARD + NO_RETRIES + two_clients(tmp_path) + BREAKER)
    poison = failing()
    for n in range(6):
        r = post_graphql(gw.url, "{ hello }", headers=poison | {"X-Api-Key": ["alpha", "beta"][n % 2]})
        assert r.status == 503, str(r)
    assert metric(gw, "gqlgate_circuit_state") == 1
    calls = upstream_json(strawberry_upstream, "/flaky/calls")[poison["X-Fail-Key"]]
    assert calls == 6
    # No cache, breaker open: the gateway can still serve (the upstream answers), so it stays in its Service.
    assert curl(gw.path("/readyz")).status == 200

    # One client keeps sending its failing query after the open time: none of them goes upstream;
    # gqlgate's own probe does, and closes the breaker.
    def closed() -> bool:
        r = post_graphql(gw.url, "{ hello }", headers=poison | {"X-Api-Key": "alpha"})
        if r.status == 503 and (r.json().get("errors") or [{}])[0].get("extensions", {}).get("code") == "UPSTREAM_CIRCUIT_OPEN":
            return False
        return metric(gw, "gqlgate_circuit_state") == 0

    wait_until(closed, timeout=10, what="gqlgate's probe to close the breaker")
    # Only the request that found the breaker closed went upstream; the probe carries no X-Fail-Key.
    assert upstream_json(strawberry_upstream, "/flaky/calls")[poison["X-Fail-Key"]] == calls + 1
