"""Browser clients on the wire: CORS preflights and fields, the CSRF rule,
and WebSocket origin checks, against the Strawberry upstream, with curl and
``websockets`` speaking as a browser would (``Origin``, simple content types).
"""

from __future__ import annotations

import typing

import pytest
from websockets.exceptions import InvalidStatus

from harness import GRAPHQL_RESPONSE, assert_gateway_error, curl, get_graphql, post_graphql, wait_for_schema_learned
from test_subscriptions_ws import TICKS, initialised, open_ws, recv_type, subscribe

APP = "https://app.example.com"
EVIL = "https://evil.example.com"
CORS = f"""
cors:
  allow_origins: ["{APP}", "http://localhost:3000"]
  allow_credentials: true
  max_age: 10m
cache: {{enabled: true}}
server: {{max_body_bytes: 1KiB}}
"""


def preflight(gw: typing.Any, origin: str | None, request_headers: str | None = "content-type") -> typing.Any:
    headers = {"Access-Control-Request-Method": "POST"}
    if origin is not None:
        headers["Origin"] = origin
    if request_headers is not None:
        headers["Access-Control-Request-Headers"] = request_headers
    return curl(gw.url, method="OPTIONS", headers=headers)


def test_a_preflight_from_an_allowed_origin_is_answered_without_the_upstream(gqlgate, strawberry_upstream):
    gw = gqlgate(config=CORS)
    wait_for_schema_learned(gw)
    before = strawberry_upstream.count()
    r = preflight(gw, APP, "content-type, x-apollo-operation-name")
    assert r.status == 204, str(r)
    assert r.header("access-control-allow-origin") == APP
    assert r.header("access-control-allow-methods") == "GET, POST"
    assert r.header("access-control-allow-headers") == "content-type, x-apollo-operation-name"
    assert r.header("access-control-allow-credentials") == "true"
    assert r.header("access-control-max-age") == "600"
    assert "Origin" in r.header("vary")
    assert r.body == b""
    assert strawberry_upstream.count() == before


def test_a_preflight_from_another_origin_or_with_cors_off_gets_403(gqlgate):
    gw = gqlgate(config=CORS)
    for origin in (EVIL, "null", None):
        r = preflight(gw, origin)
        assert_gateway_error(r, 403, "ORIGIN_NOT_ALLOWED")
        assert r.header("access-control-allow-origin") is None, str(r)
    off = gqlgate()
    r = preflight(off, APP)
    assert_gateway_error(r, 403, "ORIGIN_NOT_ALLOWED")
    assert r.header("access-control-allow-origin") is None


def test_listed_allow_headers_are_answered_as_listed(gqlgate):
    gw = gqlgate(config='cors: {allow_origins: ["*"], allow_headers: [content-type, authorization]}\n')
    r = preflight(gw, EVIL, "x-anything")
    assert r.status == 204, str(r)
    assert r.header("access-control-allow-origin") == "*"
    assert r.header("access-control-allow-headers") == "content-type, authorization"
    assert r.header("access-control-allow-credentials") is None


def test_every_answer_to_an_allowed_origin_carries_the_cors_fields(gqlgate):
    gw = gqlgate(config=CORS)
    origin = {"Origin": APP}
    miss = post_graphql(gw.url, "{ hello }", headers=origin)
    hit = post_graphql(gw.url, "{ hello }", headers=origin)
    refused = post_graphql(gw.url, "{ nope }", headers=origin)  # the upstream's own validation error
    parse_error = post_graphql(gw.url, "{ hello", headers={**origin, **GRAPHQL_RESPONSE})  # answered by gqlgate
    csrf = curl(gw.url, method="POST", data='{"query":"{ hello }"}', content_type="text/plain", headers=origin)
    too_large = curl(gw.url, data="x" * 4096, content_type="application/json", headers=origin)
    assert (miss.status, miss.header("x-cache"), hit.status, hit.header("x-cache")) == (200, "MISS", 200, "HIT")
    assert_gateway_error(parse_error, 400, "GRAPHQL_PARSE_FAILED")
    assert_gateway_error(csrf, 400, "CSRF_ERROR")
    assert_gateway_error(too_large, 413, "PAYLOAD_TOO_LARGE")
    for r in (miss, hit, refused, parse_error, csrf, too_large):
        assert r.header("access-control-allow-origin") == APP, str(r)
        assert r.header("access-control-allow-credentials") == "true", str(r)
        assert r.header("access-control-expose-headers") == "x-request-id, x-cache", str(r)
        assert "Origin" in r.header("vary"), str(r)
        assert len(r.header_values("access-control-allow-origin")) == 1, str(r)


