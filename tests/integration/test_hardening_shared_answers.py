"""No client gets an answer made for another: dedupe and the cache key every client header the
upstream is sent (forwarded headers, a forwarded Authorization), an upstream's `Vary: *`
or `Set-Cookie` keeps an answer out of the cache and out of dedupe, and `Set-Cookie` is never
served from the cache. Accept is not one of them: the upstream is sent gqlgate's own, and each
client gets the shared answer in its media type."""

from __future__ import annotations

import concurrent.futures
import http.server
import json
import threading
import typing

import pytest

from harness import post_graphql

QUERY = "query Who { who }"


class EchoUpstream:
    """A GraphQL upstream that answers `who` with the request headers the test names, and the
    answer headers the test sets. With `pair_up`, each request waits (up to 5 s) until another
    has arrived too, so that two clients are in flight at once without sleeping: where gqlgate
    merged them, one request arrives alone and waits the full 5 s."""

    def __init__(self, echo: typing.Sequence[str], answer_headers: typing.Sequence[tuple[str, str]] = (), pair_up: bool = False):
        self.echo = [name.lower() for name in echo]
        self.answer_headers = list(answer_headers)
        self.pair_up = pair_up
        self.received: list[dict[str, str]] = []
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        upstream = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                request = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                seen = {name: self.headers.get(name, "") for name in upstream.echo}
                if b"Who" not in request:  # gqlgate's own introspection
                    self.answer({"data": None}, [])
                    return
                with upstream.lock:
                    upstream.received.append(seen)
                    upstream.arrived.notify_all()
                    if upstream.pair_up:
                        upstream.arrived.wait_for(lambda: len(upstream.received) % 2 == 0, timeout=5)
                self.answer({"data": {"who": "|".join(f"{k}={v}" for k, v in seen.items())}}, upstream.answer_headers)

            def answer(self, document: typing.Any, headers: typing.Sequence[tuple[str, str]]) -> None:
                body = json.dumps(document).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: typing.Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/graphql"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_received(self, count: int) -> None:
        with self.lock:
            assert self.arrived.wait_for(lambda: len(self.received) >= count, timeout=10), self.received

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def echo_upstream() -> typing.Iterator[typing.Callable[..., EchoUpstream]]:
    made: list[EchoUpstream] = []

    def make(*args: typing.Any, **kwargs: typing.Any) -> EchoUpstream:
        made.append(EchoUpstream(*args, **kwargs))
        return made[-1]

    yield make
    for upstream in made:
        upstream.close()


def who(response: typing.Any) -> str:
    assert response.status == 200, str(response)
    return response.json()["data"]["who"]


