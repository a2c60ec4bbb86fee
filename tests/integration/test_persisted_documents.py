"""Persisted documents and the operation safelist: an Apollo manifest and a Relay map at once,
every kind of id over POST, GET, WebSocket, SSE and multipart, the safelist, require_id,
introspection, reload, and a cache hit that must still pass the safelist."""

from __future__ import annotations

import asyncio
import hashlib
import json
import signal
from pathlib import Path

import pytest
from gql import Client, GraphQLRequest
from gql.transport.exceptions import TransportQueryError
from gql.transport.requests import RequestsHTTPTransport

from harness import PREFLIGHT, assert_gateway_error, curl, post_graphql, wait_until
from test_ops import scrape, wait_for_record
from test_streams import MULTIPART, SSE, multipart_parts, sse_events
from test_subscriptions_ws import TRANSPORT_WS, LEGACY_WS, initialised, recv_type, send

BOOK = "query Book($id: ID!) { book(id: $id) { title } }"
HELLO = 'query Hello { hello(name: "listed") }'
COUNTDOWN = "subscription Countdown($from: Int!) { countdown(from: $from) }"
NAMED = "query Named { book(id: \"1\") { ...T } } fragment T on Book { title author }"
ADD = "mutation Add { addBook(title: \"Listed\", author: \"Anon\") { id } }"
TOOLING = "query Tooling { __schema { queryType { name } } }"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def apollo_manifest(*bodies: str) -> str:
    return json.dumps({
        "format": "apollo-persisted-query-manifest", "version": 1,
        "operations": [{"id": sha(b), "body": b, "name": f"Op{i}", "type": "query"} for i, b in enumerate(bodies)],
    })


RELAY = {"relay-named": NAMED, "relay-countdown": COUNTDOWN, "relay-add": ADD, "relay-tooling": TOOLING}


def start(gqlgate, tmp_path: Path, settings: str = "", limits: str = "", extra: str = ""):
    (tmp_path / "apollo.json").write_text(apollo_manifest(BOOK, HELLO))
    (tmp_path / "relay.json").write_text(json.dumps(RELAY))
    config = (
        "persisted_documents:\n"
        f"  manifests: [{tmp_path / 'apollo.json'}, {tmp_path / 'relay.json'}]\n"
        + "".join(f"  {line}\n" for line in settings.splitlines())
        + (f"limits: {{{limits}}}\n" if limits else "")
        + extra
    )
    return gqlgate(config=config)


def replace(path: Path, text: str) -> None:
    """Writes a manifest the way deploy tools do: a new file renamed over the old one."""
    fresh = path.with_suffix(".next")
    fresh.write_text(text)
    fresh.rename(path)


def data(r) -> dict:
    assert r.status == 200, str(r)
    body = r.json()
    assert "errors" not in body, str(r)
    return body["data"]


def test_every_kind_of_id_and_the_text_run_the_same_listed_operation(gqlgate, tmp_path):
    gw = start(gqlgate, tmp_path, "safelist: true")
    variables = {"id": "3"}
    expected = {"book": {"title": "Kindred"}}
    assert data(curl(gw.url, json_body={"documentId": f"sha256:{sha(BOOK)}", "variables": variables})) == expected
    assert data(curl(gw.url, json_body={"extensions": {"persistedQuery": {"version": 1, "sha256Hash": sha(BOOK)}},
                                        "variables": variables})) == expected
    assert data(curl(gw.url, json_body={"query": BOOK, "variables": variables})) == expected
    assert data(curl(gw.url, params={"documentId": f"sha256:{sha(BOOK)}", "variables": json.dumps(variables)}, headers=PREFLIGHT)) == expected
    named = {"book": {"title": "Dune", "author": "Frank Herbert"}}
    named_result = data(curl(gw.url, json_body={"doc_id": "relay-named"}))
    assert named_result == data(curl(gw.url, json_body={"id": "relay-named"}))
    assert named_result == data(curl(gw.url, params={"doc_id": "relay-named"}, headers=PREFLIGHT))
    assert set(named_result["book"]) == set(named["book"])
    # The same document as text, reformatted and its definitions reordered, is listed too.
    reordered = "fragment T on Book {\n  title\n  author\n}\n# listed\nquery Named {\n  book(id: \"1\") { ...T }\n}\n"
    assert data(post_graphql(gw.url, reordered)) == named_result


