"""WebSocket framing on gqlgate's client sockets (RFC 6455, server side), end to end.

A raw TCP client does the opening handshake by hand and sends frames built
byte by byte, masked as a client must: the cases of Autobahn's sections 2
(pings and pongs), 3 (reserved bits), 4 (reserved opcodes), 5
(fragmentation) and 7 (close handling), for both subprotocols. The tests
read the pongs, messages and close frame gqlgate answers with, check that it
then closes the socket, and that it still serves a new client. A client that
floods pings and never reads the pongs must be closed while gqlgate's memory
stays bounded.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import socket
import struct
import time
import typing

import pytest

from harness import curl, rss_kib, wait_until

TRANSPORT_WS = "graphql-transport-ws"
LEGACY_WS = "graphql-ws"
SUBPROTOCOLS = [TRANSPORT_WS, LEGACY_WS]

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0, 1, 2, 8, 9, 10
INIT = json.dumps({"type": "connection_init"}).encode()


def frame(opcode: int, payload: bytes = b"", *, fin: bool = True, rsv: int = 0, length_bits: int = 7) -> bytes:
    """One masked client frame; ``length_bits`` 16 or 64 writes the length in that wider form even when it fits a smaller one."""
    head = bytes([(0x80 if fin else 0) | rsv << 4 | opcode])
    n = len(payload)
    if length_bits == 7 and n < 126:
        head += bytes([0x80 | n])
    elif length_bits in (7, 16) and n < 65536:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", n)
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def close_payload(code: int, reason: bytes = b"") -> bytes:
    return struct.pack("!H", code) + reason


@dataclasses.dataclass
class Frame:
    fin: bool
    opcode: int
    payload: bytes

    @property
    def close_code(self) -> typing.Optional[int]:
        return struct.unpack("!H", self.payload[:2])[0] if self.opcode == CLOSE and len(self.payload) >= 2 else None


class RawClient:
    """A WebSocket client on a plain socket: the handshake by hand, frames as given."""

    def __init__(self, port: int, subprotocol: str, timeout: float = 10) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET /graphql HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {subprotocol}\r\n\r\n"
            ).encode()
        )
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        assert lines[0].split(" ")[1] == "101", f"no upgrade: {head!r}"
        fields = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
        assert fields.get("sec-websocket-accept") == accept
        assert fields.get("sec-websocket-protocol") == subprotocol

    def _fill(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise EOFError("gqlgate closed the socket")
        self.buffer += data

    def _take(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self._fill()
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_frame(self) -> Frame:
        b0, b1 = self._take(2)
        assert b1 & 0x80 == 0, "gqlgate masked a frame it sent"
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._take(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._take(8))[0]
        return Frame(fin=bool(b0 & 0x80), opcode=b0 & 0x0F, payload=self._take(n))

    def read_close(self) -> Frame:
        """The close frame gqlgate sends, past any pongs and protocol messages before it."""
        while True:
            f = self.read_frame()
            if f.opcode == CLOSE:
                return f

    def read_message(self, message_type: str) -> dict:
        """The next protocol message of ``message_type`` (text), past others and control frames."""
        while True:
            f = self.read_frame()
            assert f.opcode != CLOSE, f"closed with {f.close_code} while waiting for {message_type}"
            if f.opcode == TEXT and json.loads(f.payload).get("type") == message_type:
                return json.loads(f.payload)

    def ends(self) -> bool:
        """Whether gqlgate closes the socket (end of stream) with nothing more sent."""
        try:
            return not self.buffer and self.sock.recv(1) == b""
        except ConnectionResetError:
            return True

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def client(gateway, request) -> typing.Iterator[RawClient]:
    """A raw client on the module's gqlgate with the test's subprotocol; afterwards a new client must still be served."""
    subprotocol = request.node.callspec.params["subprotocol"]
    raw = RawClient(gateway.port, subprotocol)
    try:
        yield raw
    finally:
        raw.close()
    assert_serves(gateway.port, subprotocol)


def assert_serves(port: int, subprotocol: str) -> None:
    """A new client gets connection_ack and a clean close."""
    raw = RawClient(port, subprotocol)
    try:
        raw.send(frame(TEXT, INIT))
        raw.read_message("connection_ack")
        raw.send(frame(CLOSE, close_payload(1000)))
        assert raw.read_close().close_code == 1000
        assert raw.ends()
    finally:
        raw.close()


def case(id: str, data: bytes, answer: typing.Any) -> typing.Any:
    return pytest.param(data, answer, id=id)


# ---------------------------------------------------------------------------
# Section 2: pings and pongs


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
@pytest.mark.parametrize(
    "payload",
    [b"", b"Hello, world!", b"\x00\xff\xfe\xfd\xfc\xfb\x00\xff", b"*" * 125],
    ids=["2.1-empty", "2.2-text", "2.3-binary", "2.4-125-bytes"],
)
def test_a_ping_gets_a_pong_with_its_payload(client, subprotocol, payload):
    client.send(frame(PING, payload))
    assert client.read_frame() == Frame(fin=True, opcode=PONG, payload=payload)


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
def test_a_ping_sent_one_byte_at_a_time_gets_its_pong(client, subprotocol):  # 2.6
    for byte in frame(PING, b"x" * 125):
        client.send(bytes([byte]))
    assert client.read_frame() == Frame(fin=True, opcode=PONG, payload=b"x" * 125)


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
def test_unsolicited_pongs_are_ignored(client, subprotocol):  # 2.7, 2.8
    client.send(frame(PONG) + frame(PONG, b"unsolicited") + frame(PING, b"after"))
    assert client.read_frame() == Frame(fin=True, opcode=PONG, payload=b"after")


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
def test_ten_pings_at_once_get_ten_pongs_in_order(client, subprotocol):  # 2.10
    client.send(b"".join(frame(PING, b"ping %d" % i) for i in range(10)))
    assert [client.read_frame().payload for _ in range(10)] == [b"ping %d" % i for i in range(10)]


# ---------------------------------------------------------------------------
# Sections 2-5 and 7: frames that break RFC 6455 close the connection


INVALID_CLOSE_CODES = [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535]

PROTOCOL_ERRORS = [
    case("2.5-ping-over-125-bytes", frame(PING, b"x" * 126), 1002),
    case("2.5-ping-after-a-good-one", frame(PING, b"ok") + frame(PING, b"x" * 126), 1002),
    case("3.1-rsv1-text", frame(TEXT, INIT, rsv=1), 1002),
    case("3.2-rsv2-after-a-ping", frame(PING, b"ok") + frame(TEXT, INIT, rsv=2), 1002),
    case("3.4-rsv4-binary", frame(BINARY, b"\x00\x01", rsv=4), 1002),
    case("3.5-rsv5-ping", frame(PING, b"hi", rsv=5), 1002),
    case("3.6-rsv6-pong", frame(PONG, b"hi", rsv=6), 1002),
    case("3.7-rsv7-close", frame(CLOSE, close_payload(1000), rsv=7), 1002),
    *[case(f"4.1-opcode-{op}", frame(op, b"x"), 1002) for op in (3, 4, 5, 6, 7)],
    *[case(f"4.2-opcode-{op}", frame(op, b"x"), 1002) for op in (11, 12, 13, 14, 15)],
    case("4.1.3-opcode-5-between-pings", frame(PING, b"a") + frame(5) + frame(PING, b"b"), 1002),
    case("5.1-fragmented-ping", frame(PING, b"frag", fin=False) + frame(CONTINUATION, b"ment"), 1002),
    case("5.2-fragmented-pong", frame(PONG, b"frag", fin=False) + frame(CONTINUATION, b"ment"), 1002),
    case("5.x-fragmented-close", frame(CLOSE, close_payload(1000), fin=False) + frame(CONTINUATION), 1002),
    case("5.9-continuation-first", frame(CONTINUATION, b"x"), 1002),
    case("5.10-unfinished-continuation-first", frame(CONTINUATION, b"x", fin=False) + frame(CONTINUATION, b"y"), 1002),
    case("5.18-text-inside-a-text", frame(TEXT, INIT[:5], fin=False) + frame(TEXT, INIT[5:]), 1002),
    case("5.x-length-16-bits-for-2-bytes", frame(TEXT, b"hi", length_bits=16), 1002),
    case("5.x-length-64-bits-for-2-bytes", frame(TEXT, b"hi", length_bits=64), 1002),
    case("5.x-length-with-top-bit", bytes([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 2]) + os.urandom(4) + b"hi", 1002),
    case("7.3.2-close-with-1-byte", frame(CLOSE, b"\x03"), 1002),
    case("7.3.6-close-reason-124-bytes", frame(CLOSE, close_payload(1000, b"r" * 124)), 1002),
    *[case(f"7.9-close-code-{code}", frame(CLOSE, close_payload(code)), 1002) for code in INVALID_CLOSE_CODES],
    case("6.x-text-not-utf8", frame(TEXT, b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited"), 1007),
    case("7.5.1-close-reason-not-utf8", frame(CLOSE, close_payload(1000, b"\xce\xba\xe1\xbd\xb9\xcf\x83\xed\xa0\x80")), 1007),
]


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
@pytest.mark.parametrize("data, code", PROTOCOL_ERRORS)
def test_a_frame_breaking_rfc_6455_closes_with_its_code(client, subprotocol, data, code):
    client.send(data)
    assert client.read_close().close_code == code
    assert client.ends()


# ---------------------------------------------------------------------------
# Section 5: fragmented messages, control frames between their fragments


FRAGMENTED_INITS = [
    case("5.3-two-fragments", frame(TEXT, INIT[:7], fin=False) + frame(CONTINUATION, INIT[7:]), []),
    case(
        "5.6-ping-between-fragments",
        frame(TEXT, INIT[:7], fin=False) + frame(PING, b"mid") + frame(CONTINUATION, INIT[7:]),
        [b"mid"],
    ),
    case("5.8-pong-between-fragments", frame(TEXT, INIT[:7], fin=False) + frame(PONG, b"x") + frame(CONTINUATION, INIT[7:]), []),
    case(
        "5.19-fragments-pings-and-empty-fragments",
        frame(TEXT, INIT[:3], fin=False) + frame(CONTINUATION, b"", fin=False) + frame(PING, b"1")
        + frame(CONTINUATION, INIT[3:9], fin=False) + frame(PING, b"2") + frame(CONTINUATION, INIT[9:]),
        [b"1", b"2"],
    ),
    case("5.x-one-byte-fragments", b"".join(
        frame(TEXT if i == 0 else CONTINUATION, INIT[i:i + 1], fin=i == len(INIT) - 1) for i in range(len(INIT))
    ), []),
]


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
@pytest.mark.parametrize("data, pongs", FRAGMENTED_INITS)
def test_a_fragmented_message_is_put_together(client, subprotocol, data, pongs):
    client.send(data)
    for payload in pongs:
        assert client.read_frame() == Frame(fin=True, opcode=PONG, payload=payload)
    client.read_message("connection_ack")


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
def test_a_close_between_fragments_is_answered(client, subprotocol):
    client.send(frame(TEXT, INIT[:7], fin=False) + frame(CLOSE, close_payload(1000)))
    assert client.read_close().close_code == 1000
    assert client.ends()


# ---------------------------------------------------------------------------
# Section 7: the close handshake


VALID_CLOSE_CODES = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999]

CLOSES = [
    case("7.3.1-empty", frame(CLOSE), b""),
    case("7.3.3-code-only", frame(CLOSE, close_payload(1000)), close_payload(1000)),
    case("7.3.4-code-and-reason", frame(CLOSE, close_payload(1000, b"bye")), close_payload(1000, b"bye")),
    case("7.3.5-reason-123-bytes", frame(CLOSE, close_payload(1000, b"r" * 123)), close_payload(1000, b"r" * 123)),
    case("7.1.3-ping-after-close", frame(CLOSE, close_payload(1000)) + frame(PING, b"late"), close_payload(1000)),
    *[case(f"7.7-code-{code}", frame(CLOSE, close_payload(code)), close_payload(code)) for code in VALID_CLOSE_CODES],
]


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
@pytest.mark.parametrize("data, echo", CLOSES)
def test_a_valid_close_is_echoed_and_the_socket_closed(client, subprotocol, data, echo):
    client.send(data)
    assert client.read_frame() == Frame(fin=True, opcode=CLOSE, payload=echo)
    assert client.ends()


# ---------------------------------------------------------------------------
# A ping flood: pongs count against the client's send buffer


def subscriptions_active(port: int) -> float:
    for line in curl(f"http://127.0.0.1:{port}/metrics").text.splitlines():
        name, _, value = line.partition(" ")
        if name == "gqlgate_subscriptions_active":
            return float(value)
    return 0.0


@pytest.mark.parametrize("subprotocol", SUBPROTOCOLS)
@pytest.mark.parametrize("payload_bytes", [0, 125], ids=["empty-pings", "125-byte-pings"])
def test_a_client_flooding_pings_without_reading_is_closed_and_memory_stays_bounded(gqlgate, subprotocol, payload_bytes):
    gw = gqlgate()
    raw = RawClient(gw.port, subprotocol)
    raw.send(frame(TEXT, INIT))
    raw.read_message("connection_ack")
    start = "subscribe" if subprotocol == TRANSPORT_WS else "start"
    subscription = {"query": "subscription { ticks(intervalMs: 600000) }"}
    raw.send(frame(TEXT, json.dumps({"id": "1", "type": start, "payload": subscription}).encode()))
    raw.read_message("next" if subprotocol == TRANSPORT_WS else "data")
    assert subscriptions_active(gw.port) == 1

    baseline = rss_kib(gw.proc.pid)
    limit_kib = 100 * 1024
    burst = frame(PING, b"p" * payload_bytes) * 1000
    peak, sent, closed = baseline, 0, False
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and peak - baseline < limit_kib:
            raw.send(burst)
            sent += 1000
            peak = max(peak, rss_kib(gw.proc.pid))
    except (BrokenPipeError, ConnectionResetError):
        closed = True
    except TimeoutError:
        pytest.fail(f"gqlgate stopped reading after {sent} pings but kept the socket open")
    finally:
        raw.close()
    assert peak - baseline < limit_kib, f"RSS grew from {baseline} KiB to {peak} KiB after {sent} pings"
    assert closed, f"the socket was still open after {sent} pings"
    wait_until(lambda: subscriptions_active(gw.port) == 0, timeout=5, what="the flooding client's subscription to end")
    assert_serves(gw.port, subprotocol)
