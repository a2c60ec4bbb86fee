"""Real Redis servers for the tests, in each form gqlgate reaches Redis through: one server
(``RedisStandalone``), one over TLS (``RedisTLS``), a cluster of three masters (``RedisCluster``)
and a master with a replica watched by three sentinels (``RedisSentinel``).

Every server is a ``redis-server`` 7 on 127.0.0.1 on free ports, without persistence, started
through a ``ProcessGroup`` (stopped when the fixture ends, its output attached to failure reports)
and administered with ``redis-cli``, as an operator would. Each wait is bounded and says what it
waits for.
"""

from __future__ import annotations

import socket
import subprocess
import typing
from pathlib import Path

import pytest

from conftest import _RUNNING
from harness import Process, ProcessGroup, free_port, port_open, wait_for_port, wait_until

# Redis's own timeouts (node timeout, down-after, failover) are a few seconds; these leave room.
START_TIMEOUT = 15.0
FAILOVER_TIMEOUT = 30.0

NO_PERSISTENCE = ["--save", "", "--appendonly", "no"]


def redis_cli(port: int, *args: str, tls: typing.Optional["TLSFiles"] = None, password: typing.Optional[str] = None,
              cluster: bool = False, timeout: float = 10) -> str:  # fmt: skip
    """One ``redis-cli`` run against 127.0.0.1:``port``, its output stripped. redis-cli prints an
    error reply (``ERR ...``) and still exits 0, so callers compare the output with what they expect;
    a failure to connect (exit status 1) raises ``RedisCliError``."""
    argv = ["redis-cli", "-h", "127.0.0.1", "-p", str(port)]
    if cluster:
        argv.append("-c")
    if tls is not None:
        argv += ["--tls", "--cacert", str(tls.ca_file)]
        if tls.cert_file is not None:
            argv += ["--cert", str(tls.cert_file), "--key", str(tls.key_file)]
    env = {"PATH": "/usr/bin:/bin:/usr/local/bin"}
    if password is not None:
        env["REDISCLI_AUTH"] = password  # not -a, which warns on stderr
    result = subprocess.run([*argv, *args], capture_output=True, text=True, timeout=timeout, env=env,
                            stdin=subprocess.DEVNULL)  # fmt: skip
    if result.returncode != 0:
        raise RedisCliError(argv + list(args), result.returncode, result.stdout + result.stderr)
    return result.stdout.strip()


class RedisCliError(Exception):
    def __init__(self, argv: list[str], rc: int, output: str) -> None:
        super().__init__(f"redis-cli exited {rc}: {output.strip()}\n  ({' '.join(argv)})")
        self.output = output


def info(port: int, section: str, **kw: typing.Any) -> dict[str, str]:
    """``INFO section`` as a mapping."""
    fields = {}
    for line in redis_cli(port, "INFO", section, **kw).splitlines():
        if ":" in line and not line.startswith("#"):
            name, value = line.split(":", 1)
            fields[name] = value.strip()
    return fields


def answers(port: int, **kw: typing.Any) -> bool:
    """The server at ``port`` answers PING (its port may be open before it serves)."""
    try:
        return redis_cli(port, "PING", timeout=2, **kw) == "PONG"
    except (RedisCliError, subprocess.TimeoutExpired):
        return False


def free_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports on 127.0.0.1 that nothing listens on right now (held together
    while chosen, so none is handed out twice)."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


# ---------------------------------------------------------------------------
# One server


class RedisStandalone:
    """A redis-server without persistence on a fixed free port, stopped and started again at will."""

    def __init__(self, group: ProcessGroup) -> None:
        self.group = group
        self.port = free_port()
        self.proc: typing.Optional[Process] = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = self.group.start(
            "redis-server",
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", *NO_PERSISTENCE],
        )
        wait_for_port("127.0.0.1", self.port, timeout=10, alive=self.proc)

    def stop(self) -> None:
        assert self.proc is not None
        self.proc.stop()
        wait_until(lambda: not port_open("127.0.0.1", self.port), timeout=5, what="redis-server to stop")

    def kill(self) -> None:
        """SIGKILL, as a crash: no orderly shutdown."""
        assert self.proc is not None
        self.proc.popen.kill()
        self.proc.popen.wait(timeout=10)
        self.proc.stop()
        wait_until(lambda: not port_open("127.0.0.1", self.port), timeout=5, what="redis-server to die")

    def cli(self, *args: str) -> str:
        return redis_cli(self.port, *args)

    def dbsize(self) -> int:
        return int(self.cli("DBSIZE"))


