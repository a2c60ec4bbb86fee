"""Incremental delivery (``@defer``, ``@stream``) in front of Strawberry's incremental execution
(``/defer/graphql`` of the upstream app): each part streamed to the client as the upstream sends
it, while the upstream is still held open by a resolver the test releases; refused with 406
before it goes upstream when the client's ``Accept`` admits no ``multipart/mixed``."""

from __future__ import annotations

import http.client
import json
import signal
import time
import urllib.request
import uuid

import pytest

from harness import assert_gateway_error, get_graphql, port_open, post_graphql, wait_until

APOLLO_ACCEPT = "multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9"
OPENING = b"\r\n---"
CLOSING = b"\r\n-----\r\n"

DEFERRED = '{ hello ... @defer { held(key: "never") } }'
STREAMED = '{ heldBooks(key: "never") @stream(initialCount: 1) { title } }'


@pytest.fixture
def defer_gateway(gqlgate, strawberry_upstream):
    """A gqlgate in front of the upstream's incremental schema."""
    return gqlgate(strawberry_upstream.path("/defer/graphql"))


@pytest.mark.parametrize(
    "accept",
    [None, "application/json", "application/graphql-response+json", "*/*", "multipart/*",
     "multipart/mixed;q=0, application/json", 'multipart/mixed;subscriptionSpec="1.0", application/json'],
)
@pytest.mark.parametrize("query", [DEFERRED, STREAMED])
def test_defer_or_stream_without_multipart_is_406_and_never_goes_upstream(defer_gateway, strawberry_upstream, accept, query):
    before = strawberry_upstream.count("/defer/graphql")
    headers = {"Accept": accept} if accept is not None else {}
    r = post_graphql(defer_gateway.url, query, headers=headers)
    body = assert_gateway_error(r, 406, "NOT_ACCEPTABLE")
    assert "multipart/mixed" in body["errors"][0]["message"], str(r)
    r = get_graphql(defer_gateway.url, query, headers=headers)
    assert_gateway_error(r, 406, "NOT_ACCEPTABLE")
    assert strawberry_upstream.count("/defer/graphql") == before


def test_a_deferring_fragment_is_found_where_it_is_spread(defer_gateway, strawberry_upstream):
    before = strawberry_upstream.count("/defer/graphql")
    query = 'query { ...Later } fragment Later on DeferQuery { hello ... @defer { held(key: "never") } }'
    assert_gateway_error(post_graphql(defer_gateway.url, query), 406, "NOT_ACCEPTABLE")
    assert strawberry_upstream.count("/defer/graphql") == before


def caching_gateway(gqlgate, strawberry_upstream, config: str = ""):
    """A gqlgate with the cache on in front of the incremental schema, once the introspection query the cache sends
    at start (to learn the entity schema) reached the upstream: the requests counted after it are the test's."""
    before = strawberry_upstream.count("/defer/graphql")
    gw = gqlgate(strawberry_upstream.path("/defer/graphql"), config="cache: {enabled: true}\n" + config)
    wait_until(lambda: strawberry_upstream.count("/defer/graphql") > before, timeout=5, what="the cache's introspection query")
    return gw


def test_the_cache_and_dedupe_refuse_it_too(gqlgate, strawberry_upstream):
    gw = caching_gateway(gqlgate, strawberry_upstream, "dedupe: {enabled: true}\n")
    before = strawberry_upstream.count("/defer/graphql")
    for _ in range(2):
        assert_gateway_error(post_graphql(gw.url, DEFERRED), 406, "NOT_ACCEPTABLE")
    assert strawberry_upstream.count("/defer/graphql") == before


def test_a_query_without_the_directives_needs_no_multipart(defer_gateway):
    r = post_graphql(defer_gateway.url, "{ hello }", headers={"Accept": "application/json"})
    assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, str(r)


# ---------------------------------------------------------------------------
# Streamed part by part


