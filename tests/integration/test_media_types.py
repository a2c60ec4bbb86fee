"""GraphQL over HTTP media types: the answer's is negotiated from Accept, gqlgate's own answers follow
its status rules, and an upstream answer in the other media type is translated (same bytes, the
client's Content-Type, the status its media type prescribes)."""

from __future__ import annotations

import http.server
import json
import threading
import typing

import pytest

from harness import GRAPHQL_RESPONSE, PREFLIGHT, assert_gateway_error, curl, get_graphql, post_graphql

MODERN = "application/graphql-response+json; charset=utf-8"
LEGACY = "application/json; charset=utf-8"
JSON = {"Accept": "application/json"}
NO_ACCEPT = {"Accept": ""}  # curl sends none


@pytest.fixture
def upstream_untouched(strawberry_upstream):
    before = strawberry_upstream.count("/graphql")
    yield
    assert strawberry_upstream.count("/graphql") == before, "a gateway-made answer reached the upstream"


# ---------------------------------------------------------------------------
# Negotiation


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        ("application/graphql-response+json", MODERN),
        ("application/json", "application/json"),  # the upstream's own answer, unchanged
        ("", MODERN),  # no Accept: the spec's type
        ("*/*", "application/json"),  # a generic client: the legacy type
        ("application/graphql-response+json, application/json;q=0.9", MODERN),
        ("application/json;q=1, application/graphql-response+json;q=0.5", "application/json"),
        ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "application/json"),
    ],
    ids=["graphql-response+json", "json", "none", "any", "both", "json-preferred", "browser"],
)
def test_the_answer_is_in_the_media_type_accept_asks_for(gateway, strawberry_upstream, accept, content_type):
    direct = post_graphql(strawberry_upstream.url, "{ hello }", headers=JSON)
    assert direct.header("Content-Type") == "application/json", str(direct)  # the upstream speaks application/json only
    r = post_graphql(gateway.url, "{ hello }", headers={"Accept": accept})
    assert r.status == 200, str(r)
    assert r.header("Content-Type") == content_type, str(r)
    assert r.body == direct.body, str(r)


@pytest.mark.parametrize("accept", ["text/html", "application/xml, text/plain;q=0.5", "application/json;q=0", "*/*;q=0"])
def test_an_accept_that_admits_no_graphql_media_type_is_406(gateway, upstream_untouched, accept):
    r = post_graphql(gateway.url, "{ hello }", headers={"Accept": accept})
    assert_gateway_error(r, 406, "NOT_ACCEPTABLE")
    assert r.header("Content-Type") == MODERN, str(r)


# ---------------------------------------------------------------------------
# gqlgate's own answers


@pytest.mark.parametrize(
    ("headers", "content_type", "status"),
    [(GRAPHQL_RESPONSE, MODERN, 400), (NO_ACCEPT, MODERN, 400), (JSON, LEGACY, 200), ({"Accept": "*/*"}, LEGACY, 200)],
    ids=["graphql-response+json", "none", "json", "any"],
)
@pytest.mark.parametrize(
    ("send", "code"),
    [
        (lambda url, h: post_graphql(url, "{ hello", headers=h), "GRAPHQL_PARSE_FAILED"),
        (lambda url, h: get_graphql(url, "{ hello } }", headers=h), "GRAPHQL_PARSE_FAILED"),
        (lambda url, h: post_graphql(url, "query A { hello } query B { hello }", headers=h), "BAD_REQUEST"),
        (lambda url, h: post_graphql(url, "query A { hello }", operation_name="B", headers=h), "BAD_REQUEST"),
        (lambda url, h: post_graphql(url, "{ " + "a { " * 20 + "b" + " }" * 21, headers=h), "QUERY_TOO_COMPLEX"),
    ],
    ids=["syntax-post", "syntax-get", "no-operation-named", "unknown-operation", "too-deep"],
)
def test_graphql_request_errors_are_200_only_in_application_json(gateway, upstream_untouched, send, code, headers, content_type, status):
    r = send(gateway.url, headers)
    body = assert_gateway_error(r, status, code)
    assert r.header("Content-Type") == content_type, str(r)
    assert "data" not in body, str(r)


@pytest.mark.parametrize("headers", [GRAPHQL_RESPONSE, JSON, NO_ACCEPT], ids=["graphql-response+json", "json", "none"])
def test_other_refusals_keep_their_status_in_every_media_type(gateway, upstream_untouched, headers):
    content_type = LEGACY if headers is JSON else MODERN
    refusals = [
        (curl(gateway.url, data=b'{"query": ', headers=headers), 400, "BAD_REQUEST"),
        (curl(gateway.url, json_body={"qeury": "{ hello }"}, headers=headers), 400, "BAD_REQUEST"),
        (get_graphql(gateway.url, 'mutation { addBook(title: "x", author: "y") { id } }', headers=headers), 405, "METHOD_NOT_ALLOWED"),
        (post_graphql(gateway.url, "subscription { countdown(from: 1) }", headers=headers), 400, "SUBSCRIPTION_TRANSPORT_REQUIRED"),
        (curl(gateway.url, data=b'{"query": "{ hello }"}', content_type="application/xml", headers={**headers, **PREFLIGHT}),
         415, "UNSUPPORTED_MEDIA_TYPE"),
        (curl(gateway.url, data=b'{"query": "{ hello }"}', content_type="text/plain", headers=headers), 400, "CSRF_ERROR"),
        (curl(gateway.path("/nope"), headers=headers), 404, "NOT_FOUND"),
    ]
    for r, status, code in refusals:
        assert_gateway_error(r, status, code)
        assert r.header("Content-Type") == content_type, str(r)


# ---------------------------------------------------------------------------
# Upstream answers in the other media type


