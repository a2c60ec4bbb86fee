"""A hostile or broken Redis cannot take gqlgate's memory nor hand clients a corrupted answer:
every reply is bounded (elements, bytes) before anything is allocated for it, and a stored record
whose checksum fails is a miss, never an answer."""

from __future__ import annotations

import socket
import socketserver
import threading
import typing

import pytest

from harness import peak_rss_kib, post_graphql
from redis_servers import redis  # noqa: F401
from test_cache_redis import config

QUERY = "{ hello }"


class HostileRedis:
    """Speaks just enough RESP for gqlgate's handshake (PING) and answers every other command with
    `reply`, then `stream` over and over in pieces of 4 MiB, for as long as the client reads."""

    def __init__(self, reply: bytes, stream: bytes = b"") -> None:
        self.reply = reply
        self.stream = stream
        self.commands: list[bytes] = []
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                buffer = b""
                try:
                    while True:
                        data = self.request.recv(65536)
                        if not data:
                            return
                        buffer += data
                        while (command := outer.take_command(buffer)) is not None:
                            name, buffer = command
                            outer.commands.append(name)
                            if name == b"PING":
                                self.request.sendall(b"+PONG\r\n")
                                continue
                            self.request.sendall(outer.reply)
                            piece = outer.stream * ((4 << 20) // max(1, len(outer.stream))) if outer.stream else b""
                            while piece:
                                self.request.sendall(piece)
                except OSError:
                    return  # gqlgate dropped the connection: what the test wants

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"redis://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @staticmethod
    def take_command(buffer: bytes) -> typing.Optional[tuple[bytes, bytes]]:
        """The name of the first whole RESP command in `buffer` and what follows it."""
        if not buffer.startswith(b"*") or b"\r\n" not in buffer:
            return None
        head, rest = buffer.split(b"\r\n", 1)
        name = None
        for _ in range(int(head[1:])):
            if b"\r\n" not in rest:
                return None
            size_line, rest = rest.split(b"\r\n", 1)
            size = int(size_line[1:])
            if len(rest) < size + 2:
                return None
            name = name or rest[:size].upper()
            rest = rest[size + 2:]
        return typing.cast(bytes, name), rest

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hostile_redis() -> typing.Iterator[typing.Callable[..., HostileRedis]]:
    made: list[HostileRedis] = []

    def make(reply: bytes, stream: bytes = b"") -> HostileRedis:
        made.append(HostileRedis(reply, stream))
        return made[-1]

    yield make
    for server in made:
        server.close()


@pytest.mark.parametrize(
    ("reply", "stream"),
    [
        (b"*1000000000\r\n", b""),  # an array announced far past any bound, then nothing
        (b"*100000000\r\n", b":1\r\n"),  # an array of 10^8 integers, sent for as long as it is read
        (b"$1000000000\r\n", b"x"),  # a bulk of a gigabyte, sent for as long as it is read
        (b"*8\r\n*8\r\n*8\r\n*8\r\n*8\r\n*8\r\n*8\r\n*8\r\n*8\r\n*8\r\n", b""),  # nested deeper than the reader goes
    ],
    ids=["announced-billion", "hundred-million-elements", "gigabyte-bulk", "deep-nesting"],
)
def test_a_hostile_reply_is_bounded_and_the_query_is_answered(gqlgate, hostile_redis, reply, stream):
    server = hostile_redis(reply, stream)
    gw = gqlgate(config=f"cache:\n  enabled: true\n  backend: redis\n  redis_url: {server.url}\n  default_ttl: 30s\n")
    before = peak_rss_kib(gw.proc.pid)
    for _ in range(3):
        # Within a few times redis.timeout (250 ms), never a stall: a reply of `*1000000000` used to
        # keep a loop allocating for it for 18 s.
        r = post_graphql(gw.url, QUERY, timeout=5)
        assert r.status == 200 and r.json()["data"]["hello"], str(r)
        assert r.header("X-Cache") == "BYPASS", str(r)
    assert b"GET" in server.commands
    growth = peak_rss_kib(gw.proc.pid) - before
    assert growth < 300 * 1024, f"peak RSS grew by {growth} KiB"


def stored_answer_keys(redis) -> list[bytes]:  # noqa: F811
    return [key for key in resp(redis, b"KEYS", b"*") if b"answer:" in key]


def resp(redis, *arguments: bytes) -> typing.Any:  # noqa: F811
    """One command to the test's redis-server, with its reply read back (arrays of bulks, bulks, integers)."""
    with socket.create_connection(("127.0.0.1", redis.port), timeout=5) as s:
        s.sendall(b"*%d\r\n" % len(arguments) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in arguments))
        reader = s.makefile("rb")

        def read() -> typing.Any:
            line = reader.readline().rstrip(b"\r\n")
            kind, rest = line[:1], line[1:]
            if kind == b"*":
                return [read() for _ in range(int(rest))]
            if kind == b"$":
                size = int(rest)
                return None if size < 0 else reader.read(size + 2)[:-2]
            if kind == b":":
                return int(rest)
            if kind == b"-":
                raise AssertionError(rest.decode())
            return rest

        return read()


def test_a_corrupted_record_is_a_miss_never_an_answer(gqlgate, redis):  # noqa: F811
    gw = gqlgate(config=config(redis))
    first = post_graphql(gw.url, QUERY)
    assert first.header("X-Cache") == "MISS", str(first)
    assert post_graphql(gw.url, QUERY).header("X-Cache") == "HIT"
    [key] = stored_answer_keys(redis)
    record = bytearray(resp(redis, b"GET", key))
    body_at = record.index(b'"hello"')
    record[body_at + 1] ^= 0x20  # "hello" becomes "Hello": still JSON, a different answer
    ttl = resp(redis, b"PTTL", key)
    resp(redis, b"SET", key, bytes(record), b"PX", str(ttl).encode())
    again = post_graphql(gw.url, QUERY)
    assert again.header("X-Cache") == "MISS", str(again)
    assert again.json() == first.json(), str(again)
