"""Hostile documents: no nesting crashes or stalls gqlgate, and SIGTERM always exits.

Nesting of ``{ ( [`` past 256 levels is refused before parsing (400
QUERY_TOO_COMPLEX) over HTTP and WebSocket alike; documents within the bound
are analysed in time linear in their size, however their values nest, and
forwarded as usual.
"""

from __future__ import annotations

import signal

import pytest

from harness import GRAPHQL_RESPONSE, assert_gateway_error, curl, get_graphql, post_graphql
from test_ops import Background, start_slow_request, wait_for_exit
from test_subscriptions_ws import LEGACY_WS, TRANSPORT_WS, initialised, recv_type, subscribe


def nested_fields(levels: int) -> str:
    """``{a{a{…b}}}``: the issue's crash, 3,500 levels in 10.5 KB."""
    return "{" + "a{" * levels + "b" + "}" * levels + "}"


def nested_inline_fragments(levels: int) -> str:
    return "{" + "... on Query {" * levels + "hello" + "}" * levels + "}"


def nested_object_argument(levels: int) -> str:
    """The issue's freeze: a 186-byte query whose printing was exponential."""
    return "{ hello(name: " + "{a: " * levels + "1" + "}" * levels + ") }"


def nested_list_argument(levels: int) -> str:
    return "{ hello(name: " + "[" * levels + "1" + "]" * levels + ") }"


# Past the bound: refused before parsing.
TOO_DEEP = {
    "fields-3500": nested_fields(3500),
    "inline-fragments-2500": nested_inline_fragments(2500),
    "lists-300": nested_list_argument(300),
    "fields-257": nested_fields(256),
}

# Within the bound: what froze the loop before; now forwarded at once. The
# upstream answers them itself (hello takes a string, so a validation error).
WITHIN_BOUND = {
    "object-argument-30": nested_object_argument(30),
    "list-argument-60": nested_list_argument(60),
}


def assert_still_serving(gw) -> None:
    r = post_graphql(gw.url, "{ hello }")
    assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, str(r)


def assert_upstream_answer(r) -> None:
    """The upstream's own answer: it parsed the value and refused it (hello takes a string)."""
    assert r.status == 200, str(r)
    assert "cannot represent a non string value" in r.json()["errors"][0]["message"], str(r)


@pytest.mark.parametrize("kind", list(TOO_DEEP))
def test_nesting_past_the_bound_is_refused_over_post(gateway, kind):
    r = post_graphql(gateway.url, TOO_DEEP[kind], headers=GRAPHQL_RESPONSE, timeout=10)
    assert_gateway_error(r, 400, "QUERY_TOO_COMPLEX")
    assert_still_serving(gateway)


@pytest.mark.parametrize("query", ['{"\\\\\\ua\\', '{ hello(name: "\\u12', '{ hello(name: "\\', '{ hello(name: """\\'])
def test_a_string_left_open_at_the_end_is_a_syntax_error(gateway, query):
    """GraphQLSwift's lexer read past such an escape and trapped (found by the DocumentAnalysis fuzzer)."""
    r = post_graphql(gateway.url, query, headers=GRAPHQL_RESPONSE, timeout=10)
    assert_gateway_error(r, 400, "GRAPHQL_PARSE_FAILED")
    assert_still_serving(gateway)


def test_nesting_past_the_bound_is_refused_over_get(gateway):
    r = get_graphql(gateway.url, nested_fields(300), headers=GRAPHQL_RESPONSE, timeout=10)
    assert_gateway_error(r, 400, "QUERY_TOO_COMPLEX")
    assert_still_serving(gateway)


def test_fields_nested_to_the_bound_are_parsed_and_meet_max_depth(gateway):
    """256 levels pass the nesting bound; limits.max_depth (15) then refuses them, after parsing."""
    r = post_graphql(gateway.url, nested_fields(255), headers=GRAPHQL_RESPONSE, timeout=10)
    body = assert_gateway_error(r, 400, "QUERY_TOO_COMPLEX")
    assert "256 levels deep; limits.max_depth allows 15" in body["errors"][0]["message"], str(r)
    assert_still_serving(gateway)


@pytest.mark.parametrize("kind", list(WITHIN_BOUND))
def test_nested_values_within_the_bound_are_answered_at_once(gqlgate, kind):
    # The cache and dedupe compute the canonical form and the typename rewrite.
    gw = gqlgate(config="cache: {enabled: true}\ndedupe: {enabled: true}\n")
    for r in (post_graphql(gw.url, WITHIN_BOUND[kind], timeout=10), get_graphql(gw.url, WITHIN_BOUND[kind], timeout=10)):
        assert_upstream_answer(r)
    assert_still_serving(gw)


def test_a_block_string_of_12000_lines_is_answered_with_its_value(gateway, gqlgate):
    """GraphQLSwift's lexer reads block strings in time quadratic in their lines; gqlgate does not."""
    query = '{ hello(name: """\n' + "  x\n" * 12_000 + '""") }'
    for gw in (gateway, gqlgate(config="cache: {enabled: true}\n")):
        r = post_graphql(gw.url, query, timeout=10)
        assert r.status == 200 and r.json() == {"data": {"hello": "Hello, " + "\n".join(["x"] * 12_000) + "!"}}, str(r)[:500]


def ws_error_codes(message: dict) -> list[str]:
    payload = message["payload"]
    errors = payload if isinstance(payload, list) else [payload]
    return [e.get("extensions", {}).get("code") for e in errors]


@pytest.mark.parametrize("subprotocol", [TRANSPORT_WS, LEGACY_WS])
def test_nesting_past_the_bound_is_refused_over_websocket(gateway, subprotocol):
    legacy = subprotocol == LEGACY_WS
    with initialised(gateway, subprotocol) as ws:
        for n, query in enumerate([nested_fields(3500), nested_inline_fragments(2500), "subscription " + nested_fields(300)]):
            subscribe(ws, f"deep{n}", query, legacy=legacy)
            error = recv_type(ws, "error")
            assert error["id"] == f"deep{n}" and ws_error_codes(error) == ["QUERY_TOO_COMPLEX"], error
        subscribe(ws, "values", nested_object_argument(30), legacy=legacy)
        answer = recv_type(ws, "next", "data")
        assert answer["id"] == "values" and "non string value" in answer["payload"]["errors"][0]["message"], answer
        assert recv_type(ws, "complete")["id"] == "values"
        subscribe(ws, "ok", "subscription { countdown(from: 1) }", legacy=legacy)
        event = recv_type(ws, "next", "data")
        assert event["id"] == "ok" and event["payload"] == {"data": {"countdown": 1}}, event
    assert_still_serving(gateway)


def test_sigterm_exits_within_drain_timeout_plus_5s_with_hostile_requests_in_flight(gqlgate, strawberry_upstream):
    gw = gqlgate(config="server: {drain_timeout: 1s}\ncache: {enabled: true}\n")
    slow = start_slow_request(gw, strawberry_upstream, 10)
    hostile = [
        Background(lambda q=q: curl(gw.url, json_body={"query": q}, timeout=10))
        for q in [*TOO_DEEP.values(), *WITHIN_BOUND.values()] * 3
    ]
    gw.proc.popen.send_signal(signal.SIGTERM)
    assert wait_for_exit(gw.proc, timeout=1 + 5) == 0, gw.proc.describe()
    assert_gateway_error(slow.result(timeout=5), 503, "SHUTTING_DOWN")
    for pending in hostile:
        try:
            r = pending.result(timeout=5)
        except Exception:  # noqa: BLE001 - sent after the listening socket closed
            continue
        assert r.status in (200, 400, 503), str(r)