def test_an_application_json_answer_without_data_is_400_for_graphql_response_json(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/status/200"))  # 200 application/json {"errors":[...]}, no data
    direct = curl(strawberry_upstream.path("/status/200"), json_body={"query": "{ hello }"})
    for headers in (GRAPHQL_RESPONSE, NO_ACCEPT):
        r = post_graphql(gw.url, "{ hello }", headers=headers)
        assert (r.status, r.header("Content-Type")) == (400, MODERN), str(r)
        assert r.body == direct.body and r.header("X-Upstream-Marker") == "yes", str(r)
    legacy = post_graphql(gw.url, "{ hello }", headers=JSON)
    assert (legacy.status, legacy.header("Content-Type"), legacy.body) == (200, "application/json", direct.body), str(legacy)


def test_an_upstream_error_status_stays(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/status/401"))
    for headers, content_type in ((GRAPHQL_RESPONSE, MODERN), (JSON, "application/json")):
        r = post_graphql(gw.url, "{ hello }", headers=headers)
        assert (r.status, r.header("Content-Type")) == (401, content_type), str(r)


def test_application_json_gets_the_upstreams_graphql_errors_with_200(gateway):
    """Strawberry answers a validation error with 200 and "data": null: a GraphQL response with a data entry."""
    for headers, content_type in ((JSON, "application/json"), (GRAPHQL_RESPONSE, MODERN)):
        r = post_graphql(gateway.url, "{ nope }", headers=headers)
        assert (r.status, r.header("Content-Type")) == (200, content_type), str(r)
        assert r.json()["data"] is None and r.json()["errors"], str(r)


class ModernUpstream:
    """An upstream that speaks application/graphql-response+json only: `{ ok }` is 200 with data,
    anything else 400 without (a validation error), `{ busy }` 503."""

    def __init__(self) -> None:
        self.accepts: list[str] = []
        upstream = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                query = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0")))).get("query", "")
                upstream.accepts.append(self.headers.get("Accept", ""))
                if "busy" in query:
                    self.answer(503, {"errors": [{"message": "busy"}]})
                elif "ok" in query:
                    self.answer(200, {"data": {"ok": True}})
                else:
                    self.answer(400, {"errors": [{"message": "Cannot query field", "locations": [{"line": 1, "column": 3}]}]})

            def answer(self, status: int, document: typing.Any) -> None:
                body = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/graphql-response+json; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: typing.Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/graphql"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def modern_upstream() -> typing.Iterator[ModernUpstream]:
    upstream = ModernUpstream()
    yield upstream
    upstream.close()


def test_a_graphql_response_json_answer_is_translated_for_application_json(gqlgate, modern_upstream):
    gw = gqlgate(modern_upstream.url, config="retry:\n  max_attempts: 1\n")
    refused = post_graphql(gw.url, "{ nope }", headers=JSON)
    assert (refused.status, refused.header("Content-Type")) == (200, LEGACY), str(refused)
    assert refused.json()["errors"][0]["locations"] == [{"line": 1, "column": 3}], str(refused)
    ok = post_graphql(gw.url, "{ ok }", headers=JSON)
    assert (ok.status, ok.header("Content-Type"), ok.json()) == (200, LEGACY, {"data": {"ok": True}}), str(ok)
    busy = post_graphql(gw.url, "{ busy }", headers=JSON)
    assert (busy.status, busy.header("Content-Type")) == (503, LEGACY), str(busy)
    for headers in (GRAPHQL_RESPONSE, NO_ACCEPT):
        same = post_graphql(gw.url, "{ nope }", headers=headers)
        assert (same.status, same.header("Content-Type")) == (400, MODERN), str(same)


# ---------------------------------------------------------------------------
# What the upstream is asked for, and answers shared between media types

GATEWAY_ACCEPT = "application/graphql-response+json, application/json;q=0.9"


def test_the_upstream_is_asked_for_either_media_type_unless_the_client_names_multipart(gqlgate, modern_upstream):
    gw = gqlgate(modern_upstream.url)
    for accept in ("application/json", "application/graphql-response+json", "*/*", ""):
        assert post_graphql(gw.url, "{ ok }", headers={"Accept": accept}).status == 200
    assert modern_upstream.accepts[-4:] == [GATEWAY_ACCEPT] * 4
    incremental = "multipart/mixed;deferSpec=20220824, application/json"
    assert post_graphql(gw.url, "{ ok }", headers={"Accept": incremental}).status == 200
    assert modern_upstream.accepts[-1] == incremental


CACHE = "cache:\n  enabled: true\n  default_ttl: 60s\n"


@pytest.mark.parametrize("upstream", ["application/json", "application/graphql-response+json"])
def test_a_cached_answer_is_served_in_the_media_type_of_the_client_that_hits_it(gqlgate, strawberry_upstream, modern_upstream, upstream):
    gw = gqlgate(strawberry_upstream.url if upstream == "application/json" else modern_upstream.url, config=CACHE)
    query = '{ hello(name: "media") }' if upstream == "application/json" else "{ ok }"
    first = post_graphql(gw.url, query, headers=JSON)
    assert (first.status, first.header("X-Cache")) == (200, "MISS"), str(first)
    for headers, content_type in ((GRAPHQL_RESPONSE, MODERN), (NO_ACCEPT, MODERN), (JSON, LEGACY), ({"Accept": "*/*"}, LEGACY)):
        hit = post_graphql(gw.url, query, headers=headers)
        assert (hit.status, hit.header("X-Cache"), hit.body) == (200, "HIT", first.body), str(hit)
        if content_type != upstream + "; charset=utf-8":
            assert hit.header("Content-Type") == content_type, str(hit)
        else:
            assert hit.header("Content-Type").split(";")[0] == upstream, str(hit)