class Incremental:
    """One POST read as it arrives: the status, the header fields and the body so far."""

    def __init__(self, gateway_url: str, query: str, accept: str = APOLLO_ACCEPT) -> None:
        host_port = gateway_url.split("/")[2]
        self.conn = http.client.HTTPConnection(host_port, timeout=15)
        self.conn.request("POST", "/graphql", body=json.dumps({"query": query}),
                          headers={"Content-Type": "application/json", "Accept": accept})
        self.response = self.conn.getresponse()
        self.body = b""

    def read_parts(self, count: int) -> list[dict]:
        """Reads until ``count`` parts are complete (each followed by its delimiter); returns every part so far."""
        while len(parts_of(self.body)) < count:
            more = self.response.read1(65536)
            assert more, f"the body ended after {self.body!r}"
            self.body += more
        return parts_of(self.body)

    def read_to_end(self) -> bytes:
        self.body += self.response.read()
        self.conn.close()
        return self.body

    def close(self) -> None:
        self.conn.close()


def parts_of(body: bytes) -> list[dict]:
    """The parts complete so far of gqlgate's incremental body, each checked for its part header."""
    assert body[: len(OPENING)] == OPENING[: len(body)], repr(body)
    pieces = body[len(OPENING):].split(b"\r\n---")
    parts = []
    for piece in pieces[:-1]:
        head, _, payload = piece.partition(b"\r\n\r\n")
        assert head == b"\r\nContent-Type: application/json; charset=utf-8", repr(piece)
        parts.append(json.loads(payload))
    return parts


def held(strawberry_upstream) -> list[str]:
    with urllib.request.urlopen(strawberry_upstream.path("/defer/held"), timeout=5) as r:
        return json.loads(r.read())["waiting"]


def release(strawberry_upstream, key: str) -> None:
    urllib.request.urlopen(urllib.request.Request(strawberry_upstream.path(f"/defer/release?key={key}"), method="POST"), timeout=5).read()


def test_each_deferred_part_reaches_the_client_while_the_upstream_is_still_held(defer_gateway, strawberry_upstream):
    key = uuid.uuid4().hex
    started = time.monotonic()
    answer = Incremental(defer_gateway.url, f'{{ hello ... @defer {{ held(key: "{key}") }} }}')
    assert answer.response.status == 200
    assert answer.response.getheader("Content-Type") == 'multipart/mixed; boundary="-"'
    assert answer.response.getheader("Transfer-Encoding") == "chunked"
    assert answer.response.getheader("X-Request-Id")
    [first] = answer.read_parts(1)
    first_after = time.monotonic() - started
    # The first part is here while the upstream still holds its answer open, waiting for the release.
    assert held(strawberry_upstream) == [key]
    assert first["data"] == {"hello": "Hello, world!"} and first["hasNext"] is True, first
    release(strawberry_upstream, key)
    body = answer.read_to_end()
    assert body.endswith(CLOSING), repr(body)
    parts = parts_of(body)
    assert len(parts) == 2, parts
    assert parts[1]["hasNext"] is False
    assert parts[1]["incremental"][0]["data"] == {"held": f"released {key}"}, parts[1]
    assert first_after < 2.0, f"the first part took {first_after:.3f}s"


def test_streamed_list_items_come_as_the_upstream_sends_them(defer_gateway, strawberry_upstream):
    key = uuid.uuid4().hex
    answer = Incremental(defer_gateway.url, f'{{ heldBooks(key: "{key}") @stream(initialCount: 1) {{ title }} }}',
                         accept="multipart/mixed, application/json")
    [first] = answer.read_parts(1)
    assert first["data"] == {"heldBooks": [{"title": "The Left Hand of Darkness"}]}, first
    assert held(strawberry_upstream) == [key]
    release(strawberry_upstream, key)
    parts = parts_of(answer.read_to_end())
    items = [item["title"] for part in parts[1:] for entry in part.get("incremental", []) for item in entry["items"]]
    assert items == ["Dune", "Kindred"], parts
    assert parts[-1]["hasNext"] is False