def test_answers_to_another_origin_carry_no_cors_fields(gqlgate):
    gw = gqlgate(config=CORS)
    for headers in ({"Origin": EVIL}, {}):
        r = post_graphql(gw.url, "{ hello }", headers=headers)
        assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, str(r)
        assert not [name for name, _ in r.headers if name.lower().startswith("access-control-")], str(r)
        assert r.header("vary") == "Origin", str(r)


def test_a_wildcard_answers_star(gqlgate):
    gw = gqlgate(config='cors: {allow_origins: ["*"], expose_headers: []}\n')
    r = post_graphql(gw.url, "{ hello }", headers={"Origin": EVIL})
    assert r.status == 200 and r.header("access-control-allow-origin") == "*", str(r)
    assert r.header("access-control-expose-headers") is None
    assert r.header("access-control-allow-credentials") is None


# ---------------------------------------------------------------------------
# CSRF


@pytest.mark.parametrize("content_type", [None, "text/plain", "text/plain;charset=UTF-8", "multipart/form-data; boundary=x",
                                          "application/x-www-form-urlencoded", "TEXT/Plain"])
def test_a_simple_post_without_a_required_header_gets_csrf_error_and_never_runs(gqlgate, strawberry_upstream, content_type):
    gw = gqlgate()
    before = strawberry_upstream.count()
    r = curl(gw.url, data='{"query":"mutation { addBook(title: \\"csrf\\", author: \\"x\\") { title } }"}', content_type=content_type)
    assert_gateway_error(r, 400, "CSRF_ERROR")
    assert strawberry_upstream.count() == before


def test_a_plain_get_gets_csrf_error_and_a_required_header_lets_it_through(gqlgate):
    gw = gqlgate(config="cache: {enabled: true}\n")
    assert_gateway_error(curl(gw.url, params={"query": "{ hello }"}), 400, "CSRF_ERROR")
    for name in ("X-APOLLO-OPERATION-NAME", "apollo-require-preflight"):
        r = curl(gw.url, params={"query": "{ hello }"}, headers={name: "x"})
        assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, str(r)
    # A cache hit is refused the same way.
    assert_gateway_error(curl(gw.url, params={"query": "{ hello }"}), 400, "CSRF_ERROR")


def test_a_required_header_lets_a_simple_content_type_reach_its_own_check(gqlgate):
    gw = gqlgate()
    r = curl(gw.url, data='{"query":"{ hello }"}', content_type="text/plain", headers={"Apollo-Require-Preflight": "true"})
    assert_gateway_error(r, 415, "UNSUPPORTED_MEDIA_TYPE")


def test_json_posts_need_no_header_and_csrf_can_be_turned_off(gqlgate):
    assert post_graphql(gqlgate().url, "{ hello }").status == 200
    gw = gqlgate(config="csrf: {enabled: false}\n")
    r = curl(gw.url, params={"query": "{ hello }"})
    assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, str(r)


def test_configured_required_headers_replace_the_defaults(gqlgate):
    gw = gqlgate(config="csrf: {required_headers: [x-requested-with]}\n")
    assert get_graphql(gw.url, "{ hello }", headers={"X-Requested-With": "XMLHttpRequest"}).status == 200
    assert_gateway_error(curl(gw.url, params={"query": "{ hello }"}, headers={"Apollo-Require-Preflight": "1"}), 400, "CSRF_ERROR")


# ---------------------------------------------------------------------------
# WebSocket origins


def test_a_websocket_from_another_origin_is_refused_with_403(gqlgate):
    gw = gqlgate(config=CORS)
    with pytest.raises(InvalidStatus) as refused:
        open_ws(gw, headers={"Origin": EVIL})
    assert refused.value.response.status_code == 403
    assert b"ORIGIN_NOT_ALLOWED" in refused.value.response.body


@pytest.mark.parametrize("origin", [APP, None])
def test_a_websocket_from_an_allowed_origin_or_none_subscribes(gqlgate, origin):
    gw = gqlgate(config=CORS)
    with initialised(gw, headers={"Origin": origin} if origin else None) as ws:
        subscribe(ws, "1", TICKS)
        assert recv_type(ws, "next")["payload"]["data"]


def test_websocket_origins_are_not_checked_without_cors(gqlgate):
    gw = gqlgate()
    with initialised(gw, headers={"Origin": EVIL}) as ws:
        subscribe(ws, "1", TICKS)
        assert recv_type(ws, "next")["payload"]["data"]
