"""Redis as the fleet's shared engine (the ``redis`` section), end to end through each form gqlgate
reaches it by: one server (``redis.url``, and the first release's ``cache.redis_url``), TLS (the
server verified, a client certificate, a CA that does not verify it), a cluster of three masters
(answers spread over them, a reshard under load) and a master behind sentinels (a failover and a
master's death under load). In each, an answer is a miss then a hit, and a mutation purges it;
while Redis is unavailable every request is still answered, from the upstream."""

from __future__ import annotations

import itertools
import shutil
import threading
import time
import typing
from pathlib import Path

import pytest

from harness import Response, curl, post_graphql, wait_for_schema_learned, wait_until
from redis_servers import (  # noqa: F401 (fixtures)
    RedisSentinel,
    key_slot,
    make_ca,
    redis,
    redis_cli,
    redis_cluster,
    redis_half_cluster,
    redis_mtls,
    redis_sentinel,
    redis_sentinel_protected,
    redis_tls,
)
from test_cli import run_cli

REVIEWS = "query Reviews($episode: Episode!) { reviews(episode: $episode) { id stars commentary } }"
CREATE_REVIEW = """
mutation Create($episode: Episode!) { createReview(episode: $episode, review: {stars: 2, commentary: "fleet"}) { id stars } }
"""
HELLO = "query Hello($name: String) { hello(name: $name) }"
PREFIX = "fleet-test:"
UP, RECONNECTS, CACHE_ERRORS = "gqlgate_redis_up", "gqlgate_redis_reconnects_total", 'gqlgate_redis_errors_total{store="cache"}'

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed (make deps)")


def config(url: str, tls: str = "") -> str:
    """The cache in the Redis of the ``redis`` section (no ``cache.redis_url``)."""
    return f"""
redis:
  url: "{url}"
  key_prefix: "{PREFIX}"
  timeout: 250ms
{tls}
cache:
  enabled: true
  backend: redis
  default_ttl: 30s
"""


def tls_section(ca_file: Path, cert_file: typing.Optional[Path] = None, key_file: typing.Optional[Path] = None,
                server_name: str = "") -> str:  # fmt: skip
    lines = ["  tls:", f"    ca_file: {ca_file}"]
    if cert_file is not None:
        lines += [f"    cert_file: {cert_file}", f"    key_file: {key_file}"]
    if server_name:
        lines.append(f"    server_name: {server_name}")
    return "\n".join(lines)


def started(gqlgate, text: str, count: int = 1) -> list:
    """``count`` gqlgate processes with ``text`` as their config, each with the upstream schema learned
    (what a mutation's purge needs)."""
    gateways = [gqlgate(config=text) for _ in range(count)]
    for gw in gateways:
        wait_for_schema_learned(gw)
    return gateways


def metric(gw, series: str) -> typing.Optional[float]:
    for line in curl(gw.path("/metrics")).text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    return None


def hello(gw, name: str) -> Response:
    r = post_graphql(gw.url, HELLO, {"name": name}, timeout=5)
    assert r.status == 200 and r.json() == {"data": {"hello": f"Hello, {name}!"}}, str(r)
    return r


def assert_shared(a, b, upstream, episode: str) -> None:
    """Through ``a`` a miss, through ``b`` a hit (the upstream not asked); a mutation through ``a``
    purges it, so ``b`` asks the upstream again and then has it stored again."""
    first = post_graphql(a.url, REVIEWS, {"episode": episode})
    assert first.status == 200 and first.header("X-Cache") == "MISS", str(first)
    before = upstream.count()
    second = post_graphql(b.url, REVIEWS, {"episode": episode})
    assert second.status == 200 and second.header("X-Cache") == "HIT", str(second)
    assert second.body == first.body
    assert upstream.count() == before, "a hit does not ask the upstream"
    created = post_graphql(a.url, CREATE_REVIEW, {"episode": episode})
    assert created.status == 200 and "errors" not in created.json(), str(created)
    purged = post_graphql(b.url, REVIEWS, {"episode": episode})
    assert purged.header("X-Cache") == "MISS", str(purged)
    assert created.json()["data"]["createReview"]["id"] in [r["id"] for r in purged.json()["data"]["reviews"]]
    again = post_graphql(a.url, REVIEWS, {"episode": episode})
    assert again.header("X-Cache") == "HIT" and again.body == purged.body, str(again)