# ---------------------------------------------------------------------------
# TLS


def openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)


def make_ca(directory: Path, name: str) -> tuple[Path, Path]:
    """A throwaway certificate authority: ``<name>.pem`` and its key ``<name>.key``."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", f"/CN={name}", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-keyout", str(key), "-out", str(cert))  # fmt: skip
    return cert, key


def make_signed(directory: Path, ca: tuple[Path, Path], name: str, subject: str, extensions: str) -> tuple[Path, Path]:
    """A certificate for ``subject`` signed by ``ca`` with the given X.509v3 extensions, and its key."""
    cert, key, request, ext = (directory / f"{name}.pem", directory / f"{name}.key", directory / f"{name}.csr",
                               directory / f"{name}.ext")  # fmt: skip
    ext.write_text(extensions)
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", subject,
            "-keyout", str(key), "-out", str(request))  # fmt: skip
    openssl("x509", "-req", "-in", str(request), "-CA", str(ca[0]), "-CAkey", str(ca[1]), "-CAcreateserial",
            "-days", "1", "-extfile", str(ext), "-out", str(cert))  # fmt: skip
    return cert, key


class TLSFiles(typing.NamedTuple):
    """What a TLS client of the server presents and trusts."""

    ca_file: Path
    cert_file: typing.Optional[Path] = None
    key_file: typing.Optional[Path] = None


class RedisTLS:
    """A redis-server serving TLS only (``--port 0 --tls-port P``), its certificate (SAN IP:127.0.0.1
    and DNS:localhost) signed by a throwaway CA made with openssl in ``directory``, which also holds a
    client certificate of that CA. With ``auth_clients`` the server refuses a client without one."""

    def __init__(self, group: ProcessGroup, directory: Path, *, auth_clients: bool) -> None:
        self.group = group
        self.directory = directory
        self.auth_clients = auth_clients
        self.ca = make_ca(directory, "redis-ca")
        self.server_cert, self.server_key = make_signed(
            directory, self.ca, "redis-server", "/CN=redis-server",
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
        )  # fmt: skip
        self.client_cert, self.client_key = make_signed(
            directory, self.ca, "redis-client", "/O=gqlgate-test/CN=gqlgate", "extendedKeyUsage=clientAuth\n"
        )
        self.port = free_port()
        self.proc: typing.Optional[Process] = None
        self.start()

    @property
    def url(self) -> str:
        return f"rediss://127.0.0.1:{self.port}"

    @property
    def ca_file(self) -> Path:
        return self.ca[0]

    @property
    def cert_file(self) -> Path:
        """The client certificate (signed by ``ca_file``)."""
        return self.client_cert

    @property
    def key_file(self) -> Path:
        """The client certificate's key."""
        return self.client_key

    @property
    def client_tls(self) -> TLSFiles:
        """What ``redis_cli(tls=...)`` needs to reach this server."""
        return TLSFiles(self.ca_file, self.cert_file, self.key_file)

    def start(self) -> None:
        self.proc = self.group.start(
            "redis-server-tls",
            ["redis-server", "--port", "0", "--tls-port", str(self.port), "--bind", "127.0.0.1", *NO_PERSISTENCE,
             "--tls-cert-file", str(self.server_cert), "--tls-key-file", str(self.server_key),
             "--tls-ca-cert-file", str(self.ca_file), "--tls-auth-clients", "yes" if self.auth_clients else "no"],
        )  # fmt: skip
        wait_until(lambda: answers(self.port, tls=self.client_tls), timeout=START_TIMEOUT,
                   what=f"redis-server to answer PING over TLS on {self.port}", alive=self.proc)  # fmt: skip

    def stop(self) -> None:
        assert self.proc is not None
        self.proc.stop()
        wait_until(lambda: not port_open("127.0.0.1", self.port), timeout=5, what="redis-server (TLS) to stop")

    def cli(self, *args: str) -> str:
        return redis_cli(self.port, *args, tls=self.client_tls)

    def dbsize(self) -> int:
        return int(self.cli("DBSIZE"))


