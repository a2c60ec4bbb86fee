"""Every bad request gets the contract's status and GraphQL error, and the gateway keeps serving."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import pytest

from harness import GRAPHQL_RESPONSE, PREFLIGHT, assert_gateway_error, curl, get_graphql, post_graphql

ADD_BOOK = 'mutation AddBook { addBook(title: "%s", author: "GET") { id } }'


@pytest.fixture
def upstream_untouched(strawberry_upstream):
    """Fails the test if the upstream's /graphql got any request while it ran."""
    before = strawberry_upstream.count("/graphql")
    yield
    after = strawberry_upstream.count("/graphql")
    assert after == before, f"a gateway-made error reached the upstream ({after - before} request(s))"


# ---------------------------------------------------------------------------
# 400 BAD_REQUEST

BAD_POST_BODIES = {
    "not-json": b'{"query": ',
    "plain-words": b"hello there",
    "empty-body": b"",
    "truncated-object": b'{"query":"{ hello }"',
    "invalid-utf8": b'{"query":"{ hello \xff\xfe }"}',
    "query-number": b'{"query": 42}',
    "query-list": b'{"query": ["{ hello }"]}',
    "query-object": b'{"query": {"text": "{ hello }"}}',
    "variables-string": b'{"query": "{ hello }", "variables": "{}"}',
    "variables-list": b'{"query": "{ hello }", "variables": [1]}',
    "operation-name-number": b'{"query": "{ hello }", "operationName": 1}',
    "extensions-string": b'{"query": "{ hello }", "extensions": "x"}',
    "missing-query": b"{}",
    "query-null": b'{"query": null}',
    "only-variables": b'{"variables": {"a": 1}}',
    "array-body": b'[{"query": "{ hello }"}]',
    "empty-array": b"[]",
    "string-body": b'"{ hello }"',
    "number-body": b"42",
    "null-body": b"null",
}


@pytest.mark.parametrize("kind", list(BAD_POST_BODIES))
def test_bad_post_body_is_400_bad_request(gateway, upstream_untouched, kind):
    r = curl(gateway.url, data=BAD_POST_BODIES[kind])
    assert_gateway_error(r, 400, "BAD_REQUEST")


BAD_GET_PARAMS = {
    "no-query": {},
    "empty-query": {"query": ""},
    "variables-not-json": {"query": "{ hello }", "variables": "{"},
    "variables-list": {"query": "{ hello }", "variables": "[1]"},
    "extensions-not-json": {"query": "{ hello }", "extensions": "nope"},
}


@pytest.mark.parametrize("kind", list(BAD_GET_PARAMS))
def test_bad_get_is_400_bad_request(gateway, upstream_untouched, kind):
    r = curl(gateway.url, params=BAD_GET_PARAMS[kind], headers=PREFLIGHT)
    assert_gateway_error(r, 400, "BAD_REQUEST")


# ---------------------------------------------------------------------------
# 400 GRAPHQL_PARSE_FAILED

SYNTAX_ERRORS = ["{ hello ", "{ hello } }", "{ hello(name: ) }", 'query { hello(name: "unterminated) }', "}{", "quer { hello }"]


@pytest.mark.parametrize("query", SYNTAX_ERRORS)
def test_syntax_error_post(gateway, upstream_untouched, query):
    assert_gateway_error(post_graphql(gateway.url, query, headers=GRAPHQL_RESPONSE), 400, "GRAPHQL_PARSE_FAILED")


@pytest.mark.parametrize("query", SYNTAX_ERRORS[:2])
def test_syntax_error_get(gateway, upstream_untouched, query):
    assert_gateway_error(get_graphql(gateway.url, query, headers=GRAPHQL_RESPONSE), 400, "GRAPHQL_PARSE_FAILED")


@pytest.mark.parametrize(
    ("query", "line", "column"),
    [
        ("{ hero {", 1, 9),  # ends early: the place right after the client's last character
        ("query Hero {\n  hero {\n    name\n", 4, 1),
        ("query Hero {\r\n  hero(id: ) {\r\n    name\r\n  }\r\n}", 2, 12),
        ('{ hello(name: "Łódź 🚀") } }', 1, 27),  # columns count characters, not bytes
    ],
    ids=["one-line-ends-early", "multi-line-ends-early", "multi-line-crlf", "non-ascii"],
)
def test_syntax_error_is_located_in_the_clients_text(gateway, upstream_untouched, query, line, column):
    r = post_graphql(gateway.url, query, headers={"Accept": "application/graphql-response+json"})
    body = assert_gateway_error(r, 400, "GRAPHQL_PARSE_FAILED")
    error = body["errors"][0]
    assert error["locations"] == [{"line": line, "column": column}], str(r)
    assert error["message"].startswith("Syntax Error: ") and "\n" not in error["message"], str(r)


