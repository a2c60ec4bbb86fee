"""``clients.rate_limit.store: redis``: one budget for the fleet. Three gqlgate processes share one
Redis and a global limit of 50 requests a second with a burst of 50; each is sent as much load as
the test's threads can make, at once, for a few seconds. Together they let through what one
gqlgate alone lets through under the same load over the same time (measured in the same run),
within 10 %; with ``store: memory`` three let through about three times that. Redis stopped under
load fails no request: each replica limits on its own, and says so in its log.

Run with ``-s`` to see the figures (docs/traffic.md quotes them)."""

from __future__ import annotations

import http.client
import json
import shutil
import threading
import time
import typing

import pytest

from harness import curl, wait_until
from redis_servers import redis, redis_cli, redis_cluster  # noqa: F401 (fixtures)

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed (make deps)")

RATE, BURST = 50, 50
SECONDS = 4.0
THREADS_PER_GATEWAY = 3
BODY = json.dumps({"query": "{ hello }"})
PER_REPLICA = "redis unavailable; rate limits are per replica until it is back"
SETTLEMENTS_FAIL = "rate limit settlements with redis fail; each replica limits on its own until they succeed"


def config(store: str, redis_url: str = "") -> str:
    # Warnings only: tens of thousands of access lines would cost the machine more than the load does.
    text = "logging: {level: warn}\n"
    text += f"clients:\n  rate_limit: {{requests_per_second: {RATE}, burst: {BURST}, by: global, store: {store}}}\n"
    if redis_url:
        text += f'redis: {{url: "{redis_url}", key_prefix: "rl-fleet-test:"}}\n'
    return text


class Load:
    """``THREADS_PER_GATEWAY`` threads per gateway, each posting ``{ hello }`` over its own kept-alive
    connection as fast as answers come, all from the same instant for ``seconds``. Answers are
    counted by status; a request that gets no answer is kept as an error."""

    def __init__(self, gateways: typing.Sequence, seconds: float = SECONDS) -> None:
        self.gateways = gateways
        self.seconds = seconds
        self.statuses: list[dict[int, int]] = [{} for _ in gateways]
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._start = threading.Barrier(len(gateways) * THREADS_PER_GATEWAY + 1)
        self.started = 0.0

    def _run(self, index: int) -> None:
        gw = self.gateways[index]
        counts: dict[int, int] = {}
        conn = http.client.HTTPConnection("127.0.0.1", gw.port, timeout=10)
        self._start.wait()
        deadline = self.started + self.seconds
        while time.monotonic() < deadline:
            try:
                conn.request("POST", "/graphql", BODY, {"Content-Type": "application/json"})
                answer = conn.getresponse()
                answer.read()
                counts[answer.status] = counts.get(answer.status, 0) + 1
            except Exception as e:  # noqa: BLE001 - kept, and failed on below
                with self._lock:
                    self.errors.append(f"gateway {index}: {e!r}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", gw.port, timeout=10)
        conn.close()
        with self._lock:
            for status, n in counts.items():
                self.statuses[index][status] = self.statuses[index].get(status, 0) + n

    def run(self, during: typing.Optional[typing.Callable[[], None]] = None) -> "Load":
        threads = [threading.Thread(target=self._run, args=(i,), daemon=True)
                   for i in range(len(self.gateways)) for _ in range(THREADS_PER_GATEWAY)]  # fmt: skip
        for t in threads:
            t.start()
        self.started = time.monotonic() + 0.05
        self._start.wait()
        if during is not None:
            during()
        for t in threads:
            t.join(timeout=self.seconds + 30)
        return self

    def admitted(self) -> int:
        return sum(s.get(200, 0) for s in self.statuses)

    def answered(self) -> int:
        return sum(sum(s.values()) for s in self.statuses)

    def unexpected(self) -> list[str]:
        """Answers other than 200 and 429, and requests without an answer."""
        odd = [f"gateway {i}: {status} x{n}" for i, s in enumerate(self.statuses) for status, n in s.items() if status not in (200, 429)]
        return odd + self.errors

    def summary(self) -> str:
        return f"{self.admitted()} admitted of {self.answered()} answered ({[s.get(200, 0) for s in self.statuses]} per replica)"


def metric(gw, series: str) -> float:
    for line in curl(gw.path("/metrics")).text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    return 0.0