# ---------------------------------------------------------------------------
# Cluster


def key_slot(key: str) -> int:
    """The cluster slot of ``key``: CRC16 (XMODEM) of the key, or of its {hash tag}, mod 16384."""
    data = key.encode()
    start = data.find(b"{")
    if start >= 0:
        end = data.find(b"}", start + 1)
        if end > start + 1:
            data = data[start + 1 : end]
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc % 16384


class RedisHalfCluster:
    """One cluster node serving slots 0-8191 only, with ``cluster-require-full-coverage no``: the
    slot map gives the other half no master, as while a cluster is being made or after
    ``CLUSTER DELSLOTS``."""

    def __init__(self, group: ProcessGroup, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.port, bus = free_ports(2)
        proc = group.start(
            "redis-half-cluster",
            ["redis-server", "--port", str(self.port), "--cluster-port", str(bus), "--bind", "127.0.0.1",
             *NO_PERSISTENCE, "--dir", str(directory), "--cluster-enabled", "yes",
             "--cluster-config-file", str(directory / "nodes.conf"), "--cluster-require-full-coverage", "no"],
        )  # fmt: skip
        wait_until(lambda: answers(self.port), timeout=START_TIMEOUT, what="the node to answer PING", alive=proc)
        assert redis_cli(self.port, "CLUSTER", "ADDSLOTSRANGE", "0", "8191") == "OK"
        wait_until(lambda: "cluster_state:ok" in redis_cli(self.port, "CLUSTER", "INFO"), timeout=START_TIMEOUT,
                   what="cluster_state:ok", alive=proc)  # fmt: skip

    @property
    def url(self) -> str:
        return f"redis-cluster://127.0.0.1:{self.port}"

    def keys(self, pattern: str = "*") -> list[str]:
        return [key for key in redis_cli(self.port, "--scan", "--pattern", pattern).splitlines() if key]


class RedisCluster:
    """Three masters without replicas (``--cluster-enabled yes``), each on a free port with its
    cluster bus on another (``--cluster-port``), joined by ``redis-cli --cluster create``, their slots
    split in three. ``url`` names two of them as seeds."""

    def __init__(self, group: ProcessGroup, directory: Path, masters: int = 3) -> None:
        self.group = group
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        chosen = free_ports(2 * masters)
        self.ports: list[int] = chosen[:masters]
        self.procs: dict[int, Process] = {}
        for port, bus in zip(self.ports, chosen[masters:]):
            self.procs[port] = group.start(
                "redis-cluster-node",
                ["redis-server", "--port", str(port), "--cluster-port", str(bus), "--bind", "127.0.0.1",
                 *NO_PERSISTENCE, "--dir", str(directory), "--cluster-enabled", "yes",
                 "--cluster-config-file", str(directory / f"nodes-{port}.conf"), "--cluster-node-timeout", "2000"],
            )  # fmt: skip
        for port in self.ports:
            wait_until(lambda: answers(port), timeout=START_TIMEOUT, what=f"cluster node {port} to answer PING",
                       alive=self.procs[port])  # fmt: skip
        created = subprocess.run(
            ["redis-cli", "--cluster", "create", *[f"127.0.0.1:{p}" for p in self.ports], "--cluster-yes"],
            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert created.returncode == 0, f"redis-cli --cluster create failed:\n{created.stdout}\n{created.stderr}"
        for port in self.ports:
            wait_until(lambda: "cluster_state:ok" in redis_cli(port, "CLUSTER", "INFO"), timeout=START_TIMEOUT,
                       what=f"cluster_state:ok on node {port}", alive=self.procs[port])  # fmt: skip
        self.ids = {port: redis_cli(port, "CLUSTER", "MYID") for port in self.ports}

    @property
    def url(self) -> str:
        """Two of the three masters, as seeds."""
        return "redis-cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports[:2])

    def cli(self, *args: str) -> str:
        """A command to the cluster, following redirections (``redis-cli -c``)."""
        return redis_cli(self.ports[0], *args, cluster=True)

    def slots_per_node(self) -> dict[int, list[int]]:
        """The slots each master serves, as the first node's ``CLUSTER NODES`` says."""
        by_port: dict[int, list[int]] = {port: [] for port in self.ports}
        for line in redis_cli(self.ports[0], "CLUSTER", "NODES").splitlines():
            fields = line.split()
            port = int(fields[1].split("@")[0].rsplit(":", 1)[1])
            for spec in fields[8:]:
                if spec.startswith("["):
                    continue  # a slot being migrated or imported: still served by its owner
                low, _, high = spec.partition("-")
                by_port[port].extend(range(int(low), int(high or low) + 1))
        return by_port

    def keys(self, port: int, pattern: str = "*") -> list[str]:
        """The keys one master holds (``--scan``)."""
        out = redis_cli(port, "--scan", "--pattern", pattern)
        return [key for key in out.splitlines() if key]

    def keys_per_node(self, pattern: str = "*") -> dict[int, int]:
        """How many keys each master holds (the keys matching ``pattern``)."""
        return {port: len(self.keys(port, pattern)) for port in self.ports}

    def slots_to_move(self, source: int, keys: int = 1, pattern: str = "*", least: int = 1) -> int:
        """How many of ``source``'s slots ``reshard`` (which moves a master's lowest slots first) must
        move for at least ``keys`` of the keys it holds now to go along: at least ``least``."""
        owned = sorted(self.slots_per_node()[source])
        held = sorted({key_slot(key) for key in self.keys(source, pattern)})
        assert len(held) >= keys, f"master {source} holds keys in {len(held)} slots, fewer than {keys}"
        return max(least, owned.index(held[keys - 1]) + 1)

    def reshard(self, slots: int, source: typing.Optional[int] = None, target: typing.Optional[int] = None) -> None:
        """Moves ``slots`` slots (the lowest first) from master ``source`` (a port, by default the
        first) to ``target`` (by default the second) with ``redis-cli --cluster reshard``, keys and
        all, while clients keep working (they see MOVED and ASK), and waits until every node agrees
        on the new slot map."""
        source = self.ports[0] if source is None else source
        target = self.ports[1] if target is None else target
        moved = subprocess.run(
            ["redis-cli", "--cluster", "reshard", f"127.0.0.1:{source}", "--cluster-from", self.ids[source],
             "--cluster-to", self.ids[target], "--cluster-slots", str(slots), "--cluster-yes"],
            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert moved.returncode == 0, f"redis-cli --cluster reshard failed:\n{moved.stdout[-4000:]}\n{moved.stderr}"
        wait_until(self.agreed, timeout=START_TIMEOUT, what="every cluster node to agree on the slots after the reshard")

    def agreed(self) -> bool:
        """``redis-cli --cluster check``: every slot served, no slot open, every node of one mind."""
        check = subprocess.run(["redis-cli", "--cluster", "check", f"127.0.0.1:{self.ports[0]}"],
                               capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)  # fmt: skip
        return check.returncode == 0 and "[OK] All nodes agree about slots configuration." in check.stdout and \
            "[OK] All 16384 slots covered." in check.stdout and "[WARNING]" not in check.stdout  # fmt: skip


# ---------------------------------------------------------------------------
# Sentinel


class RedisSentinel:
    """A master, a replica of it (``--replicaof``) and three sentinels watching them as
    ``mymaster`` (quorum 2, down after 1 s). The master and the replica require ``password``;
    the sentinels require it too with ``protected_sentinels`` (as Bitnami's chart sets them up),
    else none."""

    NAME = "mymaster"

    def __init__(self, group: ProcessGroup, directory: Path, password: str = "sentinel-fixture-pw",
                 protected_sentinels: bool = False) -> None:  # fmt: skip
        self.group = group
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.password = password
        self.protected_sentinels = protected_sentinels
        self.master_port, self.replica_port, *self.sentinel_ports = free_ports(5)
        self.master: typing.Optional[Process] = self._server("redis-master", self.master_port)
        self.replica: typing.Optional[Process] = self._server(
            "redis-replica", self.replica_port, "--replicaof", "127.0.0.1", str(self.master_port)
        )
        wait_until(lambda: info(self.replica_port, "replication", password=password).get("master_link_status") == "up",
                   timeout=START_TIMEOUT, what="the replica's link to the master", alive=self.replica)  # fmt: skip
        self.sentinels: list[Process] = []
        for n, port in enumerate(self.sentinel_ports):
            conf = directory / f"sentinel-{n}.conf"
            conf.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {directory}\nsentinel resolve-hostnames no\n"
                f"sentinel monitor {self.NAME} 127.0.0.1 {self.master_port} 2\n"
                f"sentinel auth-pass {self.NAME} {password}\n"
                f"sentinel down-after-milliseconds {self.NAME} 1000\n"
                f"sentinel failover-timeout {self.NAME} 5000\n"
                + (f"requirepass {password}\nsentinel sentinel-pass {password}\n" if protected_sentinels else "")
            )
            self.sentinels.append(group.start("redis-sentinel", ["redis-server", str(conf), "--sentinel"]))
        for port, proc in zip(self.sentinel_ports, self.sentinels):
            wait_until(lambda: self._knows_everyone(port), timeout=START_TIMEOUT,
                       what=f"sentinel {port} to know the replica and the two other sentinels", alive=proc)  # fmt: skip

    def _server(self, name: str, port: int, *args: str) -> Process:
        proc = self.group.start(
            name,
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", *NO_PERSISTENCE, "--dir", str(self.directory),
             "--requirepass", self.password, "--masterauth", self.password,
             # A replica's full sync starts at once, not after the 5 s a master waits for others to join.
             "--repl-diskless-sync-delay", "0", *args],
        )  # fmt: skip
        wait_until(lambda: answers(port, password=self.password), timeout=START_TIMEOUT,
                   what=f"{name} to answer PING on {port}", alive=proc)  # fmt: skip
        return proc

    def _knows_everyone(self, sentinel: int) -> bool:
        master = self.sentinel_cli(sentinel, "SENTINEL", "MASTER", self.NAME).splitlines()
        fields = dict(zip(master[::2], master[1::2]))
        return fields.get("num-slaves") == "1" and fields.get("num-other-sentinels") == "2"

    @property
    def url(self) -> str:
        sentinels = ",".join(f"127.0.0.1:{p}" for p in self.sentinel_ports)
        return f"redis-sentinel://:{self.password}@{sentinels}/{self.NAME}"

    def sentinel_cli(self, sentinel: int, *args: str) -> str:
        """A command to one sentinel (by port), with the password when the sentinels require it."""
        return redis_cli(sentinel, *args, password=self.password if self.protected_sentinels else None)

    def cli(self, port: int, *args: str) -> str:
        """A command to the master or the replica (by port), with the password."""
        return redis_cli(port, *args, password=self.password)

    def dbsize(self, port: int) -> int:
        return int(self.cli(port, "DBSIZE"))

    def keys(self, port: int, pattern: str = "*") -> list[str]:
        return [key for key in self.cli(port, "--scan", "--pattern", pattern).splitlines() if key]

    def master_named(self, sentinel: int) -> int:
        """The master's port as one sentinel names it (``SENTINEL get-master-addr-by-name``)."""
        host, port = self.sentinel_cli(sentinel, "SENTINEL", "get-master-addr-by-name", self.NAME).splitlines()
        assert host == "127.0.0.1", host
        return int(port)

    def role(self, port: int) -> str:
        return info(port, "replication", password=self.password).get("role", "")

    def _wait_for_master(self, port: int, what: str) -> None:
        for sentinel in self.sentinel_ports:
            wait_until(lambda: self.master_named(sentinel) == port, timeout=FAILOVER_TIMEOUT,
                       what=f"sentinel {sentinel} to name {port} the master ({what})")  # fmt: skip
        wait_until(lambda: self.role(port) == "master", timeout=FAILOVER_TIMEOUT,
                   what=f"{port} to be a master ({what})")  # fmt: skip

    def failover(self) -> None:
        """``SENTINEL FAILOVER`` on the first sentinel: the replica becomes the master. Returns once
        every sentinel names it and it is a master. The sentinels make the old master its replica
        when they next ask it (``INFO`` every 10 s), which this does not wait for: until then the
        old master still takes writes, that no client following the sentinels sends it."""
        old, new = self.master_port, self.replica_port
        reply = self.sentinel_cli(self.sentinel_ports[0], "SENTINEL", "FAILOVER", self.NAME)
        assert reply == "OK", f"SENTINEL FAILOVER answered {reply!r}"
        self._wait_for_master(new, "SENTINEL FAILOVER")
        self.master_port, self.replica_port = new, old
        self.master, self.replica = self.replica, self.master

    def kill_master(self) -> None:
        """Kills the master (SIGKILL, as a crash) and waits until the sentinels, having found it
        down, made the replica the master. No replica is left."""
        assert self.master is not None and self.replica is not None
        old, new = self.master_port, self.replica_port
        self.master.popen.kill()
        self.master.popen.wait(timeout=10)
        self.master.stop()
        self._wait_for_master(new, f"master {old} killed")
        self.master_port, self.master, self.replica = new, self.replica, None


# ---------------------------------------------------------------------------
# Fixtures


@pytest.fixture
def redis(proc_dir: Path) -> typing.Iterator[RedisStandalone]:
    group = ProcessGroup(proc_dir, _RUNNING)
    try:
        yield RedisStandalone(group)
    finally:
        group.stop_all()


@pytest.fixture
def redis_tls(proc_dir: Path, tmp_path: Path) -> typing.Iterator[RedisTLS]:
    """TLS without client certificates (``tls-auth-clients no``)."""
    group = ProcessGroup(proc_dir, _RUNNING)
    try:
        yield RedisTLS(group, tmp_path / "redis-tls", auth_clients=False)
    finally:
        group.stop_all()


@pytest.fixture
def redis_mtls(proc_dir: Path, tmp_path: Path) -> typing.Iterator[RedisTLS]:
    """TLS that requires a client certificate of its CA (``tls-auth-clients yes``)."""
    group = ProcessGroup(proc_dir, _RUNNING)
    try:
        yield RedisTLS(group, tmp_path / "redis-mtls", auth_clients=True)
    finally:
        group.stop_all()


@pytest.fixture
def redis_cluster(proc_dir: Path, tmp_path: Path) -> typing.Iterator[RedisCluster]:
    group = ProcessGroup(proc_dir, _RUNNING)
    try:
        yield RedisCluster(group, tmp_path / "redis-cluster")
    finally:
        group.stop_all()


@pytest.fixture
def redis_half_cluster(proc_dir: Path, tmp_path: Path) -> typing.Iterator[RedisHalfCluster]:
    group = ProcessGroup(proc_dir, _RUNNING)
    try:
        yield RedisHalfCluster(group, tmp_path / "redis-half-cluster")
    finally:
        group.stop_all()


@pytest.fixture
def redis_sentinel(proc_dir: Path, tmp_path: Path) -> typing.Iterator[RedisSentinel]:
    group = ProcessGroup(proc_dir, _RUNNING)
    try:
        yield RedisSentinel(group, tmp_path / "redis-sentinel")
    finally:
        group.stop_all()


@pytest.fixture
def redis_sentinel_protected(proc_dir: Path, tmp_path: Path) -> typing.Iterator[RedisSentinel]:
    """Sentinels that require the master's password too."""
    group = ProcessGroup(proc_dir, _RUNNING)
    try:
        yield RedisSentinel(group, tmp_path / "redis-sentinel-protected", protected_sentinels=True)
    finally:
        group.stop_all()