def hits_resume(gateways, names: typing.Sequence[str], upstream) -> None:
    """Every name's answer is a hit again, through each gateway, without the upstream."""
    for name in names:
        wait_until(lambda: hello(gateways[0], name).header("X-Cache") == "HIT", timeout=10,
                   what=f"a hit for {name!r} again")  # fmt: skip
    before = upstream.count()
    for gw in gateways:
        for name in names:
            r = hello(gw, name)
            assert r.header("X-Cache") == "HIT", str(r)
    assert upstream.count() == before


class Load:
    """A thread posting hello queries for ``names`` in turn, through ``gateways`` in turn, until
    stopped; every answer (or curl's failure) is kept."""

    def __init__(self, gateways: typing.Sequence, names: typing.Sequence[str]) -> None:
        self.gateways = gateways
        self.names = names
        self.answers: list[tuple[str, typing.Union[Response, Exception]]] = []
        self.times: list[float] = []  # when each answer came, monotonic
        self.event_started = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="load", daemon=True)

    def _run(self) -> None:
        for n in itertools.count():
            if self._stop.is_set():
                return
            name = self.names[n % len(self.names)]
            try:
                answer: typing.Union[Response, Exception] = post_graphql(
                    self.gateways[n % len(self.gateways)].url, HELLO, {"name": name}, timeout=5
                )
            except Exception as e:  # noqa: BLE001 - kept, and failed on below
                answer = e
            self.times.append(time.monotonic())
            self.answers.append((name, answer))

    def __enter__(self) -> "Load":
        self._thread.start()
        return self

    def __exit__(self, *exc: typing.Any) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def wait_for(self, count: int) -> None:
        wait_until(lambda: len(self.answers) >= count, timeout=60, what=f"{count} answers to the load loop",
                   interval=0.1)  # fmt: skip

    def run_through(self, event: typing.Callable[[], None], before: int = 60, after: int = 120) -> None:
        """``before`` answers, then ``event`` while the loop goes on, then ``after`` more (300 at least)."""
        self.wait_for(before)
        self.event_started = time.monotonic()
        event()
        self.wait_for(max(300, len(self.answers) + after))

    def failures(self) -> list[str]:
        failed = []
        for name, answer in self.answers:
            if isinstance(answer, Exception):
                failed.append(f"{name}: {answer}")
            elif answer.status != 200 or answer.json() != {"data": {"hello": f"Hello, {name}!"}}:
                failed.append(f"{name}: {answer}")
            elif answer.header("X-Cache") not in ("HIT", "MISS", "BYPASS"):
                failed.append(f"{name}: X-Cache {answer.header('X-Cache')}\n{answer}")
        return failed

    def assert_all_answered(self) -> None:
        failed = self.failures()
        assert not failed, f"{len(failed)} of {len(self.answers)} answers failed:\n" + "\n".join(failed[:5])

    def bypass_summary(self) -> str:
        """How the event showed: the answers bypassed after it started, and over how long (printed
        with -s; docs/redis.md quotes it)."""
        late = [(t, a) for t, (_, a) in zip(self.times, self.answers) if t >= self.event_started and isinstance(a, Response)]
        bypassed = [t for t, a in late if a.header("X-Cache") == "BYPASS"]
        if not bypassed:
            return f"{len(late)} answers after the event, none bypassed"
        return (f"{len(late)} answers after the event, {len(bypassed)} bypassed, from {1000 * (bypassed[0] - self.event_started):.0f} ms "
                f"to {1000 * (bypassed[-1] - self.event_started):.0f} ms after it started")

    def cache_states(self) -> set[str]:
        return {a.header("X-Cache") or "" for _, a in self.answers if isinstance(a, Response)}


NAMES = [f"load-{n}" for n in range(12)]


# ---------------------------------------------------------------------------
# One server