def test_unknown_ids_unlisted_text_and_the_gql_client(gqlgate, tmp_path, strawberry_upstream):
    gw = start(gqlgate, tmp_path, "safelist: true\nlog_unknown: true")
    before = strawberry_upstream.count()
    assert_gateway_error(curl(gw.url, json_body={"documentId": "sha256:" + "0" * 64}), 404, "PERSISTED_QUERY_NOT_IN_LIST")
    assert_gateway_error(curl(gw.url, params={"doc_id": "nope"}, headers=PREFLIGHT), 404, "PERSISTED_QUERY_NOT_IN_LIST")
    assert_gateway_error(post_graphql(gw.url, "query Sneaky { books { title author } }"), 403, "QUERY_NOT_IN_SAFELIST")
    # An Apollo client's APQ registration of unlisted text is refused, and nothing is registered.
    sneaky = "{ bookCount }"
    apq = {"persistedQuery": {"version": 1, "sha256Hash": sha(sneaky)}}
    assert_gateway_error(curl(gw.url, json_body={"query": sneaky, "extensions": apq}), 403, "QUERY_NOT_IN_SAFELIST")
    assert_gateway_error(curl(gw.url, json_body={"extensions": apq}), 200, "PERSISTED_QUERY_NOT_FOUND")
    assert strawberry_upstream.count() == before

    client = Client(transport=RequestsHTTPTransport(url=gw.url, timeout=10))
    assert client.execute(GraphQLRequest(BOOK, variable_values={"id": "3"})) == {"book": {"title": "Kindred"}}
    with pytest.raises(TransportQueryError) as refused:
        client.execute(GraphQLRequest("query Other { bookCount }"))
    assert refused.value.errors[0]["extensions"]["code"] == "QUERY_NOT_IN_SAFELIST"

    unknown = wait_for_record(gw.proc, operation="Sneaky")
    assert unknown["sha256"] == sha("query Sneaky { books { title author } }"), unknown
    assert "variables" not in json.dumps(unknown)
    metrics = scrape(gw)
    assert metrics['gqlgate_persisted_documents_total{outcome="id_unknown"}'] == 2
    assert metrics['gqlgate_persisted_documents_total{outcome="refused"}'] == 3
    assert metrics['gqlgate_persisted_documents_total{outcome="listed_text"}'] == 1


def test_without_the_safelist_unlisted_text_runs_and_ids_still_work(gqlgate, tmp_path):
    gw = start(gqlgate, tmp_path)
    assert data(post_graphql(gw.url, "{ bookCount }"))["bookCount"] >= 1
    assert data(curl(gw.url, json_body={"documentId": f"sha256:{sha(HELLO)}"})) == {"hello": "Hello, listed!"}


def test_require_id_refuses_text_even_listed_text(gqlgate, tmp_path):
    gw = start(gqlgate, tmp_path, "require_id: true")
    assert_gateway_error(post_graphql(gw.url, HELLO), 400, "PERSISTED_QUERY_ID_REQUIRED")
    assert data(curl(gw.url, json_body={"documentId": f"sha256:{sha(HELLO)}"})) == {"hello": "Hello, listed!"}


def test_a_mutation_by_id_over_get_is_still_405(gqlgate, tmp_path, strawberry_upstream):
    gw = start(gqlgate, tmp_path, "safelist: true")
    before = strawberry_upstream.book_count()
    r = curl(gw.url, params={"doc_id": "relay-add"}, headers=PREFLIGHT)
    assert_gateway_error(r, 405, "METHOD_NOT_ALLOWED")
    assert strawberry_upstream.book_count() == before


