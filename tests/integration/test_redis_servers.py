"""The Redis fixtures of redis_servers.py work, checked with redis-cli alone (no gqlgate): one
server, TLS with and without client certificates, a cluster resharded with its keys, and
sentinels through a failover and a master's death."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from redis_servers import (  # noqa: F401
    RedisCliError,
    TLSFiles,
    key_slot,
    redis,
    redis_cli,
    redis_cluster,
    redis_mtls,
    redis_sentinel,
    redis_tls,
)

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed (make deps)")


def test_standalone_answers_and_stops_and_starts(redis):  # noqa: F811
    assert redis.cli("PING") == "PONG"
    assert redis.cli("SET", "k", "v") == "OK"
    redis.stop()
    with pytest.raises(RedisCliError):
        redis.cli("PING")
    redis.start()
    assert redis.cli("PING") == "PONG"
    assert redis.dbsize() == 0, "no persistence: a restart is empty"


def test_tls_answers_a_client_that_trusts_its_ca(redis_tls):  # noqa: F811
    assert redis_tls.url == f"rediss://127.0.0.1:{redis_tls.port}"
    assert redis_cli(redis_tls.port, "PING", tls=TLSFiles(redis_tls.ca_file)) == "PONG", "no client certificate needed"
    assert redis_tls.cli("PING") == "PONG"
    with pytest.raises(RedisCliError):  # plain TCP on the TLS port
        redis_cli(redis_tls.port, "PING", timeout=5)


def test_tls_with_client_auth_wants_a_client_certificate(redis_mtls):  # noqa: F811
    assert redis_cli(redis_mtls.port, "PING", tls=TLSFiles(redis_mtls.ca_file, redis_mtls.cert_file, redis_mtls.key_file)) == "PONG"
    with pytest.raises(RedisCliError):
        redis_cli(redis_mtls.port, "PING", tls=TLSFiles(redis_mtls.ca_file))
    # The server's certificate names 127.0.0.1 and localhost, as a client that verifies it asks.
    text = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName", "-in", str(redis_mtls.server_cert)],
                          capture_output=True, text=True, check=True, timeout=30).stdout
    assert "IP Address:127.0.0.1" in text and "DNS:localhost" in text, text


def test_cluster_serves_every_slot_and_a_reshard_moves_keys(redis_cluster):  # noqa: F811
    cluster = redis_cluster
    assert cluster.url == f"redis-cluster://127.0.0.1:{cluster.ports[0]},127.0.0.1:{cluster.ports[1]}"
    for port in cluster.ports:
        assert "cluster_state:ok" in redis_cli(port, "CLUSTER", "INFO")
    assert sorted(s for slots in cluster.slots_per_node().values() for s in slots) == list(range(16384))
    commands = "".join(f"SET key-{n} {n}\n" for n in range(1000))
    subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(cluster.ports[0]), "-c"], input=commands, text=True,
                   capture_output=True, check=True, timeout=60)  # fmt: skip
    before = cluster.keys_per_node()
    assert sum(before.values()) == 1000 and all(before.values()), before

    source, target = cluster.ports[0], cluster.ports[1]
    slots = cluster.slots_to_move(source, keys=20, least=500)
    moved_slots = set(sorted(cluster.slots_per_node()[source])[:slots])
    moving = [key for key in cluster.keys(source) if key_slot(key) in moved_slots]
    cluster.reshard(slots, source, target)
    after = cluster.keys_per_node()
    assert sum(after.values()) == 1000, after
    assert after[source] == before[source] - len(moving) and after[target] == before[target] + len(moving), (before, after)
    assert len(moving) >= 20
    assert len(cluster.slots_per_node()[target]) == len(range(5461, 10923)) + slots
    # A client that follows MOVED still reads every key.
    assert cluster.cli("GET", moving[0]) == moving[0].removeprefix("key-")
    assert redis_cli(source, "GET", moving[0]).startswith("MOVED ")


def test_sentinel_failover_names_the_new_master(redis_sentinel):  # noqa: F811
    s = redis_sentinel
    assert s.url.startswith(f"redis-sentinel://:{s.password}@127.0.0.1:{s.sentinel_ports[0]},")
    assert s.url.endswith("/mymaster")
    old, new = s.master_port, s.replica_port
    assert all(s.master_named(p) == old for p in s.sentinel_ports)
    assert s.cli(old, "SET", "before", "1") == "OK"
    assert s.sentinel_cli(s.sentinel_ports[1], "PING") == "PONG", "sentinels want no password"
    assert "NOAUTH" in redis_cli(old, "GET", "before"), "the master wants the password"

    s.failover()
    assert (s.master_port, s.replica_port) == (new, old)
    assert all(s.master_named(p) == new for p in s.sentinel_ports)
    assert s.role(new) == "master"
    assert s.cli(new, "GET", "before") == "1", "the replica had the master's keys"
    assert s.cli(new, "SET", "after", "2") == "OK"


def test_sentinel_promotes_the_replica_when_the_master_dies(redis_sentinel):  # noqa: F811
    s = redis_sentinel
    old, new = s.master_port, s.replica_port
    s.kill_master()
    assert s.master_port == new and s.replica is None
    assert all(s.master_named(p) == new for p in s.sentinel_ports)
    assert s.cli(new, "SET", "after", "1") == "OK"
    with pytest.raises(RedisCliError):
        s.cli(old, "PING")