def test_the_redis_section_alone_holds_the_shared_cache(gqlgate, redis, strawberry_upstream):  # noqa: F811
    a, b = started(gqlgate, config(redis.url), 2)
    assert_shared(a, b, strawberry_upstream, "JEDI")
    keys = redis.cli("--scan", "--pattern", "*").split()
    assert keys and all(key.startswith(PREFIX) for key in keys), keys
    assert metric(a, UP) == 1 and metric(b, UP) == 1


def test_cache_redis_url_alone_still_works(gqlgate, redis, strawberry_upstream):  # noqa: F811
    old_form = f"cache:\n  enabled: true\n  backend: redis\n  redis_url: {redis.url}\n  default_ttl: 30s\n"
    a, b = started(gqlgate, old_form, 2)
    assert_shared(a, b, strawberry_upstream, "EMPIRE")
    assert redis.dbsize() > 0


def test_redis_killed_under_load_fails_no_request_and_caching_resumes(gqlgate, redis, strawberry_upstream):  # noqa: F811
    (gw,) = started(gqlgate, config(redis.url))
    assert hello(gw, "first").header("X-Cache") == "MISS"
    assert metric(gw, UP) == 1
    reconnects, errors = metric(gw, RECONNECTS) or 0, metric(gw, CACHE_ERRORS) or 0
    with Load([gw], NAMES) as load:
        load.wait_for(60)
        load.event_started = time.monotonic()
        redis.kill()
        wait_until(lambda: metric(gw, UP) == 0, timeout=5, what="gqlgate_redis_up 0 once Redis is killed")
        load.wait_for(len(load.answers) + 60)
        redis.start()
        wait_until(lambda: metric(gw, UP) == 1, timeout=10, what="gqlgate_redis_up 1 once Redis is back")
        load.wait_for(max(300, len(load.answers) + 60))
    load.assert_all_answered()
    print(load.bypass_summary())
    assert {"HIT", "BYPASS"} <= load.cache_states(), load.cache_states()
    assert metric(gw, RECONNECTS) > reconnects
    assert metric(gw, CACHE_ERRORS) > errors
    hits_resume([gw], NAMES, strawberry_upstream)


# ---------------------------------------------------------------------------
# TLS


@pytest.mark.parametrize("server_name", ["", "localhost"], ids=["ip-san", "server-name"])
def test_tls_with_the_server_certificate_verified(gqlgate, redis_tls, strawberry_upstream, server_name):  # noqa: F811
    # The URL's host is an IP: the certificate carries it as an IP SAN, and also DNS:localhost
    # for tls.server_name.
    assert redis_tls.url.startswith("rediss://127.0.0.1:")
    (gw,) = started(gqlgate, config(redis_tls.url, tls_section(redis_tls.ca_file, server_name=server_name)))
    assert_shared(gw, gw, strawberry_upstream, "NEWHOPE")
    assert redis_tls.dbsize() > 0
    assert metric(gw, UP) == 1


def test_tls_with_a_client_certificate_the_server_requires(gqlgate, redis_mtls, strawberry_upstream):  # noqa: F811
    tls = tls_section(redis_mtls.ca_file, redis_mtls.cert_file, redis_mtls.key_file)
    (gw,) = started(gqlgate, config(redis_mtls.url, tls))
    assert_shared(gw, gw, strawberry_upstream, "JEDI")
    assert redis_mtls.dbsize() > 0


def test_tls_with_a_ca_that_does_not_verify_the_server_bypasses_and_says_why(gqlgate, redis_tls, strawberry_upstream, tmp_path):  # noqa: F811
    other_ca, _ = make_ca(tmp_path / "other", "other-ca")
    (gw,) = started(gqlgate, config(redis_tls.url, tls_section(other_ca)))
    wait_until(lambda: metric(gw, UP) == 0, timeout=5, what="gqlgate_redis_up 0")
    for _ in range(3):
        before = strawberry_upstream.count()
        r = hello(gw, "unverified")
        assert r.header("X-Cache") == "BYPASS", str(r)
        assert strawberry_upstream.count() == before + 1, "answered by the upstream"
    assert redis_tls.dbsize() == 0
    named = [line for line in gw.proc.stderr().lower().splitlines()
             if "redis" in line and "tls" in line and any(w in line for w in ("certif", "verif", "trust", "issuer"))]  # fmt: skip
    assert named, "no log line names the TLS failure (the certificate not verified):\n" + gw.proc.stderr()


