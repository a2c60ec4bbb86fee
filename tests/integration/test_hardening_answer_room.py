"""A request's header block and its answer's share libmicrohttpd's memory of
the connection (server.max_header_bytes). A request the gateway forwards
always gets its answer: one whose header block leaves too little for the
answer's is refused with 431 before anything is forwarded, and answer header
fields past the room left are dropped rather than the answer. Before, the
client got an empty reply although the upstream had run the mutation.
Within a few hundred bytes of the pool's size no answer fits at all: the
connection closes, and nothing is forwarded."""

from __future__ import annotations

import json

import pytest

from harness import wait_until
from test_hardening_http import RawAnswer, connect, parse_all, post, read_until_closed

POOL = 16 * 1024
MUTATION = json.dumps({"query": 'mutation { addBook(title: "Room", author: "A") { title } }'}).encode()


def mutation_with_pad(pad: int) -> bytes:
    return post(MUTATION, f"Content-Length: {len(MUTATION)}", "Connection: close", "X-Pad: " + "p" * pad)


def answers_to(port: int, request: bytes) -> list[RawAnswer]:
    """Every answer on a connection that carries only ``request``, read until the gateway closes it."""
    with connect(port) as sock:
        sock.sendall(request)
        return parse_all(read_until_closed(sock))


def test_mutation_whose_headers_leave_no_room_for_the_answer_is_refused_before_it_runs(gqlgate, strawberry_upstream):
    gw = gqlgate()
    books = strawberry_upstream.book_count()
    # libmicrohttpd takes these fields, but a large answer's header block would not fit beside them.
    answers = answers_to(gw.port, mutation_with_pad(POOL - 1500))
    assert [a.status for a in answers] == [431], answers
    assert answers[0].code() == "REQUEST_HEADER_FIELDS_TOO_LARGE"
    assert "server.max_header_bytes" in json.loads(answers[0].body)["errors"][0]["message"]
    assert answers[0].header("Connection").lower() == "close"
    assert strawberry_upstream.book_count() == books


def test_every_request_near_the_limit_gets_one_answer_and_runs_only_when_answered_200(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/big-headers?count=1&bytes=3000"))
    before = strawberry_upstream.count("/big-headers")
    statuses = []
    for pad in range(POOL - 5000, POOL - 1200, 97):
        answers = answers_to(gw.port, mutation_with_pad(pad))
        assert len(answers) == 1, f"pad {pad}: {len(answers)} answers"
        statuses.append(answers[0].status)
        if answers[0].status == 200:
            assert json.loads(answers[0].body) == {"data": {"big": "headers"}}, answers[0]
    assert set(statuses) == {200, 431}, statuses
    assert strawberry_upstream.count("/big-headers") == before + statuses.count(200)


def one_cookie(size: int) -> str:
    return "Cookie: c=" + "x" * size


def many_cookies(size: int) -> str:
    return "Cookie: " + "; ".join(f"k{i}=" + "v" * 20 for i in range(size // 26))


@pytest.mark.parametrize("field", [lambda size: "X-Pad: " + "p" * size, one_cookie, many_cookies], ids=["pad", "cookie", "cookies"])
def test_requests_up_to_and_past_the_pool_run_only_when_answered(gqlgate, strawberry_upstream, field):
    gw = gqlgate()
    books = strawberry_upstream.book_count()
    answered = 0
    for size in range(300, POOL + 200, 41):
        request = post(MUTATION, f"Content-Length: {len(MUTATION)}", "Connection: close", field(size))
        with connect(gw.port) as sock:
            sock.sendall(request)
            data = read_until_closed(sock)
        if data.startswith(b"HTTP/1.1 431") and b"Request too big" in data:
            continue  # libmicrohttpd's own 431, sent twice by 0.9.75
        answers = parse_all(data)
        assert [a.status for a in answers] in ([], [200], [431]), f"size {size}: {answers}"
        if answers and answers[0].status == 200:
            assert json.loads(answers[0].body) == {"data": {"addBook": {"title": "Room"}}}, answers[0]
            answered += 1
    assert answered > 0
    assert strawberry_upstream.book_count() == books + answered


def test_answer_header_fields_past_the_room_left_are_dropped_and_the_answer_delivered(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/big-headers?count=3&bytes=4000"))
    before = strawberry_upstream.count("/big-headers")
    answers = answers_to(gw.port, mutation_with_pad(8000))
    assert [a.status for a in answers] == [200], answers
    assert json.loads(answers[0].body) == {"data": {"big": "headers"}}
    big = [name for name, _ in answers[0].headers if name.lower().startswith("x-big-")]
    assert 0 < len(big) < 3, answers[0].headers
    # The upstream's application/json, translated: the request had no Accept.
    assert answers[0].header("Content-Type") == "application/graphql-response+json; charset=utf-8"
    assert answers[0].header("X-Request-Id")
    assert strawberry_upstream.count("/big-headers") == before + 1
    wait_until(lambda: any('"msg":"answer header fields dropped"' in line and "x-big-" in line.lower()
                           for line in gw.proc.stderr().splitlines()), timeout=5, what="the warning", alive=gw.proc)


def test_answer_header_fields_that_fit_beside_a_small_request_pass_unchanged(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/big-headers?count=2&bytes=3000"))
    answers = answers_to(gw.port, mutation_with_pad(10))
    assert [a.status for a in answers] == [200], answers
    assert [(n.lower(), v) for n, v in answers[0].headers if n.lower().startswith("x-big-")] == [
        ("x-big-1", "h" * 3000), ("x-big-2", "h" * 3000)]


def test_requests_sent_ahead_on_the_connection_leave_each_answer_its_room(gqlgate, strawberry_upstream):
    # libmicrohttpd reads what a client pipelines into the same memory while it writes the answer.
    gw = gqlgate(strawberry_upstream.path("/big-headers?count=1&bytes=9000"))
    for pad in range(4000, POOL, 1000):
        before = strawberry_upstream.count("/big-headers")
        first = post(MUTATION, f"Content-Length: {len(MUTATION)}")
        with connect(gw.port) as sock:
            sock.sendall(first + mutation_with_pad(pad))
            data = read_until_closed(sock)
        if b"Request too big" in data:
            data = data[: data.index(b"HTTP/1.1 431")]  # libmicrohttpd's own 431 for the second, sent twice by 0.9.75
        answers = parse_all(data)
        assert answers and answers[0].status == 200, f"pad {pad}: {answers}"
        assert [a.status for a in answers[1:]] in ([], [200], [431]), f"pad {pad}: {answers}"
        ran = strawberry_upstream.count("/big-headers") - before
        assert ran == sum(a.status == 200 for a in answers), f"pad {pad}: {ran} ran, answers {answers}"