# ---------------------------------------------------------------------------
# 405 METHOD_NOT_ALLOWED


def test_mutation_over_get_is_405_and_does_not_run(gateway, strawberry_upstream, upstream_untouched):
    before = strawberry_upstream.book_count()
    r = get_graphql(gateway.url, ADD_BOOK % uuid.uuid4())
    assert_gateway_error(r, 405, "METHOD_NOT_ALLOWED")
    allow = [m.strip().upper() for m in (r.header("Allow") or "").split(",")]
    assert "POST" in allow, f"405 without 'Allow: POST':\n{r}"
    assert strawberry_upstream.book_count() == before, "the mutation ran"


def test_mutation_chosen_by_operation_name_over_get_is_405(gateway, strawberry_upstream, upstream_untouched):
    before = strawberry_upstream.book_count()
    doc = "query Count { bookCount } " + ADD_BOOK % uuid.uuid4()
    r = get_graphql(gateway.url, doc, operation_name="AddBook")
    assert_gateway_error(r, 405, "METHOD_NOT_ALLOWED")
    assert "POST" in (r.header("Allow") or "").upper(), str(r)
    assert strawberry_upstream.book_count() == before, "the mutation ran"


def test_query_chosen_next_to_a_mutation_over_get_works(gateway, strawberry_upstream):
    before = strawberry_upstream.book_count()
    doc = "query Count { bookCount } " + ADD_BOOK % uuid.uuid4()
    r = get_graphql(gateway.url, doc, operation_name="Count")
    assert r.status == 200, str(r)
    assert r.json() == {"data": {"bookCount": before}}
    assert strawberry_upstream.book_count() == before


# ---------------------------------------------------------------------------
# 400 SUBSCRIPTION_TRANSPORT_REQUIRED


def test_subscription_over_post_needs_another_transport(gateway, upstream_untouched):
    r = post_graphql(gateway.url, "subscription { countdown(from: 2) }", headers={"Accept": "application/json"})
    assert_gateway_error(r, 400, "SUBSCRIPTION_TRANSPORT_REQUIRED")


def test_subscription_over_get_needs_another_transport(gateway, upstream_untouched):
    r = get_graphql(gateway.url, "subscription Count { countdown(from: 2) }", headers={"Accept": "application/json"})
    assert_gateway_error(r, 400, "SUBSCRIPTION_TRANSPORT_REQUIRED")


# ---------------------------------------------------------------------------
# 415 UNSUPPORTED_MEDIA_TYPE


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "application/xml"])
def test_unsupported_content_type_is_415(gateway, upstream_untouched, ctype):
    # PREFLIGHT: without it the CSRF rule refuses text/plain and form posts first (test_browsers.py).
    r = curl(gateway.url, data=json.dumps({"query": "{ hello }"}), content_type=ctype, headers=PREFLIGHT)
    assert_gateway_error(r, 415, "UNSUPPORTED_MEDIA_TYPE")


def test_post_without_content_type_is_rejected(gateway, upstream_untouched):
    assert_gateway_error(curl(gateway.url, data=json.dumps({"query": "{ hello }"}), content_type=None), 400, "CSRF_ERROR")
    r = curl(gateway.url, data=json.dumps({"query": "{ hello }"}), content_type=None, headers=PREFLIGHT)
    assert r.status in (400, 415), str(r)
    assert_gateway_error(r, r.status, "BAD_REQUEST" if r.status == 400 else "UNSUPPORTED_MEDIA_TYPE")


# ---------------------------------------------------------------------------
# 413 PAYLOAD_TOO_LARGE


def _body_of_size(size: int) -> bytes:
    """A valid GraphQL POST body of exactly ``size`` bytes (padded with ignored whitespace)."""
    head, tail = b'{"query": "{ hello }"', b"}"
    pad = size - len(head) - len(tail)
    assert pad >= 0
    body = head + b" " * pad + tail
    assert len(body) == size
    return body