def two_at_once(url: str, first: dict[str, str], second: dict[str, str], upstream: EchoUpstream) -> tuple[typing.Any, typing.Any]:
    """Sends the second request once the first is at the upstream (so dedupe could merge them)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        a = pool.submit(post_graphql, url, QUERY, headers=first)
        upstream.wait_received(1)
        b = pool.submit(post_graphql, url, QUERY, headers=second)
        return a.result(), b.result()


# ---------------------------------------------------------------------------
# Dedupe


@pytest.mark.parametrize(
    ("config", "echo", "first", "second"),
    [
        ("headers:\n  forward: [cookie]\n", ["cookie"], {"Cookie": "session=alice"}, {"Cookie": "session=bob"}),
        ("", ["accept-language"], {"Accept-Language": "de"}, {"Accept-Language": "en"}),
        ("headers:\n  forward_client_authorization: true\ncache:\n  vary_headers: [x-tenant]\n", ["authorization"],
         {"Authorization": "Bearer alice"}, {"Authorization": "Bearer bob"}),
    ],
    ids=["forwarded-cookie", "accept-language-by-default", "forwarded-authorization"],
)  # fmt: skip
def test_dedupe_never_gives_one_client_the_answer_made_for_another(gqlgate, echo_upstream, config, echo, first, second):
    upstream = echo_upstream(echo, pair_up=True)
    gw = gqlgate(upstream.url, config=config)
    a, b = two_at_once(gw.url, first, second, upstream)
    name = echo[0]
    assert who(a) == f"{name}={next(iter(first.values()))}"
    assert who(b) == f"{name}={next(iter(second.values()))}"
    assert len(upstream.received) == 2


def test_dedupe_merges_clients_of_both_media_types_and_each_gets_its_own(gqlgate, echo_upstream):
    """The upstream holds the one request it gets for 5 s waiting for a second, which never comes."""
    upstream = echo_upstream(["accept"], pair_up=True)
    gw = gqlgate(upstream.url, config="")
    a, b = two_at_once(gw.url, {"Accept": "application/json"}, {"Accept": "application/graphql-response+json"}, upstream)
    assert who(a) == who(b) == "accept=application/graphql-response+json, application/json;q=0.9"
    assert len(upstream.received) == 1
    assert a.header("Content-Type") == "application/json", str(a)  # the upstream's own: the type asked for
    assert b.header("Content-Type") == "application/graphql-response+json; charset=utf-8", str(b)


def test_dedupe_still_merges_what_the_upstream_cannot_tell_apart(gqlgate, echo_upstream):
    """Trace context is forwarded but left out of the key (headers.unkeyed)."""
    upstream = echo_upstream(["accept-language"])
    gw = gqlgate(upstream.url, config="")
    headers = [{"Accept-Language": "de", "traceparent": f"00-{i:032x}-{i:016x}-01"} for i in (1, 2)]
    a, b = two_at_once(gw.url, headers[0], headers[1], upstream)
    assert who(a) == who(b) == "accept-language=de"


def test_dedupe_does_not_share_an_answer_that_sets_a_cookie(gqlgate, echo_upstream):
    upstream = echo_upstream(["accept-language"], answer_headers=[("Set-Cookie", "session=new; HttpOnly")], pair_up=True)
    gw = gqlgate(upstream.url, config="")
    a, b = two_at_once(gw.url, {}, {}, upstream)
    assert a.status == b.status == 200
    assert len(upstream.received) == 2  # each client got a session of its own


# ---------------------------------------------------------------------------
# Cache

CACHE = "cache:\n  enabled: true\n  default_ttl: 60s\n"


def test_a_forwarded_header_is_part_of_the_cache_key_by_default(gqlgate, echo_upstream):
    upstream = echo_upstream(["accept-language"])
    gw = gqlgate(upstream.url, config=CACHE)
    de = post_graphql(gw.url, QUERY, headers={"Accept-Language": "de"})
    assert who(de) == "accept-language=de" and de.header("X-Cache") == "MISS", str(de)
    en = post_graphql(gw.url, QUERY, headers={"Accept-Language": "en"})
    assert who(en) == "accept-language=en" and en.header("X-Cache") == "MISS", str(en)
    again = post_graphql(gw.url, QUERY, headers={"Accept-Language": "de"})
    assert who(again) == "accept-language=de" and again.header("X-Cache") == "HIT", str(again)


def test_an_answer_that_varies_on_an_unkeyed_header_is_not_stored(gqlgate, echo_upstream):
    upstream = echo_upstream(["x-variant"], answer_headers=[("Vary", "X-Variant")])
    gw = gqlgate(upstream.url, config=CACHE + "headers:\n  forward: [x-variant]\n  unkeyed: [x-variant]\n")
    a = post_graphql(gw.url, QUERY, headers={"X-Variant": "a"})
    assert who(a) == "x-variant=a" and a.header("X-Cache") == "BYPASS", str(a)
    b = post_graphql(gw.url, QUERY, headers={"X-Variant": "b"})
    assert who(b) == "x-variant=b" and b.header("X-Cache") == "BYPASS", str(b)


def test_vary_star_is_never_stored(gqlgate, echo_upstream):
    upstream = echo_upstream(["accept-language"], answer_headers=[("Vary", "*")])
    gw = gqlgate(upstream.url, config=CACHE)
    for _ in range(2):
        r = post_graphql(gw.url, QUERY)
        assert r.status == 200 and r.header("X-Cache") == "BYPASS", str(r)
    assert len(upstream.received) == 2


@pytest.mark.parametrize(
    ("answer_headers", "request_headers"),
    [
        ([("Set-Cookie", "session=victim2; HttpOnly")], {}),
        ([("Set-Cookie", "session=victim2; HttpOnly"), ("Cache-Control", "private, max-age=60")], {"Authorization": "Bearer one"}),
    ],
    ids=["public", "private-with-scope"],
)
def test_set_cookie_is_never_stored_nor_replayed(gqlgate, echo_upstream, answer_headers, request_headers):
    upstream = echo_upstream(["accept-language"], answer_headers=answer_headers)
    gw = gqlgate(upstream.url, config=CACHE)
    first = post_graphql(gw.url, QUERY, headers=request_headers)
    assert first.status == 200 and first.header("Set-Cookie") == "session=victim2; HttpOnly", str(first)
    assert first.header("X-Cache") == "BYPASS", str(first)
    upstream.answer_headers = []
    second = post_graphql(gw.url, QUERY, headers=request_headers)
    assert second.header("Set-Cookie") is None, str(second)
    assert second.header("X-Cache") == "MISS", str(second)
    assert len(upstream.received) == 2