def test_a_client_that_goes_away_ends_the_upstream_request(defer_gateway, strawberry_upstream):
    key = uuid.uuid4().hex
    answer = Incremental(defer_gateway.url, f'{{ hello ... @defer {{ held(key: "{key}") }} }}')
    answer.read_parts(1)
    assert held(strawberry_upstream) == [key]
    answer.close()
    wait_until(lambda: held(strawberry_upstream) == [], timeout=5, what="the upstream resolver cancelled")


def test_a_plain_query_is_unchanged_whatever_the_accept(defer_gateway):
    for accept, media_type in ((APOLLO_ACCEPT, "application/graphql-response+json"), ("application/json", "application/json")):
        r = post_graphql(defer_gateway.url, "{ hello }", headers={"Accept": accept})
        assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, str(r)
        assert (r.header("Content-Type") or "").startswith(media_type), str(r)


def test_with_the_cache_on_it_is_streamed_and_never_stored(gqlgate, strawberry_upstream):
    gw = caching_gateway(gqlgate, strawberry_upstream)
    key = uuid.uuid4().hex
    release(strawberry_upstream, key)
    before = strawberry_upstream.count("/defer/graphql")
    for _ in range(2):
        answer = Incremental(gw.url, f'{{ hello ... @defer {{ held(key: "{key}") }} }}')
        assert answer.response.getheader("X-Cache") == "BYPASS"
        parts = parts_of(answer.read_to_end())
        assert [part["hasNext"] for part in parts] == [True, False], parts
    assert strawberry_upstream.count("/defer/graphql") - before == 2


def test_an_upstream_too_slow_ends_the_answer_with_an_error_part(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/defer/graphql"), config="upstream: {timeout: 1s}\nretry: {max_attempts: 1}\n")
    key = uuid.uuid4().hex
    answer = Incremental(gw.url, f'{{ hello ... @defer {{ held(key: "{key}") }} }}')
    answer.read_parts(1)
    body = answer.read_to_end()
    assert body.endswith(CLOSING), repr(body)
    last = parts_of(body)[-1]
    assert last["hasNext"] is False
    assert [error["extensions"]["code"] for error in last["errors"]] == ["UPSTREAM_TIMEOUT"], last


# ---------------------------------------------------------------------------
# Drains


def exit_status(proc) -> int:
    """The exit status of a gateway told to stop (which the fixtures then do not count as a crash)."""
    rc = proc.popen.wait(timeout=12)
    proc.stop()
    return rc


def test_sigterm_lets_an_incremental_answer_finish(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/defer/graphql"))
    key = uuid.uuid4().hex
    answer = Incremental(gw.url, f'{{ hello ... @defer {{ held(key: "{key}") }} }}')
    answer.read_parts(1)
    gw.proc.popen.send_signal(signal.SIGTERM)
    # Draining (the listening socket closed), the gateway still waits for the answer's last part.
    wait_until(lambda: not port_open("127.0.0.1", gw.port), timeout=5, what="the listening socket to close", alive=gw.proc)
    assert gw.proc.popen.poll() is None
    release(strawberry_upstream, key)
    body = answer.read_to_end()
    assert body.endswith(CLOSING), repr(body)
    assert [part["hasNext"] for part in parts_of(body)] == [True, False]
    assert exit_status(gw.proc) == 0, gw.proc.describe()


def test_past_drain_timeout_an_incremental_answer_is_cut_and_its_upstream_request_ended(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/defer/graphql"), config="server: {drain_timeout: 500ms}\n")
    key = uuid.uuid4().hex
    answer = Incremental(gw.url, f'{{ hello ... @defer {{ held(key: "{key}") }} }}')
    answer.read_parts(1)
    gw.proc.popen.send_signal(signal.SIGTERM)
    body = answer.read_to_end()
    assert not body.endswith(CLOSING) and len(parts_of(body)) == 1, repr(body)
    assert exit_status(gw.proc) == 0, gw.proc.describe()
    wait_until(lambda: held(strawberry_upstream) == [], timeout=5, what="the upstream resolver cancelled")