def test_introspection_off_refuses_schema_and_type_but_not_typename_or_a_listed_document(gqlgate, tmp_path):
    gw = start(gqlgate, tmp_path, limits="introspection: false")
    assert_gateway_error(post_graphql(gw.url, "{ __schema { types { name } } }"), 403, "INTROSPECTION_DISABLED")
    assert_gateway_error(post_graphql(gw.url, '{ __type(name: "Book") { name } }'), 403, "INTROSPECTION_DISABLED")
    assert data(post_graphql(gw.url, "{ __typename }")) == {"__typename": "Query"}
    assert data(curl(gw.url, json_body={"doc_id": "relay-tooling"})) == {"__schema": {"queryType": {"name": "Query"}}}
    assert data(post_graphql(gw.url, TOOLING)) == {"__schema": {"queryType": {"name": "Query"}}}


def test_introspection_off_without_manifests(gqlgate):
    gw = gqlgate(config="limits: {introspection: false}\n")
    assert_gateway_error(post_graphql(gw.url, "{ __schema { types { name } } }"), 403, "INTROSPECTION_DISABLED")
    assert data(post_graphql(gw.url, "{ __typename hello }"))["hello"] == "Hello, world!"
    on = gqlgate(config="limits: {introspection: true}\n")
    assert data(post_graphql(on.url, '{ __type(name: "Book") { name } }')) == {"__type": {"name": "Book"}}


def test_a_cache_hit_still_passes_the_safelist(gqlgate, tmp_path):
    gw = start(gqlgate, tmp_path, "safelist: true", extra="cache: {enabled: true, default_ttl: 1h}\n")
    listed = {"query": BOOK, "variables": {"id": "2"}}
    first = curl(gw.url, json_body=listed)
    assert data(first) and curl(gw.url, json_body=listed).header("X-Cache") == "HIT"
    by_id = curl(gw.url, json_body={"documentId": f"sha256:{sha(BOOK)}", "variables": {"id": "2"}})
    assert by_id.header("X-Cache") == "HIT" and by_id.json() == first.json()
    # The document leaves the manifest (a file change: the cached answer stays): its text is refused.
    replace(tmp_path / "apollo.json", apollo_manifest(HELLO))
    wait_until(lambda: curl(gw.url, json_body=listed).status == 403, timeout=10, what="the shorter list", alive=gw.proc)
    assert_gateway_error(curl(gw.url, json_body=listed), 403, "QUERY_NOT_IN_SAFELIST")
    assert_gateway_error(curl(gw.url, json_body={"documentId": f"sha256:{sha(BOOK)}", "variables": {"id": "2"}}),
                         404, "PERSISTED_QUERY_NOT_IN_LIST")


@pytest.mark.parametrize("subprotocol", [TRANSPORT_WS, LEGACY_WS])
def test_a_subscription_by_id_over_websocket(gqlgate, tmp_path, subprotocol):
    gw = start(gqlgate, tmp_path, "safelist: true")
    ws = initialised(gw, subprotocol)
    legacy = subprotocol == LEGACY_WS
    send(ws, {"type": "start" if legacy else "subscribe", "id": "s1",
              "payload": {"doc_id": "relay-countdown", "variables": {"from": 2}}})
    events = []
    while True:
        message = recv_type(ws, "next", "data", "complete", "error")
        if message["type"] in ("complete", "error"):
            break
        events.append(message["payload"]["data"]["countdown"])
    assert message["type"] == "complete", message
    assert events == [2, 1, 0]
    send(ws, {"type": "start" if legacy else "subscribe", "id": "s2", "payload": {"query": "subscription { ticks(intervalMs: 50) }"}})
    refused = recv_type(ws, "error")
    assert refused["id"] == "s2"
    errors = refused["payload"] if isinstance(refused["payload"], list) else refused["payload"].get("errors", [refused["payload"]])
    assert errors[0]["extensions"]["code"] == "QUERY_NOT_IN_SAFELIST", refused
    ws.close()


