"""Queries and mutations through gqlgate reach the upstream and come back unchanged."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import pytest

import upstream_app
from harness import curl, get_graphql, post_graphql

BOOKS_QUERY = "query Books { books { id title author } }"
HELLO_QUERY = "query Hello($name: String) { hello(name: $name) }"
TWO_OPS = 'query A { hello(name: "a") } query B { hello(name: "b") bookCount }'


def assert_same_answer(via, direct) -> None:
    """What gqlgate answered is what the upstream itself answers: status, Content-Type, bytes."""
    assert via.status == direct.status, f"status differs\nvia gqlgate: {via}\ndirect: {direct}"
    assert (via.header("Content-Type") or "").lower() == (direct.header("Content-Type") or "").lower(), (
        f"Content-Type differs\nvia gqlgate: {via}\ndirect: {direct}"
    )
    assert via.body == direct.body, f"body differs\nvia gqlgate: {via}\ndirect: {direct}"


# ---------------------------------------------------------------------------
# Queries


def test_post_query_with_variables(gateway, strawberry_upstream):
    via = post_graphql(gateway.url, HELLO_QUERY, {"name": "gateway"})
    direct = post_graphql(strawberry_upstream.url, HELLO_QUERY, {"name": "gateway"})
    assert via.status == 200, str(via)
    assert via.json() == {"data": {"hello": "Hello, gateway!"}}
    assert_same_answer(via, direct)


def test_post_query_list_matches_upstream(gateway, strawberry_upstream):
    via = post_graphql(gateway.url, BOOKS_QUERY)
    direct = post_graphql(strawberry_upstream.url, BOOKS_QUERY)
    assert via.status == 200, str(via)
    assert len(via.json()["data"]["books"]) >= 3
    assert_same_answer(via, direct)


def test_post_query_with_id_variable(gateway, strawberry_upstream):
    q = "query Book($id: ID!) { book(id: $id) { id title author } }"
    via = post_graphql(gateway.url, q, {"id": "2"})
    direct = post_graphql(strawberry_upstream.url, q, {"id": "2"})
    assert via.json() == {"data": {"book": {"id": "2", "title": "Dune", "author": "Frank Herbert"}}}, str(via)
    assert_same_answer(via, direct)


def test_get_query_with_variables(gateway, strawberry_upstream):
    via = get_graphql(gateway.url, HELLO_QUERY, {"name": "over GET"})
    direct = get_graphql(strawberry_upstream.url, HELLO_QUERY, {"name": "over GET"})
    assert via.status == 200, str(via)
    assert via.json() == {"data": {"hello": "Hello, over GET!"}}
    assert_same_answer(via, direct)


def test_get_query_without_variables(gateway, strawberry_upstream):
    via = get_graphql(gateway.url, "{ hello bookCount }")
    direct = get_graphql(strawberry_upstream.url, "{ hello bookCount }")
    assert via.status == 200, str(via)
    assert via.json()["data"]["hello"] == "Hello, world!"
    assert_same_answer(via, direct)


@pytest.mark.parametrize("method", ["POST", "GET"])
@pytest.mark.parametrize("operation,expected", [("A", "Hello, a!"), ("B", "Hello, b!")])
def test_operation_name_chooses_operation(gateway, strawberry_upstream, method, operation, expected):
    send = post_graphql if method == "POST" else get_graphql
    via = send(gateway.url, TWO_OPS, operation_name=operation)
    direct = send(strawberry_upstream.url, TWO_OPS, operation_name=operation)
    assert via.status == 200, str(via)
    assert via.json()["data"]["hello"] == expected
    assert ("bookCount" in via.json()["data"]) == (operation == "B")
    assert_same_answer(via, direct)


def test_null_optional_fields_mean_absent(gateway, strawberry_upstream):
    body = {"query": "{ hello }", "variables": None, "operationName": None, "extensions": None}
    via = curl(gateway.url, json_body=body)
    direct = post_graphql(strawberry_upstream.url, "{ hello }")
    assert via.status == 200, str(via)
    assert via.json() == {"data": {"hello": "Hello, world!"}}
    assert via.body == direct.body


def test_unknown_top_level_keys_are_ignored(gateway):
    via = curl(gateway.url, json_body={"query": "{ hello }", "someVendorKey": {"x": 1}})
    assert via.status == 200, str(via)
    assert via.json() == {"data": {"hello": "Hello, world!"}}


def test_content_type_with_charset_is_accepted(gateway):
    via = curl(gateway.url, json_body={"query": "{ hello }"}, content_type="application/json; charset=utf-8")
    assert via.status == 200, str(via)
    assert via.json() == {"data": {"hello": "Hello, world!"}}


def test_non_ascii_variables_round_trip(gateway, strawberry_upstream):
    name = "Zoë 東京 🚀"
    via = post_graphql(gateway.url, HELLO_QUERY, {"name": name})
    direct = post_graphql(strawberry_upstream.url, HELLO_QUERY, {"name": name})
    assert via.json() == {"data": {"hello": f"Hello, {name}!"}}, str(via)
    assert_same_answer(via, direct)


def test_gql_client_through_gateway(gateway, strawberry_upstream):
    from gql import Client, GraphQLRequest
    from gql.transport.requests import RequestsHTTPTransport

    request = GraphQLRequest(
        "query Book($id: ID!) { book(id: $id) { id title author } bookCount }", variable_values={"id": "3"}
    )
    results = []
    for url in (gateway.url, strawberry_upstream.url):
        client = Client(transport=RequestsHTTPTransport(url=url, timeout=10))
        results.append(client.execute(request))
    assert results[0]["book"] == {"id": "3", "title": "Kindred", "author": "Octavia E. Butler"}
    assert results[0] == results[1]


# ---------------------------------------------------------------------------
# Upstream errors pass through


def test_field_error_passes_through_unchanged(gateway, strawberry_upstream):
    q = "{ hello fail }"
    via = post_graphql(gateway.url, q)
    direct = post_graphql(strawberry_upstream.url, q)
    body = via.json()
    assert body["data"] == {"hello": "Hello, world!", "fail": None}, str(via)
    assert body["errors"][0]["path"] == ["fail"]
    assert body["errors"][0]["message"] == "fail resolver always fails"
    assert_same_answer(via, direct)


def test_upstream_validation_error_passes_through(gateway, strawberry_upstream):
    q = "{ noSuchField }"
    via = post_graphql(gateway.url, q)
    direct = post_graphql(strawberry_upstream.url, q)
    assert "errors" in via.json(), str(via)
    assert_same_answer(via, direct)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 429, 500, 502, 503])
def test_upstream_status_passes_through(gqlgate, strawberry_upstream, status):
    upstream = strawberry_upstream.path(f"/status/{status}")
    gw = gqlgate(upstream)
    via = post_graphql(gw.url, "{ hello }")
    direct = post_graphql(upstream, "{ hello }")
    assert via.status == status, str(via)
    assert via.body == upstream_app.status_body(status), str(via)
    assert via.header("X-Upstream-Marker") == "yes", str(via)
    assert_same_answer(via, direct)


@pytest.mark.parametrize("status", [400, 404, 500])
def test_upstream_status_not_in_retry_list_is_sent_once(gqlgate, strawberry_upstream, status):
    path = f"/status/{status}"
    gw = gqlgate(strawberry_upstream.path(path))
    before = strawberry_upstream.count(path)
    via = post_graphql(gw.url, "{ hello }")
    assert via.status == status, str(via)
    assert strawberry_upstream.count(path) - before == 1


# ---------------------------------------------------------------------------
# Hop-by-hop headers


def _two_requests_one_curl(url: str, body: str) -> list[tuple[int, int]]:
    """Two POSTs in one curl process; (status, new connections opened) for each."""
    cmd = ["curl", "-sS", "--max-time", "10"]
    for i in range(2):
        if i:
            cmd.append("--next")
        cmd += [
            "-o", "/dev/null", "-w", "%{http_code} %{num_connects}\\n",
            "-H", "Content-Type: application/json", "--data-binary", body, url,
        ]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    assert out.returncode == 0, out.stderr
    return [tuple(int(x) for x in line.split()) for line in out.stdout.splitlines()]  # type: ignore[misc]


def test_hop_by_hop_response_headers_are_not_passed(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/hop-headers"))
    via = post_graphql(gw.url, "{ hello }")
    assert via.status == 200, str(via)
    assert via.body == upstream_app.HOP_BODY
    assert via.header("X-Upstream-Marker") == "yes", "an end-to-end header was dropped:\n" + str(via)
    assert via.header("X-Hop-Custom") is None, "header named by upstream Connection leaked:\n" + str(via)
    assert via.header("Proxy-Authenticate") is None, str(via)
    assert "timeout=30" not in (via.header("Keep-Alive") or ""), "upstream Keep-Alive leaked:\n" + str(via)
    assert "x-hop-custom" not in (via.header("Connection") or "").lower(), str(via)


def test_upstream_connection_close_does_not_leak(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/conn-close"))
    via = post_graphql(gw.url, "{ hello }")
    assert via.status == 200, str(via)
    assert via.body == upstream_app.CLOSE_BODY
    assert "close" not in (via.header("Connection") or "").lower(), "upstream Connection: close leaked:\n" + str(via)
    # The client's connection stays usable: the second request reuses it.
    results = _two_requests_one_curl(gw.url, json.dumps({"query": "{ hello }"}))
    assert [s for s, _ in results] == [200, 200]
    assert results[1][1] == 0, f"gqlgate closed the client connection after an upstream 'Connection: close': {results}"


def test_chunked_upstream_answer_is_framed_once(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/chunked"))
    via = post_graphql(gw.url, "{ hello }")
    assert via.status == 200, str(via)
    assert via.body == b"".join(upstream_app.CHUNKED_PARTS), str(via)
    te = via.header_values("Transfer-Encoding")
    cl = via.header_values("Content-Length")
    assert len(te) <= 1, f"Transfer-Encoding repeated: {te}\n{via}"
    assert not (te and cl), f"both Transfer-Encoding and Content-Length:\n{via}"
    assert len(cl) <= 1, str(via)
    if cl:
        assert int(cl[0]) == len(via.body)
    assert via.header("X-Upstream-Marker") == "yes", str(via)


def test_keep_alive_between_client_and_gateway(gateway):
    results = _two_requests_one_curl(gateway.url, json.dumps({"query": "{ hello }"}))
    assert [s for s, _ in results] == [200, 200]
    assert results[1][1] == 0, f"second request opened a new connection: {results}"


def test_hop_by_hop_request_headers_are_not_sent_upstream(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"))
    via = curl(
        gw.url,
        json_body={"query": "{ hello }"},
        headers={
            "Connection": "keep-alive, X-Client-Hop",
            "X-Client-Hop": "must-not-pass",
            "Keep-Alive": "timeout=99",
            "TE": "trailers",
            "Proxy-Authorization": "Basic c2VjcmV0OnNlY3JldA==",
        },
    )
    assert via.status == 200, str(via)
    seen = via.json()["data"]["headers"]
    assert "x-client-hop" not in seen, seen
    assert "proxy-authorization" not in seen, seen
    assert "te" not in seen, seen
    assert seen.get("keep-alive") != "timeout=99", seen
    assert "x-client-hop" not in seen.get("connection", "").lower(), seen
    assert seen.get("content-type", "").startswith("application/json"), seen


# ---------------------------------------------------------------------------
# X-Request-Id


def test_client_request_id_is_kept(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"))
    rid = f"client-{uuid.uuid4()}"
    via = curl(gw.url, json_body={"query": "{ hello }"}, headers={"X-Request-Id": rid})
    assert via.status == 200, str(via)
    assert via.header("X-Request-Id") == rid, str(via)
    assert via.json()["data"]["headers"].get("x-request-id") == rid


def test_request_id_is_generated_when_absent(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"))
    ids = []
    for _ in range(2):
        via = post_graphql(gw.url, "{ hello }")
        assert via.status == 200, str(via)
        rid = via.header("X-Request-Id")
        assert rid, "no X-Request-Id on the answer:\n" + str(via)
        assert via.json()["data"]["headers"].get("x-request-id") == rid, str(via)
        ids.append(rid)
    assert ids[0] != ids[1], f"the same request id twice: {ids}"


def test_request_id_on_get_and_normal_answers(gateway):
    via = get_graphql(gateway.url, "{ hello }")
    assert via.status == 200, str(via)
    assert via.header("X-Request-Id"), str(via)


# ---------------------------------------------------------------------------
# Mutations


def test_mutation_runs_exactly_once(gateway, strawberry_upstream):
    before = strawberry_upstream.book_count()
    title = f"Book {uuid.uuid4()}"
    q = "mutation Add($t: String!, $a: String!) { addBook(title: $t, author: $a) { title author } }"
    via = post_graphql(gateway.url, q, {"t": title, "a": "Tester"})
    assert via.status == 200, str(via)
    assert via.json() == {"data": {"addBook": {"title": title, "author": "Tester"}}}, str(via)
    assert strawberry_upstream.book_count() == before + 1
    books = post_graphql(gateway.url, BOOKS_QUERY).json()["data"]["books"]
    assert [b["title"] for b in books].count(title) == 1


def test_mutation_chosen_by_operation_name(gateway, strawberry_upstream):
    before = strawberry_upstream.book_count()
    title = f"Named {uuid.uuid4()}"
    doc = f'query Count {{ bookCount }} mutation Add {{ addBook(title: "{title}", author: "N") {{ title }} }}'
    via = post_graphql(gateway.url, doc, operation_name="Add")
    assert via.json() == {"data": {"addBook": {"title": title}}}, str(via)
    assert strawberry_upstream.book_count() == before + 1
    via = post_graphql(gateway.url, doc, operation_name="Count")
    assert via.json() == {"data": {"bookCount": before + 1}}, str(via)


# ---------------------------------------------------------------------------
# Health


def test_healthz(gateway):
    r = curl(gateway.path("/healthz"))
    assert r.status == 200, str(r)
    assert r.json() == {"status": "ok"}


# ---------------------------------------------------------------------------
# Server and loop threading


@pytest.mark.parametrize("threads", ["threads: 2\n  loops: 2", "threads: 1\n  loops: 3"])
def test_thread_pool_and_several_loops_serve_concurrent_clients(gqlgate, strawberry_upstream, threads):
    """libmicrohttpd's thread pool (server.threads > 1) and several gateway loops answer every request correctly."""
    from concurrent.futures import ThreadPoolExecutor

    gw = gqlgate(config=f"server:\n  {threads}\n")
    names = [f"client-{i}" for i in range(40)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda name: post_graphql(gw.url, HELLO_QUERY, {"name": name}), names))
    assert [a.status for a in answers] == [200] * len(names)
    assert [a.json()["data"]["hello"] for a in answers] == [f"Hello, {name}!" for name in names]


def test_the_gateway_allocates_with_mimalloc(gateway):
    """The executable links mimalloc so that every allocation in the process, libcurl's and
    libmicrohttpd's included, goes to it (docs/architecture.md, "Design notes"); a linker that dropped the
    library would quietly bring back glibc's malloc."""
    assert post_graphql(gateway.url, "{ hello }").status == 200
    maps = Path(f"/proc/{gateway.proc.pid}/maps").read_text()
    assert "libmimalloc" in maps, "libmimalloc is not mapped into the running gateway"