def logged(gw, message: str) -> int:
    """How many times gqlgate logged ``message`` so far (its whole stderr)."""
    return sum(f'"msg":"{message}"' in line for line in gw.proc.stderr_path.read_text().splitlines())


def test_three_replicas_share_one_budget_and_redis_stopped_under_load_fails_no_request(gqlgate, redis, strawberry_upstream):  # noqa: F811
    shared = [gqlgate(config=config("redis", redis.url)) for _ in range(3)]
    separate = [gqlgate(config=config("memory")) for _ in range(3)]
    wait_until(lambda: redis_cli(redis.port, "ZCARD", "rl-fleet-test:rl:replicas") == "3", timeout=5,
               what="every shared replica to announce itself to the others")  # fmt: skip

    # One replica alone: the figure the fleet is held to, measured here under the same load.
    single = Load(separate[:1]).run()
    assert not single.unexpected(), single.unexpected()
    expected = RATE * SECONDS + BURST
    print(f"\none replica (store: memory): {single.summary()}; rate x time + burst = {expected:.0f}")
    assert single.answered() > 4 * single.admitted(), "the load must be well over the limit: " + single.summary()
    assert abs(single.admitted() / expected - 1) <= 0.1, single.summary()

    fleet = Load(shared).run()
    assert not fleet.unexpected(), fleet.unexpected()
    ratio = fleet.admitted() / single.admitted()
    print(f"three replicas (store: redis): {fleet.summary()}; {ratio:.3f} of one replica")
    assert all(s.get(200, 0) > 0 for s in fleet.statuses), fleet.summary()
    assert abs(ratio - 1) <= 0.1, f"fleet {fleet.summary()}, one replica {single.summary()}"
    for gw in shared:
        assert metric(gw, 'gqlgate_rate_limit_settlements_total{outcome="ok"}') > 0
        assert metric(gw, 'gqlgate_rate_limit_settlements_total{outcome="failed"}') == 0

    # Each bucket was full again long before (one second refills it).
    each = Load(separate).run()
    assert not each.unexpected(), each.unexpected()
    per_replica = each.admitted() / single.admitted()
    print(f"three replicas (store: memory): {each.summary()}; {per_replica:.3f} of one replica")
    assert 2.5 <= per_replica <= 3.3, f"{each.summary()}, one replica {single.summary()}"

    def stop_redis() -> None:
        time.sleep(1.5)
        redis.stop()

    outage = Load(shared).run(during=stop_redis)
    print(f"three replicas (store: redis), Redis stopped after 1.5 s: {outage.summary()}")
    assert not outage.unexpected(), "every request is answered 200 or 429:\n" + "\n".join(outage.unexpected()[:10])
    # Past the stop each replica admits the whole rate on its own.
    assert outage.admitted() > fleet.admitted() * 1.3, f"outage {outage.summary()}, shared {fleet.summary()}"
    for gw in shared:
        wait_until(lambda: logged(gw, PER_REPLICA) == 1 and logged(gw, SETTLEMENTS_FAIL) == 1, timeout=5,
                   what="the log lines saying the limit is per replica", alive=gw.proc)  # fmt: skip
        assert metric(gw, 'gqlgate_rate_limit_settlements_total{outcome="failed"}') > 0
        assert metric(gw, 'gqlgate_redis_errors_total{store="rate_limit"}') > 0
        assert metric(gw, "gqlgate_redis_up") == 0


def test_three_replicas_share_one_budget_in_a_cluster(gqlgate, redis_cluster, strawberry_upstream):  # noqa: F811
    shared = [gqlgate(config=config("redis", redis_cluster.url)) for _ in range(3)]
    wait_until(lambda: redis_cli(redis_cluster.ports[0], "ZCARD", "rl-fleet-test:rl:replicas", cluster=True) == "3", timeout=5,
               what="every shared replica to announce itself to the others")  # fmt: skip
    fleet = Load(shared).run()
    assert not fleet.unexpected(), fleet.unexpected()
    expected = RATE * SECONDS + BURST
    print(f"\nthree replicas (store: redis, a cluster): {fleet.summary()}; rate x time + burst = {expected:.0f}")
    assert abs(fleet.admitted() / expected - 1) <= 0.1, fleet.summary()
    for gw in shared:
        assert metric(gw, 'gqlgate_rate_limit_settlements_total{outcome="failed"}') == 0