@pytest.fixture
def small_body_gateway(gqlgate):
    return gqlgate(config="server:\n  max_body_bytes: 1KiB\n")


def test_body_at_limit_is_accepted(small_body_gateway):
    r = curl(small_body_gateway.url, data=_body_of_size(1024))
    assert r.status == 200, str(r)
    assert r.json() == {"data": {"hello": "Hello, world!"}}


@pytest.mark.parametrize("size", [1025, 64 * 1024])
def test_body_over_limit_is_413(small_body_gateway, strawberry_upstream, size):
    before = strawberry_upstream.count("/graphql")
    r = curl(small_body_gateway.url, data=_body_of_size(size))
    assert_gateway_error(r, 413, "PAYLOAD_TOO_LARGE")
    assert strawberry_upstream.count("/graphql") == before
    # Still serving.
    ok = post_graphql(small_body_gateway.url, "{ hello }")
    assert ok.status == 200, str(ok)


def test_default_limit_accepts_a_large_query(gateway):
    """The default max_body_bytes is 1MiB: a 200 KiB body is fine."""
    r = curl(gateway.url, data=_body_of_size(200 * 1024))
    assert r.status == 200, str(r)


# ---------------------------------------------------------------------------
# 431: header fields past server.max_header_bytes


@pytest.mark.parametrize("limit, fits, refused", [("8KiB", 5 * 1024, 9 * 1024), ("32KiB", 20 * 1024, 34 * 1024)])
def test_header_fields_past_max_header_bytes_get_431(gqlgate, limit, fits, refused):
    gw = gqlgate(config=f"server:\n  max_header_bytes: {limit}\n")
    ok = post_graphql(gw.url, "{ hello }", headers={"X-Trace-Context": "t" * fits})
    assert ok.status == 200, str(ok)
    too_large = post_graphql(gw.url, "{ hello }", headers={"X-Trace-Context": "t" * (refused // 2), "X-Other": "o" * (refused // 2)})
    assert too_large.status == 431, str(too_large)
    # Still serving.
    again = post_graphql(gw.url, "{ hello }")
    assert again.status == 200, str(again)


# ---------------------------------------------------------------------------
# 400 BAD_REQUEST: operation selection

TWO_OPS = "query A { hello } query B { bookCount }"


@pytest.mark.parametrize("method", ["POST", "GET"])
def test_unknown_operation_name(gateway, upstream_untouched, method):
    send = post_graphql if method == "POST" else get_graphql
    assert_gateway_error(send(gateway.url, TWO_OPS, operation_name="C", headers=GRAPHQL_RESPONSE), 400, "BAD_REQUEST")


@pytest.mark.parametrize("method", ["POST", "GET"])
def test_unknown_operation_name_single_operation(gateway, upstream_untouched, method):
    send = post_graphql if method == "POST" else get_graphql
    r = send(gateway.url, "query A { hello }", operation_name="Z", headers=GRAPHQL_RESPONSE)
    assert_gateway_error(r, 400, "BAD_REQUEST")


@pytest.mark.parametrize("method", ["POST", "GET"])
def test_several_operations_none_named(gateway, upstream_untouched, method):
    send = post_graphql if method == "POST" else get_graphql
    assert_gateway_error(send(gateway.url, TWO_OPS, headers=GRAPHQL_RESPONSE), 400, "BAD_REQUEST")


# ---------------------------------------------------------------------------
# A thousand bad requests in a row

# (name, content type, body, expected status)
MALFORMED_KINDS: list[tuple[str, str, bytes, int]] = [
    ("not-json", "application/json", b'{"query": ', 400),
    ("words", "application/json", b"not json at all", 400),
    ("query-number", "application/json", b'{"query": 1}', 400),
    ("array", "application/json", b'[{"query": "{ hello }"}]', 400),
    ("missing-query", "application/json", b'{"variables": {}}', 400),
    ("syntax", "application/json", b'{"query": "{ hello "}', 400),
    ("unterminated-string", "application/json", b'{"query": "{ hello(name: \\"x) }"}', 400),
    ("text-plain", "text/plain", b'{"query": "{ hello }"}', 400),  # CSRF_ERROR
    ("binary", "application/json", bytes(range(256)) * 4, 400),
    ("deep-json", "application/json", b"[" * 5000 + b"]" * 5000, 400),
    ("deep-graphql", "application/json", b'{"query": "' + b"{" * 3000 + b'"}', 400),
    ("empty", "application/json", b"", 400),
    ("variables-string", "application/json", b'{"query": "{ hello }", "variables": "x"}', 400),
    ("subscription", "application/json", b'{"query": "subscription { countdown(from: 1) }"}', 400),
]


def test_thousand_malformed_requests_then_a_good_one(gateway, tmp_path: Path):
    files = []
    for i, (name, _, body, _) in enumerate(MALFORMED_KINDS):
        f = tmp_path / f"{i}-{name}.body"
        f.write_bytes(body)
        files.append(f)

    lines = ["silent", "show-error"]
    expected = []
    for n in range(1000):
        i = n % len(MALFORMED_KINDS)
        _, ctype, _, status = MALFORMED_KINDS[i]
        if n:
            lines.append("next")
        lines += [
            f'url = "{gateway.url}"',
            f'data-binary = "@{files[i]}"',
            f'header = "Content-Type: {ctype}"',
            'header = "Expect:"',
            f'header = "Accept: {GRAPHQL_RESPONSE["Accept"]}"',
            'output = "/dev/null"',
            'write-out = "%{http_code}\\n"',
            "max-time = 10",
        ]
        expected.append(status)
    config = tmp_path / "curl.config"
    config.write_text("\n".join(lines) + "\n")

    proc = subprocess.run(["curl", "-K", str(config)], capture_output=True, text=True, timeout=300)
    got = [int(x) for x in proc.stdout.split()]
    assert proc.returncode == 0, f"curl exited {proc.returncode}: {proc.stderr[-2000:]}"
    assert len(got) == 1000
    wrong = [
        (n, MALFORMED_KINDS[n % len(MALFORMED_KINDS)][0], exp, g)
        for n, (exp, g) in enumerate(zip(expected, got))
        if exp != g
    ]
    assert not wrong, f"{len(wrong)} unexpected statuses (request, kind, expected, got), first ones: {wrong[:10]}"

    ok = post_graphql(gateway.url, "{ hello }")
    assert ok.status == 200, str(ok)
    assert ok.json() == {"data": {"hello": "Hello, world!"}}
    health = curl(gateway.path("/healthz"))
    assert health.status == 200, str(health)


# ---------------------------------------------------------------------------
# 400 QUERY_TOO_COMPLEX (limits)

LIMITS = "limits:\n  max_depth: 3\n  max_aliases: 2\n  max_document_bytes: 200\n"


def test_limits_let_operations_within_them_through(gqlgate, strawberry_upstream):
    gw = gqlgate(config=LIMITS)
    resp = post_graphql(gw.url, "query { a: hello(name: \"x\") books { id } }")
    assert resp.status == 200, str(resp)
    assert resp.json()["data"]["a"] == "Hello, x!"


@pytest.mark.parametrize(
    "query, found",
    [
        ("query { books { id title author } book(id: \"1\") { title } } ", None),
        ("query Deep { __schema { types { fields { type { name } } } } }", "5 levels deep"),
        ("query { ...F } fragment F on Query { __schema { types { fields { name } } } }", "4 levels deep"),
        ("query { a: hello b: hello c: hello }", "3 aliased fields"),
        ("query { ...F ...F } fragment F on Query { x: hello y: hello }", "4 aliased fields"),
        ("query { ...A } fragment A on Query { ...B } fragment B on Query { hello ...A }", "cycle (A → B → A)"),
        ("query Long { " + "hello " * 60 + "}", "limits.max_document_bytes allows 200"),
    ],
)
def test_limits_refuse_deep_alias_heavy_cyclic_and_long_documents(gqlgate, strawberry_upstream, query, found):
    gw = gqlgate(config=LIMITS)
    before = strawberry_upstream.count("/graphql")
    resp = post_graphql(gw.url, query, headers=GRAPHQL_RESPONSE)
    if found is None:
        assert resp.status == 200, str(resp)
        return
    message = assert_gateway_error(resp, 400, "QUERY_TOO_COMPLEX")["errors"][0]["message"]
    assert found in message, message
    assert strawberry_upstream.count("/graphql") == before, "a refused document reached the upstream"