@pytest.mark.parametrize("accept", [SSE, MULTIPART])
def test_a_subscription_by_id_over_sse_and_multipart(gqlgate, tmp_path, accept):
    gw = start(gqlgate, tmp_path, "require_id: true")
    r = curl(gw.url, json_body={"documentId": "relay-countdown", "variables": {"from": 1}}, headers=accept)
    assert r.status == 200, str(r)
    if accept is SSE:
        results = [json.loads(d) for e, d in sse_events(r.body) if e == "next"]
    else:
        results = [p["payload"] for p in multipart_parts(r.body) if "payload" in p]
    assert [x["data"]["countdown"] for x in results] == [1, 0]
    assert_gateway_error(post_graphql(gw.url, COUNTDOWN, variables={"from": 1}, headers=accept), 400, "PERSISTED_QUERY_ID_REQUIRED")


def test_a_bad_manifest_at_start_is_a_config_error_naming_the_file_and_entry(gqlgate_bin, tmp_path):
    import subprocess
    bad = tmp_path / "bad.json"
    bad.write_text(apollo_manifest(HELLO).replace(sha(HELLO), "0" * 64))
    config = tmp_path / "c.yaml"
    config.write_text(f"persisted_documents: {{manifests: [{bad}]}}\n")
    r = subprocess.run([gqlgate_bin, "run", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9/graphql",
                        "--config", str(config)],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode != 0
    assert f"{bad}: operations[0] (id {'0' * 64}): the id is not the SHA-256 of the body" in r.stderr, r.stderr


def test_sighup_and_file_changes_reload_and_a_broken_manifest_keeps_the_old_set(gqlgate, tmp_path):
    gw = start(gqlgate, tmp_path, "safelist: true")
    relay = tmp_path / "relay.json"
    # A file change is picked up without a signal.
    replace(relay, json.dumps({**RELAY, "relay-hello": HELLO}))
    wait_until(lambda: curl(gw.url, json_body={"doc_id": "relay-hello"}).status == 200, timeout=10,
               what="the changed manifest", alive=gw.proc)
    # A broken manifest on SIGHUP keeps the running list.
    replace(relay, '{"relay-broken": "query {"}')
    gw.proc.popen.send_signal(signal.SIGHUP)
    failed = wait_for_record(gw.proc, msg="reload failed")
    assert "relay-broken" in failed["error"] and str(relay) in failed["error"], failed
    assert data(curl(gw.url, json_body={"doc_id": "relay-named"}))
    assert data(curl(gw.url, json_body={"doc_id": "relay-hello"})) == {"hello": "Hello, listed!"}


def test_the_access_line_names_the_persisted_id(gqlgate, tmp_path):
    gw = start(gqlgate, tmp_path)
    r = curl(gw.url, json_body={"doc_id": "relay-named"}, headers={"X-Request-Id": "persisted-1"})
    assert r.status == 200, str(r)
    line = wait_for_record(gw.proc, request_id="persisted-1")
    assert line["persisted_id"] == "relay-named" and line["operation_name"] == "Named", line
    assert post_graphql(gw.url, HELLO, headers={"X-Request-Id": "text-1"}).status == 200
    assert "persisted_id" not in wait_for_record(gw.proc, request_id="text-1")


def test_the_first_request_after_a_manifest_change_is_answered_from_the_new_set(gqlgate, tmp_path):
    """No request is served from a set its files no longer hold: the request that finds a file
    changed reads it before it is answered, whether the change removed or added a document."""
    gw = start(gqlgate, tmp_path, "safelist: true")
    by_id = {"query": None, "extensions": {"persistedQuery": {"version": 1, "sha256Hash": sha(BOOK)}}}
    for round in range(10):
        replace(tmp_path / "apollo.json", apollo_manifest(HELLO))
        removed = curl(gw.url, json_body={k: v for k, v in by_id.items() if v is not None} | {"variables": {"id": "3"}})
        assert "Kindred" not in removed.text and "errors" in removed.json(), f"round {round}: a removed document ran: {removed}"
        assert_gateway_error(post_graphql(gw.url, BOOK, variables={"id": "3"}), 403, "QUERY_NOT_IN_SAFELIST")
        replace(tmp_path / "apollo.json", apollo_manifest(BOOK, HELLO))
        assert data(post_graphql(gw.url, BOOK, variables={"id": "3"})) == {"book": {"title": "Kindred"}}, f"round {round}"