# ---------------------------------------------------------------------------
# Cluster


def test_cluster_two_gateways_share_answers_spread_over_the_masters(gqlgate, redis_cluster, strawberry_upstream):  # noqa: F811
    a, b = started(gqlgate, config(redis_cluster.url), 2)
    assert_shared(a, b, strawberry_upstream, "EMPIRE")
    names = [f"spread-{n}" for n in range(24)]
    for name in names:
        assert hello(a, name).header("X-Cache") == "MISS"
    spread = redis_cluster.keys_per_node(PREFIX + "*")
    assert len([port for port, keys in spread.items() if keys]) > 1, f"every answer on one master: {spread}"
    hits_resume([b], names, strawberry_upstream)


def test_cluster_reshard_under_load_fails_no_request_and_hits_resume(gqlgate, redis_cluster, strawberry_upstream):  # noqa: F811
    cluster = redis_cluster
    a, b = started(gqlgate, config(cluster.url), 2)
    for name in NAMES:
        hello(a, name)
    # The master holding most of the answers gives the target the slots of some of them.
    held = cluster.keys_per_node(PREFIX + "*")
    source = max(held, key=held.get)
    target = next(port for port in cluster.ports if port != source)
    slots = cluster.slots_to_move(source, keys=1, pattern=PREFIX + "*", least=200)
    moved_slots = set(sorted(cluster.slots_per_node()[source])[:slots])
    moving = [key for key in cluster.keys(source, PREFIX + "*") if key_slot(key) in moved_slots]
    assert moving
    with Load([a, b], NAMES) as load:
        load.run_through(lambda: cluster.reshard(slots, source, target))
    load.assert_all_answered()
    print(load.bypass_summary())
    assert set(moving) <= set(cluster.keys(target, PREFIX + "*")), "the answers moved with their slots"
    hits_resume([a, b], NAMES, strawberry_upstream)


def test_cluster_slots_no_master_serves_are_bypassed_at_once(gqlgate, redis_half_cluster, strawberry_upstream):  # noqa: F811
    """Half the slots have no master: answers whose keys fall there are bypassed at once (not held
    until the client gives up), and the other half is stored and hit as usual."""
    (gw,) = started(gqlgate, config(redis_half_cluster.url))
    names = [f"half-{n}" for n in range(16)]
    first = {}
    for name in names:
        started_at = time.monotonic()
        first[name] = hello(gw, name).header("X-Cache")
        assert time.monotonic() - started_at < 2, f"{name}: {time.monotonic() - started_at:.2f} s"
    assert set(first.values()) == {"MISS", "BYPASS"}, first
    stored = [name for name, cache in first.items() if cache == "MISS"]
    assert redis_half_cluster.keys(PREFIX + "*"), "the served slots hold answers"
    for name, cache in first.items():
        assert hello(gw, name).header("X-Cache") == ("HIT" if name in stored else "BYPASS"), name


# ---------------------------------------------------------------------------
# Sentinel


def stored_in(sentinel: RedisSentinel, port: int, gw, name: str) -> bool:
    """A miss for ``name`` through ``gw`` adds keys to the server at ``port``."""
    before = set(sentinel.keys(port, PREFIX + "*"))
    assert hello(gw, name).header("X-Cache") in ("MISS", "BYPASS")
    return bool(set(sentinel.keys(port, PREFIX + "*")) - before)


def assert_follows_the_new_master(sentinel: RedisSentinel, gw, upstream) -> None:
    """New answers go to the master the sentinels name now, and are hits."""
    fresh = (f"after-{n}" for n in itertools.count())
    name = ""

    def stored() -> bool:
        nonlocal name
        name = next(fresh)
        return stored_in(sentinel, sentinel.master_port, gw, name)

    wait_until(stored, timeout=10, what=f"a new answer stored in the new master {sentinel.master_port}", interval=0.2)
    r = hello(gw, name)
    assert r.header("X-Cache") == "HIT", str(r)
    hits_resume([gw], NAMES, upstream)


