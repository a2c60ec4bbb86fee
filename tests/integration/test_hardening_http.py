"""The HTTP server's hardening: body framing (RFC 9112 §6.3), bodies over the
limit however framed, connection timeouts and deadlines, the connection limit,
X-Request-Id and header values, and answers during a drain. Raw sockets, so that every byte the gateway sends
is seen: exactly one answer per request, and whether the connection closes."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import select
import signal
import socket
import time
import typing

import pytest

from harness import post_graphql, wait_until

SMALL_LIMIT = 1024


@dataclasses.dataclass
class RawAnswer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> typing.Optional[str]:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def code(self) -> str:
        return json.loads(self.body)["errors"][0]["extensions"]["code"]


def parse_answer(data: bytes) -> typing.Optional[tuple[RawAnswer, bytes]]:
    """The first complete answer in ``data`` and the bytes after it; None while incomplete."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return None
    lines = data[:end].decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = [(k.strip(), v.strip()) for k, v in (line.split(":", 1) for line in lines[1:])]
    rest = data[end + 4 :]
    fields = {k.lower(): v for k, v in headers}
    if status == 100 or status == 101:
        return RawAnswer(status, headers, b""), rest
    if fields.get("transfer-encoding", "").lower() == "chunked":
        body = b""
        while True:
            line_end = rest.find(b"\r\n")
            if line_end < 0:
                return None
            size = int(rest[:line_end].split(b";")[0], 16)
            if len(rest) < line_end + 2 + size + 2:
                return None
            body += rest[line_end + 2 : line_end + 2 + size]
            rest = rest[line_end + 2 + size + 2 :]
            if size == 0:
                return RawAnswer(status, headers, body), rest
    length = int(fields.get("content-length", "0"))
    if len(rest) < length:
        return None
    return RawAnswer(status, headers, rest[:length]), rest[length:]


def parse_all(data: bytes) -> list[RawAnswer]:
    """Every answer in ``data``, which must hold nothing else."""
    answers = []
    while data:
        parsed = parse_answer(data)
        assert parsed is not None, f"incomplete answer or stray bytes: {data[:300]!r}"
        answer, data = parsed
        answers.append(answer)
    return answers