def test_sentinel_answers_are_stored_in_the_master(gqlgate, redis_sentinel, strawberry_upstream):  # noqa: F811
    (gw,) = started(gqlgate, config(redis_sentinel.url))
    assert_shared(gw, gw, strawberry_upstream, "NEWHOPE")
    assert redis_sentinel.keys(redis_sentinel.master_port, PREFIX + "*")
    assert metric(gw, UP) == 1


def test_sentinel_failover_under_load_fails_no_request(gqlgate, redis_sentinel, strawberry_upstream):  # noqa: F811
    (gw,) = started(gqlgate, config(redis_sentinel.url))
    with Load([gw], NAMES) as load:
        load.run_through(redis_sentinel.failover)
    load.assert_all_answered()
    print(load.bypass_summary())
    assert_follows_the_new_master(redis_sentinel, gw, strawberry_upstream)


def test_sentinels_that_require_the_password_are_logged_in_to_and_followed(gqlgate, redis_sentinel_protected, strawberry_upstream):  # noqa: F811
    """Sentinels with ``requirepass`` (the master's password, as Bitnami's chart sets them up) are
    sent the URL's AUTH: the master is found, answers are stored there, a failover is followed."""
    sentinel = redis_sentinel_protected
    assert redis_cli(sentinel.sentinel_ports[0], "SENTINEL", "MASTERS").startswith("NOAUTH"), "the sentinels require the password"
    (gw,) = started(gqlgate, config(sentinel.url))
    assert_shared(gw, gw, strawberry_upstream, "JEDI")
    assert sentinel.keys(sentinel.master_port, PREFIX + "*")
    with Load([gw], NAMES) as load:
        load.run_through(sentinel.failover)
    load.assert_all_answered()
    assert_follows_the_new_master(sentinel, gw, strawberry_upstream)


def test_sentinel_master_killed_under_load_fails_no_request(gqlgate, redis_sentinel, strawberry_upstream):  # noqa: F811
    (gw,) = started(gqlgate, config(redis_sentinel.url))
    with Load([gw], NAMES) as load:
        load.run_through(redis_sentinel.kill_master)
    load.assert_all_answered()
    print(load.bypass_summary())
    assert_follows_the_new_master(redis_sentinel, gw, strawberry_upstream)


# ---------------------------------------------------------------------------
# check-config


@pytest.mark.parametrize(
    "url",
    ["redis://:pw@127.0.0.1:6379/2", "redis-sentinel://:pw@127.0.0.1:26379,127.0.0.1:26380/mymaster",
     "redis-cluster://127.0.0.1:7000,127.0.0.1:7001"],
    ids=["redis", "sentinel", "cluster"],
)  # fmt: skip
def test_check_config_accepts_each_url_form(gqlgate_bin, tmp_path, url):
    path = tmp_path / "gqlgate.yaml"
    path.write_text(config(url))
    r = run_cli(gqlgate_bin, "check-config", str(path), cwd=tmp_path)
    assert r.rc == 0, str(r)
    assert ":pw@" not in r.output, "the password is redacted"


@pytest.mark.parametrize(
    "redis_section, key",
    [('redis:\n  url: "memcached://127.0.0.1:11211"\n', "redis.url"),
     ("redis:\n  url: rediss://127.0.0.1:6380\n  tls:\n    ca_file: {missing}\n", "redis.tls.ca_file")],
    ids=["unknown-scheme", "missing-ca-file"],
)  # fmt: skip
def test_check_config_refuses_and_names_the_key(gqlgate_bin, tmp_path, redis_section, key):
    path = tmp_path / "gqlgate.yaml"
    path.write_text(redis_section.format(missing=tmp_path / "no-such-ca.pem") + "cache:\n  enabled: true\n  backend: redis\n")
    r = run_cli(gqlgate_bin, "check-config", str(path), cwd=tmp_path)
    assert r.rc == 1, str(r)
    assert key in r.output, str(r)