def connect(port: int, rcvbuf: typing.Optional[int] = None) -> socket.socket:
    sock = socket.socket()
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(20)
    sock.connect(("127.0.0.1", port))
    return sock


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the gateway sends until it closes the connection (fails past the socket's timeout)."""
    data = bytearray()
    while True:
        try:
            chunk = sock.recv(1 << 20)
        except ConnectionResetError:
            return bytes(data)
        if not chunk:
            return bytes(data)
        data += chunk


def read_one(sock: socket.socket) -> RawAnswer:
    """The next answer on a connection that stays open."""
    data = bytearray()
    while True:
        if answer_may_be_complete(data):
            parsed = parse_answer(bytes(data))
            if parsed is not None:
                answer, rest = parsed
                assert rest == b"", f"bytes after the answer: {rest[:300]!r}"
                return answer
        chunk = sock.recv(1 << 20)
        assert chunk, f"connection closed after {bytes(data[:300])!r}"
        data += chunk


def answer_may_be_complete(data: bytearray) -> bool:
    """False while a Content-Length answer is known to be short (parsing a large one at every read costs too much)."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return False
    for line in bytes(data[:end]).split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(data) >= end + 4 + int(value)
    return True


def only_answer_then_closed(port: int, request: bytes) -> RawAnswer:
    """Sends ``request`` on a new connection: exactly one answer must come, then the close."""
    with connect(port) as sock:
        sock.sendall(request)
        answers = parse_all(read_until_closed(sock))
    assert len(answers) == 1, f"{len(answers)} answers: {answers}"
    assert (answers[0].header("Connection") or "").lower() == "close", answers[0]
    return answers[0]


def post(body: bytes, *fields: str) -> bytes:
    head = "POST /graphql HTTP/1.1\r\nHost: gqlgate\r\nContent-Type: application/json\r\n"
    return (head + "".join(f + "\r\n" for f in fields) + "\r\n").encode() + body


def chunked(body: bytes, size: int = 4096) -> bytes:
    parts = [body[i : i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: gqlgate\r\n\r\n"
HELLO = json.dumps({"query": "{ hello }"}).encode()


def assert_still_serving(sock: socket.socket) -> None:
    """The connection is open and its next answer is the next request's: nothing came in between."""
    sock.sendall(HEALTHZ)
    answer = read_one(sock)
    assert answer.status == 200 and json.loads(answer.body) == {"status": "ok"}, answer


@pytest.fixture
def small_limit(gqlgate):
    return gqlgate(config=f"server: {{max_body_bytes: {SMALL_LIMIT}}}\n")


# ---------------------------------------------------------------------------
# Bodies over server.max_body_bytes, however framed


def test_chunked_body_over_the_limit_gets_413_then_the_close(small_limit, strawberry_upstream):
    before = strawberry_upstream.count("/graphql")
    with connect(small_limit.port) as sock:
        sock.sendall(post(b"", "Transfer-Encoding: chunked", "Expect: 100-continue"))
        assert read_one(sock).status == 100
        sock.sendall(chunked(b'{"query": "{ hello }", "pad": "' + b"x" * (3 * SMALL_LIMIT) + b'"}', size=500))
        answers = parse_all(read_until_closed(sock))
    assert [a.status for a in answers] == [413], answers
    assert answers[0].code() == "PAYLOAD_TOO_LARGE"
    assert answers[0].header("Connection").lower() == "close"
    assert answers[0].header("X-Request-Id")
    assert strawberry_upstream.count("/graphql") == before


def test_chunked_body_within_the_limit_is_served_on_a_kept_connection(small_limit):
    with connect(small_limit.port) as sock:
        sock.sendall(post(chunked(HELLO, size=5), "Transfer-Encoding: chunked"))
        answer = read_one(sock)
        assert answer.status == 200 and json.loads(answer.body) == {"data": {"hello": "Hello, world!"}}, answer
        assert_still_serving(sock)


@pytest.mark.parametrize("length", ["18446744073709551615", str(SMALL_LIMIT + 1)])
def test_declared_length_over_the_limit_gets_413_before_the_body(small_limit, length):
    answer = only_answer_then_closed(small_limit.port, post(b"", f"Content-Length: {length}"))
    assert answer.status == 413 and answer.code() == "PAYLOAD_TOO_LARGE", answer


# ---------------------------------------------------------------------------
# Framing (RFC 9112 §6.3)


def test_conflicting_content_lengths_get_400_and_the_close(small_limit, strawberry_upstream):
    before = strawberry_upstream.count("/graphql")
    answer = only_answer_then_closed(small_limit.port, post(HELLO, f"Content-Length: {len(HELLO)}", "Content-Length: 5"))
    assert answer.status == 400 and answer.code() == "BAD_REQUEST", answer
    # The smaller length first: what a proxy reading the other one would take for a second request is never read.
    smuggled = post(b"", "Content-Length: 0", f"Content-Length: {len(HEALTHZ)}") + HEALTHZ
    answer = only_answer_then_closed(small_limit.port, smuggled)
    assert answer.status == 400 and answer.code() == "BAD_REQUEST", answer
    assert strawberry_upstream.count("/graphql") == before


def test_transfer_encoding_with_content_length_is_answered_then_closed(small_limit):
    request = post(chunked(HELLO, size=7), "Content-Length: 3", "Transfer-Encoding: chunked")
    answer = only_answer_then_closed(small_limit.port, request)
    assert answer.status == 200 and json.loads(answer.body) == {"data": {"hello": "Hello, world!"}}, answer


@pytest.mark.parametrize("codings", ["gzip", "identity, chunked", "chunked, gzip"])
def test_transfer_codings_other_than_a_final_chunked_get_501(small_limit, strawberry_upstream, codings):
    before = strawberry_upstream.count("/graphql")
    answer = only_answer_then_closed(small_limit.port, post(chunked(HELLO), f"Transfer-Encoding: {codings}"))
    assert answer.status == 501 and answer.code() == "NOT_IMPLEMENTED", answer
    assert answer.header("Content-Type") == "application/graphql-response+json; charset=utf-8"  # no Accept was sent
    assert strawberry_upstream.count("/graphql") == before


def test_a_second_transfer_encoding_field_counts_too(small_limit):
    request = post(chunked(HELLO), "Transfer-Encoding: chunked", "Transfer-Encoding: gzip")
    answer = only_answer_then_closed(small_limit.port, request)
    assert answer.status == 501 and answer.code() == "NOT_IMPLEMENTED", answer


# ---------------------------------------------------------------------------
# X-Request-Id and header values


def test_an_8000_byte_request_id_is_replaced_and_the_mutation_runs_once(small_limit, strawberry_upstream):
    books = strawberry_upstream.book_count()
    before = strawberry_upstream.count("/graphql")
    mutation = json.dumps({"query": 'mutation { addBook(title: "Long Id", author: "Tester") { title } }'}).encode()
    with connect(small_limit.port) as sock:
        sock.sendall(post(mutation, f"Content-Length: {len(mutation)}", "X-Request-Id: " + "r" * 8000))
        answer = read_one(sock)
        assert answer.status == 200 and json.loads(answer.body) == {"data": {"addBook": {"title": "Long Id"}}}, answer
        request_id = answer.header("X-Request-Id")
        assert request_id and request_id != "r" * 8000 and len(request_id) <= 200, request_id
        assert_still_serving(sock)
    assert strawberry_upstream.count("/graphql") == before + 1
    assert strawberry_upstream.book_count() == books + 1


@pytest.fixture
def echoing(gqlgate, strawberry_upstream):
    """A gateway whose upstream answers with the request headers it saw."""
    return gqlgate(strawberry_upstream.path("/echo-headers"))


def echo_request(port: int, *fields: bytes) -> RawAnswer:
    body = HELLO
    head = b"POST /graphql HTTP/1.1\r\nHost: gqlgate\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
    with connect(port) as sock:
        sock.sendall(head + b"".join(f + b"\r\n" for f in fields) + b"\r\n" + body)
        return read_one(sock)


@pytest.mark.parametrize(
    "sent",
    [b"a\x0bb", b"a\x7fb", b"a\tb", b"caf\xc3\xa9", b"bad\xff\xfeutf8", b"x" * 201, b"two words"],
    ids=["VT", "DEL", "tab", "non-ASCII", "invalid UTF-8", "201 characters", "space"],
)
def test_unusable_request_ids_are_replaced_upstream_and_in_the_answer(echoing, sent):
    answer = echo_request(echoing.port, b"X-Request-Id: " + sent)
    assert answer.status == 200, answer
    returned = answer.header("X-Request-Id")
    assert returned and returned.encode("latin-1") != sent
    assert all(0x21 <= ord(c) <= 0x7E for c in returned), returned
    assert json.loads(answer.body)["data"]["headers"]["x-request-id"] == returned


def test_a_visible_ascii_request_id_of_200_characters_is_kept(echoing):
    sent = "id-" + "7" * 190 + "!~{}[]/"
    answer = echo_request(echoing.port, b"X-Request-Id: " + sent.encode())
    assert answer.header("X-Request-Id") == sent
    assert json.loads(answer.body)["data"]["headers"]["x-request-id"] == sent


@pytest.mark.parametrize("value", [b"en\x0bInjected: 1", b"en\x7f", b"en\x01"], ids=["VT", "DEL", "SOH"])
def test_control_characters_in_a_forwarded_header_get_400(echoing, strawberry_upstream, value):
    before = strawberry_upstream.count("/echo-headers")
    answer = echo_request(echoing.port, b"Accept-Language: " + value)
    assert answer.status == 400 and answer.code() == "BAD_REQUEST", answer
    assert b"Accept-Language" in answer.body
    assert strawberry_upstream.count("/echo-headers") == before


def test_tab_in_a_forwarded_header_and_control_characters_elsewhere_pass(echoing):
    answer = echo_request(echoing.port, b"Accept-Language: en,\tfr", b"User-Agent: odd\x0bagent")
    assert answer.status == 200, answer
    seen = json.loads(answer.body)["data"]["headers"]
    assert seen["accept-language"] == "en,\tfr"
    assert "user-agent" not in seen


# ---------------------------------------------------------------------------
# Timeouts


TCP_STATES = {"01": "ESTABLISHED", "04": "FIN_WAIT1", "05": "FIN_WAIT2", "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT"}
TCP_STATES.update({"09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING"})


def server_side_connections(server_port: int) -> list[tuple[int, str]]:
    """The client port and TCP state of the gateway's end of each loopback connection, from /proc/net/tcp."""
    found = []
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            local, remote, state = line.split()[1:4]
            if int(local.split(":")[1], 16) == server_port and state != "0A":
                found.append((int(remote.split(":")[1], 16), TCP_STATES.get(state, state)))
    return found


def server_side_state(server_port: int, client_port: int) -> typing.Optional[str]:
    """The TCP state of the gateway's end of a loopback connection."""
    return next((state for port, state in server_side_connections(server_port) if port == client_port), None)


def server_side_states(server_port: int) -> list[str]:
    """The TCP states of the gateway's ends of its loopback connections."""
    return [state for _, state in server_side_connections(server_port)]


@pytest.fixture
def short_timeouts(gqlgate, strawberry_upstream):
    """Answers of 20 MB (more than the loopback socket buffers hold) and short timeouts."""
    return gqlgate(strawberry_upstream.path("/large?bytes=20000000"), config="server: {write_timeout: 2s, idle_timeout: 1s}\n")


def test_a_client_that_reads_nothing_is_dropped_after_write_timeout(short_timeouts):
    request = post(HELLO, f"Content-Length: {len(HELLO)}")
    with connect(short_timeouts.port, rcvbuf=4096) as slow:
        slow.sendall(request)
        client_port = slow.getsockname()[1]
        wait_until(
            lambda: server_side_state(short_timeouts.port, client_port) not in ("ESTABLISHED", None),
            timeout=30, what="the gateway to drop the client that reads nothing", alive=short_timeouts.proc,
        )  # fmt: skip
        received = read_until_closed(slow)
        assert 0 < len(received) < 20_000_000, len(received)
    # A client reading at its pace gets the whole answer, however long it takes.
    with connect(short_timeouts.port) as reader:
        reader.sendall(request)
        answer = read_one(reader)
        assert answer.status == 200 and len(answer.body) == 20_000_000 + len('{"data":{"blob":""}}')


def test_an_idle_connection_is_closed_after_idle_timeout(short_timeouts):
    with connect(short_timeouts.port) as sock:
        sock.sendall(HEALTHZ)
        assert read_one(sock).status == 200
        started = time.monotonic()
        assert sock.recv(1) == b"", "the gateway sent more than its answer"
        assert time.monotonic() - started < 15
    with connect(short_timeouts.port) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\n")  # a request line, and nothing more
        assert read_until_closed(sock) == b""


# ---------------------------------------------------------------------------
# Header and body deadlines: each trickled byte restarts idle_timeout, not them

HEADER_TIMEOUT = 2
BODY_TIMEOUT = 3
# How long a trickle may go on before the gateway must have closed it: the
# deadline, a second for the first byte to be noticed, a second of sweep, slack.
CUT_WITHIN = 8


@pytest.fixture
def deadlines(gqlgate):
    return gqlgate(config=f"server: {{idle_timeout: 30s, header_timeout: {HEADER_TIMEOUT}s, body_timeout: {BODY_TIMEOUT}s}}\n")


def trickle_until_closed(sock: socket.socket, data: bytes) -> bytes:
    """Sends ``data`` a byte every half second until the gateway closes the
    connection; returns what it sent. Fails when it is still open after ``CUT_WITHIN`` s."""
    started = time.monotonic()
    received = bytearray()
    for byte in data:
        if time.monotonic() - started > CUT_WITHIN:
            break
        try:
            sock.send(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            return bytes(received) + read_until_closed(sock)
        if select.select([sock], [], [], 0.5)[0]:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                return bytes(received)
            if not chunk:
                return bytes(received)
            received += chunk
    raise AssertionError(f"the connection is still open after {CUT_WITHIN} s of trickling; got {bytes(received)!r}")


def assert_request_timeout(received: bytes) -> None:
    answers = parse_all(received)
    assert len(answers) == 1 and answers[0].status == 408, answers
    assert answers[0].header("Connection").lower() == "close", answers[0]


TRICKLED_HEADER = b"POST /graphql HTTP/1.1\r\nHost: gqlgate\r\nContent-Type: application/json\r\nX-Padding: " + b"p" * 100


def test_a_header_block_trickled_a_byte_at_a_time_gets_408_after_header_timeout(deadlines):
    with connect(deadlines.port) as sock:
        assert_request_timeout(trickle_until_closed(sock, TRICKLED_HEADER))


def test_the_next_request_on_a_kept_connection_has_its_own_header_deadline(deadlines):
    with connect(deadlines.port) as sock:
        sock.sendall(HEALTHZ)
        assert read_one(sock).status == 200
        assert_request_timeout(trickle_until_closed(sock, TRICKLED_HEADER))


def test_a_body_trickled_a_byte_at_a_time_gets_408_after_body_timeout(deadlines, strawberry_upstream):
    before = strawberry_upstream.count()
    body = HELLO + b" " * 100
    with connect(deadlines.port) as sock:
        sock.sendall(post(b"", f"Content-Length: {len(body)}"))
        assert_request_timeout(trickle_until_closed(sock, body))
    assert strawberry_upstream.count() == before


def test_a_connection_that_sends_nothing_is_idle_not_late(deadlines):
    with connect(deadlines.port) as sock:
        # Past the header deadline without a byte: idle_timeout (30 s) applies, and the connection stays.
        assert select.select([sock], [], [], HEADER_TIMEOUT + 2)[0] == []
        assert_still_serving(sock)


def test_clients_that_close_before_their_request_is_in_free_their_connections(gqlgate):
    gw = gqlgate(config="server: {idle_timeout: 60s, header_timeout: 60s}\n")
    for _ in range(50):
        with connect(gw.port) as sock:
            # The close comes with the bytes: libmicrohttpd alone would see it only at idle_timeout.
            sock.sendall(b"POST /graphql HTTP/1.1\r\nHost: gqlgate\r\n")
    wait_until(
        lambda: not {"ESTABLISHED", "CLOSE_WAIT"} & set(server_side_states(gw.port)), timeout=5,
        what="the gateway to close the connections", alive=gw.proc,
    )  # fmt: skip


# ---------------------------------------------------------------------------
# The connection limit


def test_a_connection_over_max_connections_is_closed_at_once(gqlgate):
    gw = gqlgate(config="server: {max_connections: 20, idle_timeout: 30s}\n")
    held = [connect(gw.port) for _ in range(20)]
    try:
        for sock in held:
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")  # a request begun, never finished
        with connect(gw.port) as extra:
            extra.settimeout(2)  # closed at once, not left waiting in the listen queue
            extra.sendall(HEALTHZ)
            assert read_until_closed(extra) == b""
        held.pop().close()
        wait_until(lambda: http_ok(gw.port), timeout=10, what="a place to free up", alive=gw.proc)
    finally:
        for sock in held:
            sock.close()


def http_ok(port: int) -> bool:
    with connect(port) as sock:
        sock.settimeout(2)
        sock.sendall(HEALTHZ)
        return read_one(sock).status == 200


# ---------------------------------------------------------------------------
# Drain


def test_answers_during_the_drain_carry_connection_close(gqlgate, strawberry_upstream):
    gw = gqlgate()
    before = strawberry_upstream.count()
    pool = concurrent.futures.ThreadPoolExecutor(1)
    slow = pool.submit(post_graphql, gw.url, "query Slow($s: Float!) { slow(seconds: $s) }", {"s": 2}, timeout=30)
    wait_until(lambda: strawberry_upstream.count() > before, timeout=10, what="the slow request to reach the upstream", alive=gw.proc)
    with connect(gw.port) as sock:
        sock.sendall(HEALTHZ)
        assert read_one(sock).header("Connection") is None
        gw.proc.popen.send_signal(signal.SIGTERM)
        wait_until(lambda: refused(gw.port), timeout=5, what="the listening socket to close", alive=gw.proc)
        sock.sendall(post(HELLO, f"Content-Length: {len(HELLO)}"))
        answers = parse_all(read_until_closed(sock))
    assert len(answers) == 1 and answers[0].status == 200, answers
    assert json.loads(answers[0].body) == {"data": {"hello": "Hello, world!"}}
    assert answers[0].header("Connection").lower() == "close"
    assert slow.result(timeout=30).status == 200
    pool.shutdown()
    assert gw.proc.popen.wait(timeout=15) == 0
    gw.proc.stop()  # exited as told: not a crash


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return False
    except ConnectionRefusedError:
        return True
