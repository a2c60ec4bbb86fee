"""Demand control and field usage, end to end: gqlgate with a schema file carrying the IBM cost
directives (``@cost``, ``@listSize``) in front of the Strawberry upstream, whose schema the file
matches (``test_the_schema_file_is_the_upstreams_schema``).

- ``measure``: nothing refused; the ``gqlgate_operation_cost`` histogram, ``cost`` on access lines,
  ``gqlgate.operation.cost`` on server spans, the estimates by operation name.
- ``enforce``: 400 ``COST_ESTIMATED_TOO_EXPENSIVE`` with ``extensions.cost`` over POST, GET, APQ
  hashes, SSE, multipart and both WebSocket subprotocols (the socket stays open), nothing sent
  upstream (the upstream's request and subscription counters, a mutation's side effect).
- ``expose``: ``extensions.cost {estimated, actual, max}``, actual from the answer's real lists,
  cache hits too.
- Slicing arguments from variables; ``weights`` with ``schema.source: introspection``; a reload
  (SIGHUP) and a changed schema file apply to the next estimate.
- ``clients.rate_limit.by_cost`` in memory and in a real Redis (exact token arithmetic: 1 token,
  then the rest of the cost; a bucket of 10 that refills in 1000 s a token).
- ``metrics.field_usage``: by client (also over a WebSocket, and a configured header),
  interfaces, deprecated fields, fragments once per request, 100 client names at most.
- ``check-config`` and ``run`` refuse demand control and field usage without a schema.


Every expected cost is worked out by hand beside its query, with ``list_size: 10`` unless said.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import re
import shutil
import signal
import sys
import typing
from pathlib import Path

import graphql
import pytest

from harness import (
    GRAPHQL_RESPONSE, PREFLIGHT, assert_gateway_error, curl, get_graphql, post_graphql, wait_until,
)
from otlp_receiver import OTLPReceiver, attributes
from opentelemetry.proto.trace.v1 import trace_pb2
from redis_servers import redis  # noqa: F401 (fixture)
from test_cli import run_cli
from test_ops import log_records, scrape, wait_for_record
from test_streams import MULTIPART, SSE
from test_subscriptions_ws import LEGACY_WS, TRANSPORT_WS, initialised, recv_end, recv_type, send

sys.path.insert(0, str(Path(__file__).parent))
from upstream_app import schema as upstream_schema  # noqa: E402

# The Strawberry upstream's schema with costs. Weights that are not the defaults:
# - Query.books: @listSize(assumedSize: 20); Query.search: assumedSize 4;
#   Query.characters: its argument `first` sizes it (absent: list_size).
# - Droid weighs 3 (@cost on the type), so Character and SearchResult weigh 3 (the most of their
#   object types) wherever a field returns them; Human and Book weigh 1.
# - Human.height 1 and Droid.primaryFunction 2 (scalars, 0 without @cost).
# - Query.slow 50; Mutation.addBook 100 (+ 10 for any mutation); ReviewInput.commentary 5.
# - Subscription.ticks 500.
# The file relies on gqlgate defining @cost and @listSize (it does not define them itself).
SDL = '''
type Query {
  hello(name: String = null): String
  books: [Book!]! @listSize(assumedSize: 20)
  book(id: ID!): Book
  reviews(episode: Episode!): [Review!]!
  bookCount: Int!
  slow(seconds: Float!): String @cost(weight: "50")
  fail: String
  characters(first: Int = null): [Character!]! @listSize(slicingArguments: ["first"], requireOneSlicingArgument: false)
  search(text: String!): [SearchResult!]! @listSize(assumedSize: 4)
}

type Mutation {
  addBook(title: String!, author: String!): Book! @cost(weight: "100")
  createReview(episode: Episode!, review: ReviewInput!): Review!
  updateReview(id: ID!, stars: Int!): ReviewPayload!
}

type Subscription {
  countdown(from: Int!): Int!
  ticks(intervalMs: Int! = 100): Int! @cost(weight: "500")
  bookAdded: Book!
  connectionParams: String!
}

type Book {
  id: ID!
  title: String!
  author: String!
}

interface Character {
  id: ID!
  name: String!
}

type Human implements Character {
  id: ID!
  name: String!
  height: Float! @cost(weight: "1")
  homePlanet: String @deprecated(reason: "Use the planets API")
}

type Droid implements Character @cost(weight: "3") {
  id: ID!
  name: String!
  primaryFunction: String! @cost(weight: "2")
}

union SearchResult = Book | Human | Droid

enum Episode {
  NEWHOPE
  EMPIRE
  JEDI
}

type Review {
  id: ID!
  episode: Episode!
  stars: Int!
  commentary: String
}

input ReviewInput {
  stars: Int!
  commentary: String = null @cost(weight: "5")
}

type ReviewPayload {
  review: Review!
}
'''

# The specification's definitions, for graphql-core (gqlgate implies them).
COST_DIRECTIVES = '''
directive @cost(weight: String!) on ARGUMENT_DEFINITION | ENUM | FIELD_DEFINITION | INPUT_FIELD_DEFINITION | OBJECT | SCALAR
directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], requireOneSlicingArgument: Boolean = true) on FIELD_DEFINITION
'''

# The upstream's characters, in order (never changed): Luke (Human), R2-D2 (Droid), Leia (Human), C-3PO (Droid).
CHARACTERS = 4

COST_CODE = "COST_ESTIMATED_TOO_EXPENSIVE"
# 40 × Character 3 = 120.
TOO_MANY_CHARACTERS = "{ characters(first: 40) { id } }"
CHARACTERS_BY_VARIABLE = "query Characters($n: Int) { characters(first: $n) { name } }"


def schema_config(tmp_path: Path, extra: str, sdl: str = SDL) -> str:
    path = tmp_path / "schema.graphql"
    path.write_text(sdl)
    return f"schema: {{source: file, file: {json.dumps(str(path))}}}\n" + extra


def cost(resp) -> dict:
    """An answer's ``extensions.cost``."""
    assert resp.status == 200, str(resp)
    body = resp.json()
    assert "errors" not in body, str(resp)
    return body["extensions"]["cost"]


def assert_too_expensive(resp, status: int, estimated: float, max_cost: float) -> None:
    body = assert_gateway_error(resp, status, COST_CODE)
    [error] = body["errors"]
    assert error["message"] == f"The operation's estimated cost, {estimated}, is over the maximum of {max_cost}.", body
    assert error["extensions"] == {"code": COST_CODE, "cost": {"estimated": estimated, "max": max_cost}}, body
    assert "data" not in body, body


def access_line(gw, resp) -> dict:
    """The access line of the request ``resp`` answered."""
    return wait_for_record(gw.proc, msg="request", request_id=resp.header("X-Request-Id"))


def upstream_posts(upstream) -> int:
    return upstream.count("/graphql")


def upstream_subscriptions_started(upstream) -> int:
    return typing.cast(int, json.loads(curl(upstream.path("/subscriptions")).body)["started"])


def series_with(gw, prefix: str) -> dict[str, float]:
    return {name: value for name, value in scrape(gw).items() if name.startswith(prefix)}


# A label value in the text format: quoted, with backslash, quote and newline escaped.
LABEL = r'"((?:[^"\\\n]|\\.)*)"'


def field_usage(gw, metric: str = "gqlgate_field_usage_total") -> dict[tuple[str, str], float]:
    """``(coordinate, client_name)`` → count of a field usage counter, its label values unescaped."""
    line = re.compile(re.escape(metric) + r"\{coordinate=" + LABEL + r",client_name=" + LABEL + r"\} (\S+)")
    unescape = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}

    def text(value: str) -> str:
        return re.sub(r"\\.", lambda m: unescape[m.group(0)], value)

    counts = {}
    for row in curl(gw.path("/metrics")).text.splitlines():
        if row.startswith(metric + "{"):
            match = line.fullmatch(row)
            assert match, f"not a {metric} series: {row!r}"
            counts[(text(match.group(1)), text(match.group(2)))] = float(match.group(3))
    return counts


def post_many(gw, requests: typing.Iterable[tuple[str, dict[str, str]]]) -> list[int]:
    """Each ``(query, headers)`` POSTed in turn over one kept-alive connection; their statuses."""
    conn = http.client.HTTPConnection("127.0.0.1", gw.port, timeout=10)
    statuses = []
    try:
        for query, headers in requests:
            conn.request("POST", "/graphql", json.dumps({"query": query}), {"Content-Type": "application/json", **headers})
            answer = conn.getresponse()
            answer.read()
            statuses.append(answer.status)
    finally:
        conn.close()
    return statuses


# ---------------------------------------------------------------------------
# The schema file


def test_the_schema_file_is_the_upstreams_schema():
    """The SDL above is the upstream's schema with cost directives added, nothing else."""

    def printed(schema: graphql.GraphQLSchema) -> str:
        return graphql.print_schema(graphql.lexicographic_sort_schema(schema))

    ours = graphql.build_schema(COST_DIRECTIVES + SDL)
    ours = graphql.GraphQLSchema(query=ours.query_type, mutation=ours.mutation_type, subscription=ours.subscription_type,
                                 types=list(ours.type_map.values()))  # without the cost directives' definitions
    assert printed(ours) == printed(upstream_schema._schema)


# ---------------------------------------------------------------------------
# measure


def test_measure_refuses_nothing_and_records_each_estimate(gqlgate, tmp_path, strawberry_upstream):
    gw = gqlgate(config=schema_config(tmp_path, "demand_control: {mode: measure, max_cost: 10}\n"))
    before = upstream_posts(strawberry_upstream)
    sent = [
        # hello: a scalar, 0.
        ("{ hello }", None, 0),
        # 2 × Character 3 (the most of Human 1 and Droid 3) + name 0 = 6.
        ("query Characters($n: Int) { characters(first: $n) { name } }", {"n": 2}, 6),
        # books: assumedSize 20 × (Book 1 + title 0) = 20.
        ("query Books { books { title } }", None, 20),
        # 40 × 3 = 120: over max_cost, but measure refuses nothing.
        (TOO_MANY_CHARACTERS, None, 120),
        # A mutation 10 + Review 1 + review: ReviewInput 1 (an input object) + stars 0 + commentary 5 = 17.
        ('mutation Review { createReview(episode: NEWHOPE, review: {stars: 4, commentary: "measured"}) { id } }', None, 17),
        # __typename and introspection cost nothing.
        ("{ __typename __schema { queryType { name } } }", None, 0),
    ]
    for query, variables, expected in sent:
        r = post_graphql(gw.url, query, variables=variables)
        assert r.status == 200 and "errors" not in r.json() and "extensions" not in r.json(), str(r)
        line = access_line(gw, r)
        assert line["cost"] == expected, (query, line)
        assert line["status"] == 200 and line["upstream_status"] == 200, line
    # Each one went upstream (introspection is answered by the upstream too).
    assert upstream_posts(strawberry_upstream) == before + len(sent)
    # Documents seen before are estimated from their plan, once a request: 6 and 20 again.
    for query, variables, expected in sent[1:3]:
        assert access_line(gw, post_graphql(gw.url, query, variables=variables))["cost"] == expected

    series = scrape(gw)
    # Estimates 0, 6, 20, 120, 17, 0, 6, 20 in buckets 1, 5, 10, 25, 50, 100, 250, ... (cumulative).
    buckets = {le: series[f'gqlgate_operation_cost_bucket{{le="{le}"}}']
               for le in ("1.0", "5.0", "10.0", "25.0", "50.0", "100.0", "250.0", "100000.0", "+Inf")}  # fmt: skip
    assert buckets == {"1.0": 2, "5.0": 2, "10.0": 4, "25.0": 7, "50.0": 7, "100.0": 7, "250.0": 8, "100000.0": 8, "+Inf": 8}
    assert series["gqlgate_operation_cost_count"] == 8
    assert series["gqlgate_operation_cost_sum"] == 0 + 6 + 20 + 120 + 17 + 0 + 6 + 20
    # By operation name (anonymous ones under ""): 0 + 120 + 0 in three.
    assert series['gqlgate_operation_estimated_cost_total{operation_name="Characters"}'] == 12
    assert series['gqlgate_operation_estimates_total{operation_name="Characters"}'] == 2
    assert series['gqlgate_operation_estimated_cost_total{operation_name="Books"}'] == 40
    assert series['gqlgate_operation_estimated_cost_total{operation_name="Review"}'] == 17
    assert series['gqlgate_operation_estimated_cost_total{operation_name=""}'] == 120
    assert series['gqlgate_operation_estimates_total{operation_name=""}'] == 3


def test_without_demand_control_there_is_no_cost_anywhere(gqlgate, tmp_path):
    gw = gqlgate(config=schema_config(tmp_path, ""))
    r = post_graphql(gw.url, TOO_MANY_CHARACTERS)
    assert r.status == 200 and "extensions" not in r.json(), str(r)
    assert "cost" not in access_line(gw, r)
    assert scrape(gw).get("gqlgate_operation_cost_count", 0) == 0
    assert not series_with(gw, "gqlgate_field_usage_total")


def test_the_server_span_carries_the_estimate(gqlgate, tmp_path):
    receiver = OTLPReceiver()
    try:
        tracing = f"tracing: {{enabled: true, endpoint: {json.dumps(receiver.endpoint)}}}\n"
        gw = gqlgate(config=schema_config(tmp_path, "demand_control: {mode: enforce, max_cost: 100}\n" + tracing))
        # search: assumedSize 4 × (SearchResult 3 + the most of Human height 1, Droid primaryFunction 2, Book 0) = 20.
        ok = post_graphql(gw.url, '{ search(text: "Sky") { ... on Human { height } ... on Droid { primaryFunction } } }',
                          headers={"traceparent": f"00-{'a' * 32}-{'b' * 16}-01"})
        assert ok.status == 200 and ok.json()["data"]["search"] == [{"height": 1.72}], str(ok)
        refused = post_graphql(gw.url, TOO_MANY_CHARACTERS, headers={"traceparent": f"00-{'c' * 32}-{'b' * 16}-01", **GRAPHQL_RESPONSE})
        assert_too_expensive(refused, 400, 120, 100)

        def server_span(trace: str) -> typing.Optional[trace_pb2.Span]:
            return next((s for s in receiver.spans() if s.trace_id.hex() == trace and s.kind == trace_pb2.Span.SPAN_KIND_SERVER), None)

        wait_until(lambda: server_span("a" * 32) and server_span("c" * 32), timeout=10, what="both server spans", alive=gw.proc)
        answered = attributes(typing.cast(trace_pb2.Span, server_span("a" * 32)))
        assert answered["gqlgate.operation.cost"] == 20.0, answered
        facts = attributes(typing.cast(trace_pb2.Span, server_span("c" * 32)))
        assert facts["gqlgate.operation.cost"] == 120.0, facts
        assert facts["http.response.status_code"] == 400, facts
        # The refused operation made no attempt span.
        assert [s.kind for s in receiver.spans() if s.trace_id.hex() == "c" * 32] == [trace_pb2.Span.SPAN_KIND_SERVER]
    finally:
        receiver.close()


# ---------------------------------------------------------------------------
# enforce


@pytest.fixture
def enforcing(gqlgate, tmp_path):
    return gqlgate(config=schema_config(tmp_path, "demand_control: {mode: enforce, max_cost: 100}\n"))


def test_enforce_refuses_an_operation_over_max_cost_before_the_upstream(enforcing, strawberry_upstream):
    gw = enforcing
    before = upstream_posts(strawberry_upstream)
    # 400 under the GraphQL response media type; 200 under application/json, like any GraphQL request error.
    assert_too_expensive(post_graphql(gw.url, TOO_MANY_CHARACTERS, headers=GRAPHQL_RESPONSE), 400, 120, 100)
    assert_too_expensive(post_graphql(gw.url, TOO_MANY_CHARACTERS, headers={"Accept": "application/json"}), 200, 120, 100)
    assert_too_expensive(get_graphql(gw.url, TOO_MANY_CHARACTERS, headers=GRAPHQL_RESPONSE), 400, 120, 100)
    assert_too_expensive(get_graphql(gw.url, TOO_MANY_CHARACTERS), 200, 120, 100)
    # Six aliases of books: 6 × 20 × 1 = 120.
    six = "{ " + " ".join(f"b{i}: books {{ id }}" for i in range(6)) + " }"
    assert_too_expensive(post_graphql(gw.url, six, headers=GRAPHQL_RESPONSE), 400, 120, 100)
    # slow: 50 + characters(first: 17) 17 × 3 = 51 → 101, one over.
    assert_too_expensive(post_graphql(gw.url, "{ slow(seconds: 5) characters(first: 17) { id } }", headers=GRAPHQL_RESPONSE),
                         400, 101, 100)
    refused = post_graphql(gw.url, TOO_MANY_CHARACTERS, headers=GRAPHQL_RESPONSE)
    line = access_line(gw, refused)
    assert (line["cost"], line["status"]) == (120, 400), line
    assert "upstream_status" not in line and "attempts" not in line, line
    assert upstream_posts(strawberry_upstream) == before

    # At the maximum it runs: five aliases of books, 5 × 20 = 100.
    five = "{ " + " ".join(f"b{i}: books {{ id }}" for i in range(5)) + " }"
    r = post_graphql(gw.url, five, headers=GRAPHQL_RESPONSE)
    assert r.status == 200 and len(r.json()["data"]) == 5, str(r)
    assert access_line(gw, r)["cost"] == 100
    assert upstream_posts(strawberry_upstream) == before + 1


def test_a_refused_mutation_has_no_effect(enforcing, strawberry_upstream):
    books = strawberry_upstream.book_count()
    before = upstream_posts(strawberry_upstream)
    # 10 (a mutation) + addBook's @cost 100 = 110.
    mutation = 'mutation { addBook(title: "Too Expensive", author: "Nobody") { id } }'
    assert_too_expensive(post_graphql(enforcing.url, mutation, headers=GRAPHQL_RESPONSE), 400, 110, 100)
    assert strawberry_upstream.book_count() == books
    assert upstream_posts(strawberry_upstream) == before
    # A mutation under the maximum runs: 10 + updateReview's ReviewPayload 1 + review 1 = 12.
    r = post_graphql(enforcing.url, "mutation { updateReview(id: 1, stars: 5) { review { stars } } }")
    assert r.status == 200 and r.json()["data"]["updateReview"]["review"]["stars"] == 5, str(r)
    assert access_line(enforcing, r)["cost"] == 12


def test_a_slicing_argument_set_by_a_variable_is_read_per_request(enforcing, strawberry_upstream):
    before = upstream_posts(strawberry_upstream)
    # The same document: 34 × 3 = 102 is refused, 33 × 3 = 99 runs.
    assert_too_expensive(post_graphql(enforcing.url, CHARACTERS_BY_VARIABLE, {"n": 34}, headers=GRAPHQL_RESPONSE), 400, 102, 100)
    assert upstream_posts(strawberry_upstream) == before
    r = post_graphql(enforcing.url, CHARACTERS_BY_VARIABLE, {"n": 33})
    assert r.status == 200 and len(r.json()["data"]["characters"]) == CHARACTERS, str(r)
    assert access_line(enforcing, r)["cost"] == 99
    # Without it, list_size: 10 × 3 = 30; and again too many, over GET.
    assert access_line(enforcing, post_graphql(enforcing.url, CHARACTERS_BY_VARIABLE))["cost"] == 30
    assert_too_expensive(get_graphql(enforcing.url, CHARACTERS_BY_VARIABLE, {"n": 1000}, headers=GRAPHQL_RESPONSE),
                         400, 3000, 100)
    # The operation's default: 40 × 3 = 120, unless the request sets it: 2 × 3 = 6.
    with_default = "query($n: Int = 40) { characters(first: $n) { id } }"
    assert_too_expensive(post_graphql(enforcing.url, with_default, headers=GRAPHQL_RESPONSE), 400, 120, 100)
    assert access_line(enforcing, post_graphql(enforcing.url, with_default, {"n": 2}))["cost"] == 6
    # A negative size is no size: 0.
    assert access_line(enforcing, post_graphql(enforcing.url, CHARACTERS_BY_VARIABLE, {"n": -3}))["cost"] == 0
    # The largest Int: 2147483647 × 3.
    assert_too_expensive(post_graphql(enforcing.url, CHARACTERS_BY_VARIABLE, {"n": 2**31 - 1}, headers=GRAPHQL_RESPONSE),
                         400, 3 * (2**31 - 1), 100)
    assert upstream_posts(strawberry_upstream) == before + 4


def test_a_persisted_query_sent_by_its_hash_is_costed(enforcing, strawberry_upstream):
    query = TOO_MANY_CHARACTERS
    persisted = {"persistedQuery": {"version": 1, "sha256Hash": hashlib.sha256(query.encode()).hexdigest()}}
    before = upstream_posts(strawberry_upstream)
    # Unknown hash; then the query with its hash (refused, yet registered); then the hash alone, POST and GET.
    unknown = curl(enforcing.url, json_body={"extensions": persisted}, headers=GRAPHQL_RESPONSE)
    assert unknown.json()["errors"][0]["extensions"]["code"] == "PERSISTED_QUERY_NOT_FOUND", str(unknown)
    assert_too_expensive(curl(enforcing.url, json_body={"query": query, "extensions": persisted}, headers=GRAPHQL_RESPONSE),
                         400, 120, 100)
    assert_too_expensive(curl(enforcing.url, json_body={"extensions": persisted}, headers=GRAPHQL_RESPONSE), 400, 120, 100)
    assert_too_expensive(curl(enforcing.url, params={"extensions": json.dumps(persisted)}, headers={**PREFLIGHT, **GRAPHQL_RESPONSE}),
                         400, 120, 100)
    assert upstream_posts(strawberry_upstream) == before


@pytest.mark.parametrize("accept, status", [(SSE, 400), (MULTIPART, 200)], ids=["sse", "multipart"])
def test_a_streamed_operation_over_max_cost_is_refused_before_its_stream(enforcing, strawberry_upstream, accept, status):
    started = upstream_subscriptions_started(strawberry_upstream)
    before = upstream_posts(strawberry_upstream)
    # ticks: @cost 500. (Apollo's multipart Accept admits application/json: 200.)
    r = post_graphql(enforcing.url, "subscription { ticks(intervalMs: 50) }", headers=accept)
    assert_too_expensive(r, status, 500, 100)
    assert_too_expensive(post_graphql(enforcing.url, TOO_MANY_CHARACTERS, headers=accept), status, 120, 100)
    assert upstream_subscriptions_started(strawberry_upstream) == started
    assert upstream_posts(strawberry_upstream) == before
    # A subscription within the maximum streams: countdown 0.
    ok = post_graphql(enforcing.url, "subscription { countdown(from: 1) }", headers=accept)
    assert ok.status == 200 and ok.text.count('"countdown"') == 2, str(ok)


@pytest.mark.parametrize("subprotocol", [TRANSPORT_WS, LEGACY_WS])
def test_a_websocket_operation_over_max_cost_gets_the_protocols_error_and_the_socket_stays_open(
        enforcing, strawberry_upstream, subprotocol):
    start = "subscribe" if subprotocol == TRANSPORT_WS else "start"
    ws = initialised(enforcing, subprotocol)
    try:
        started = upstream_subscriptions_started(strawberry_upstream)
        before = upstream_posts(strawberry_upstream)
        for id, query, estimated in [("1", "subscription { ticks(intervalMs: 50) }", 500), ("2", TOO_MANY_CHARACTERS, 120)]:
            send(ws, {"id": id, "type": start, "payload": {"query": query}})
            error = recv_type(ws, "error")
            assert error["id"] == id, error
            errors = error["payload"] if subprotocol == TRANSPORT_WS else [error["payload"]]
            assert errors == [{
                "message": f"The operation's estimated cost, {estimated}, is over the maximum of 100.",
                "extensions": {"code": COST_CODE, "cost": {"estimated": estimated, "max": 100}},
            }], error
        assert upstream_subscriptions_started(strawberry_upstream) == started
        # The upstream's /graphql counts WebSocket connections too: none was opened, no request sent.
        assert upstream_posts(strawberry_upstream) == before
        # The socket stays open: operations within the maximum run on it.
        send(ws, {"id": "3", "type": start, "payload": {"query": "subscription { countdown(from: 1) }"}})
        assert recv_type(ws, "next", "data")["payload"] == {"data": {"countdown": 1}}
        assert recv_end(ws) == {"id": "3", "type": "complete"}
        # 2 × 3 = 6 (as a variable).
        send(ws, {"id": "4", "type": start, "payload": {"query": CHARACTERS_BY_VARIABLE, "variables": {"n": 2}}})
        result = recv_type(ws, "next", "data")
        assert result["payload"] == {"data": {"characters": [{"name": "Luke Skywalker"}, {"name": "R2-D2"}]}}, result
    finally:
        ws.close()


def reload(gw, config: str) -> None:
    """Writes ``config`` and sends SIGHUP; returns once gqlgate logged the reload."""
    done = len([r for r in log_records(gw.proc) if r.get("msg") == "reloaded"])
    gw.config_path.write_text(config)
    gw.proc.popen.send_signal(signal.SIGHUP)
    wait_until(lambda: len([r for r in log_records(gw.proc) if r.get("msg") == "reloaded"]) > done, timeout=10,
               what="the reload", alive=gw.proc)


def test_a_reload_and_a_changed_schema_file_apply_to_the_next_estimate(gqlgate, tmp_path, strawberry_upstream):
    measuring = schema_config(tmp_path, "demand_control: {mode: measure, max_cost: 100, expose: true}\n")
    gw = gqlgate(config=measuring)
    books = "{ books { id } }"
    # assumedSize 20 × Book 1 = 20; 40 × 3 = 120 runs under measure.
    assert cost(post_graphql(gw.url, books))["estimated"] == 20
    assert cost(post_graphql(gw.url, TOO_MANY_CHARACTERS))["estimated"] == 120

    reload(gw, measuring.replace("mode: measure", "mode: enforce"))
    assert_too_expensive(post_graphql(gw.url, TOO_MANY_CHARACTERS, headers=GRAPHQL_RESPONSE), 400, 120, 100)

    # New weights and maximum: Book 0.5 → 20 × 0.5 = 10 (actual: half a token a book that came);
    # Character 2.5 → 36 × 2.5 = 90 runs, 37 × 2.5 = 92.5 is over, and costs are written as decimals.
    reload(gw, measuring.replace("mode: measure", "mode: enforce, weights: {Book: 0.5, Character: 2.5}")
           .replace("max_cost: 100", "max_cost: 90"))
    r = post_graphql(gw.url, books)
    assert cost(r) == {"estimated": 10, "actual": 0.5 * len(r.json()["data"]["books"]), "max": 90}
    assert cost(post_graphql(gw.url, "{ characters(first: 36) { id } }")) == {"estimated": 90, "actual": 10, "max": 90}
    assert_too_expensive(post_graphql(gw.url, "{ characters(first: 37) { id } }", headers=GRAPHQL_RESPONSE), 400, 92.5, 90)
    assert access_line(gw, post_graphql(gw.url, "{ characters(first: 1) { id } }"))["cost"] == 2.5

    # The schema file changes (books' assumedSize 20 → 30): the same document costs 30 × 0.5 = 15.
    schema = tmp_path / "schema.graphql"
    schema.write_text(SDL.replace("@listSize(assumedSize: 20)", "@listSize(assumedSize: 30)"))
    wait_until(lambda: cost(post_graphql(gw.url, books))["estimated"] == 15, timeout=10, what="the new schema's estimate",
               alive=gw.proc)
    wait_for_record(gw.proc, msg="schema changed")

    reload(gw, measuring.replace("mode: measure", "mode: off"))
    r = post_graphql(gw.url, TOO_MANY_CHARACTERS)
    assert r.status == 200 and "extensions" not in r.json(), str(r)
    assert "cost" not in access_line(gw, r)


# ---------------------------------------------------------------------------
# expose


def test_expose_gives_the_estimate_and_the_actual_cost_of_each_answer(gqlgate, tmp_path):
    gw = gqlgate(config=schema_config(tmp_path, "demand_control: {mode: measure, max_cost: 1000, expose: true}\n"))

    # characters without `first`: list_size 10 × Character 3 = 30 estimated; the upstream has 4,
    # each an object of the field's type (3): 12.
    r = post_graphql(gw.url, "{ characters { name } }")
    assert len(r.json()["data"]["characters"]) == CHARACTERS
    assert cost(r) == {"estimated": 30, "actual": 12, "max": 1000}

    # reviews: list_size 10 × 1 = 10 and books: 20 × 1 = 20 estimated; actual, the lists' lengths.
    r = post_graphql(gw.url, "{ reviews(episode: EMPIRE) { stars } books { id } }")
    data = r.json()["data"]
    assert cost(r) == {"estimated": 30, "actual": len(data["reviews"]) + len(data["books"]), "max": 1000}, data

    # search: 4 × (3 + the most of Human 1 and Droid 2) = 20; one Human came: 3 + height 1 = 4.
    r = post_graphql(gw.url, '{ search(text: "Skywalker") { ... on Human { height } ... on Droid { primaryFunction } } }')
    assert r.json()["data"] == {"search": [{"height": 1.72}]}
    assert cost(r) == {"estimated": 20, "actual": 4, "max": 1000}

    # A slicing argument the upstream honours: the estimate is the actual, 2 × 3 = 6.
    assert cost(post_graphql(gw.url, CHARACTERS_BY_VARIABLE, {"n": 2})) == {"estimated": 6, "actual": 6, "max": 1000}

    # Nothing found: the estimate stands, nothing came, 0.
    r = post_graphql(gw.url, '{ search(text: "no such text anywhere") { __typename } }')
    assert r.json()["data"] == {"search": []}
    assert cost(r) == {"estimated": 12, "actual": 0, "max": 1000}

    # A mutation: 10 + Review 1 + review (input object) 1 = 12, and the same in the answer.
    r = post_graphql(gw.url, "mutation { createReview(episode: EMPIRE, review: {stars: 2}) { id stars } }")
    assert r.json()["data"]["createReview"]["stars"] == 2
    assert cost(r) == {"estimated": 12, "actual": 12, "max": 1000}


@pytest.mark.parametrize("accept", [SSE, MULTIPART], ids=["sse", "multipart"])
def test_expose_gives_the_cost_of_a_query_answered_in_a_stream(gqlgate, tmp_path, accept):
    gw = gqlgate(config=schema_config(tmp_path, "demand_control: {mode: measure, max_cost: 1000, expose: true}\n"))
    # 1 × Character 3 = 3, and one came.
    r = post_graphql(gw.url, "{ characters(first: 1) { id } }", headers=accept)
    assert r.status == 200 and r.text.count('"characters"') == 1, str(r)
    assert '"extensions":{"cost":{"estimated":3,"actual":3,"max":1000}}' in r.text, r.text


def test_a_slicing_argument_with_expose_shows_each_requests_estimate(gqlgate, tmp_path):
    gw = gqlgate(config=schema_config(tmp_path, "demand_control: {mode: measure, expose: true, list_size: 7}\n"))
    # One document, estimates n × 3 (absent: list_size 7 × 3 = 21); actual: min(n, 4) × 3.
    sent = [(1, 3, 3), (3, 9, 9), (50, 150, 12), (None, 21, 12), (0, 0, 0), (1, 3, 3)]
    for n, estimated, actual in sent:
        variables = {} if n is None else {"n": n}
        assert cost(post_graphql(gw.url, CHARACTERS_BY_VARIABLE, variables)) == {"estimated": estimated, "actual": actual, "max": 1000}, n
    # Each request is estimated once (the plan is made once; expose sends answers through a loop).
    series = scrape(gw)
    assert series["gqlgate_operation_cost_count"] == len(sent)
    assert series["gqlgate_operation_cost_sum"] == sum(estimated for _, estimated, _ in sent)
    assert series['gqlgate_operation_estimates_total{operation_name="Characters"}'] == len(sent)


# ---------------------------------------------------------------------------
# weights, with a schema from introspection (no directives)


def test_weights_cost_a_schema_read_by_introspection(gqlgate, strawberry_upstream):
    config = """
schema: {source: introspection}
demand_control:
  mode: enforce
  max_cost: 50
  list_size: 5
  expose: true
  weights: {"Query.characters": 4, Book: 2, "Human.height": 3}
"""
    gw = gqlgate(config=config)
    wait_until(lambda: scrape(gw).get("gqlgate_schema_loaded") == 1, timeout=15, what="the schema", alive=gw.proc)
    # Introspection carries no @cost: only the weights count.
    # characters: list_size 5 × (Query.characters 4 + the most of Human: height 3, Droid: 0) = 35;
    # books: 5 × (Book 2 + title 0) = 10. 45 in all.
    # Actual: 4 characters × 4 + two Humans' heights 2 × 3 = 22, and 2 per book.
    r = post_graphql(gw.url, "{ characters { name ... on Human { height } } books { title } }")
    books = len(r.json()["data"]["books"])
    assert cost(r) == {"estimated": 45, "actual": 22 + 2 * books, "max": 50}
    # search: 5 × (SearchResult: the most of Book 2, Human 1, Droid 1 = 2; + Human height 3) = 25;
    # one Human came: 2 + 3 = 5.
    r = post_graphql(gw.url, '{ search(text: "Skywalker") { ... on Human { height } } }')
    assert cost(r) == {"estimated": 25, "actual": 5, "max": 50}
    # Nor @listSize: `first` sizes nothing, every list is list_size long: 5 × 4 = 20 (4 came: 16).
    assert cost(post_graphql(gw.url, "{ characters(first: 1000) { id } }")) == {"estimated": 20, "actual": 16, "max": 50}
    # characters 20 + four lists of books 4 × 10 = 60 is refused; with three, 50 runs.
    before = upstream_posts(strawberry_upstream)
    four = "{ characters { id } " + " ".join(f"b{i}: books {{ id }}" for i in range(4)) + " }"
    assert_too_expensive(post_graphql(gw.url, four, headers=GRAPHQL_RESPONSE), 400, 60, 50)
    three = "{ characters { id } " + " ".join(f"b{i}: books {{ id }}" for i in range(3)) + " }"
    assert cost(post_graphql(gw.url, three))["estimated"] == 50
    assert upstream_posts(strawberry_upstream) == before + 1


# ---------------------------------------------------------------------------
# Cost tokens: clients.rate_limit.by_cost

# A bucket of 10 tokens that takes 1000 s to win one back: nothing refills while the test runs.
BY_COST = "clients:\n  rate_limit: {{requests_per_second: 0.001, burst: 10, by: {by}, by_cost: true{store}}}\n"
# 1 × Character 3 = 3.
COSTS_THREE = "{ characters(first: 1) { id } }"
# 10 × 3 = 30: more than the bucket holds.
COSTS_THIRTY = "{ characters(first: 10) { id } }"


def test_by_cost_a_request_takes_its_cost_in_tokens(gqlgate, tmp_path, strawberry_upstream):
    gw = gqlgate(config=schema_config(tmp_path, "demand_control: {mode: measure}\n" + BY_COST.format(by="header:x-tenant", store="")))

    # Tenant a, a bucket of 10: each request takes 1, then the rest of its cost (2).
    # 10 → 7 → 4 → 1; the fourth takes 1 (→ 0) and cannot have 2 more: 429; so is anything after.
    a = {"X-Tenant": "a"}
    for _ in range(3):
        assert post_graphql(gw.url, COSTS_THREE, headers=a).status == 200
    before = upstream_posts(strawberry_upstream)
    refused = post_graphql(gw.url, COSTS_THREE, headers=a)
    assert_gateway_error(refused, 429, "RATE_LIMITED")
    # The 2 tokens it lacked come back in 2 × 1000 s.
    assert 1990 <= int(refused.header("Retry-After")) <= 2000, str(refused)
    assert refused.header("RateLimit-Policy") == '"default";q=10;w=10000', str(refused)
    line = access_line(gw, refused)
    assert (line["status"], line["shed"], line["cost"]) == (429, "rate_limited", 3), line
    # hello costs 0, yet takes the one token every request takes: none is left.
    assert_gateway_error(post_graphql(gw.url, "{ hello }", headers=a), 429, "RATE_LIMITED")
    assert upstream_posts(strawberry_upstream) == before

    # Tenant b: one operation costing more than the bucket takes the whole (full) bucket, and runs.
    b = {"X-Tenant": "b"}
    r = post_graphql(gw.url, COSTS_THIRTY, headers=b)
    assert r.status == 200 and len(r.json()["data"]["characters"]) == CHARACTERS, str(r)
    assert_gateway_error(post_graphql(gw.url, "{ hello }", headers=b), 429, "RATE_LIMITED")

    # Tenant c: operations costing 0 take 1 token each: 10 of them.
    c = {"X-Tenant": "c"}
    assert post_many(gw, [("{ hello }", c)] * 11) == [200] * 10 + [429]

    # Tenant d: an operation costing 30 cannot run once the bucket is not full.
    d = {"X-Tenant": "d"}
    assert post_graphql(gw.url, "{ hello }", headers=d).status == 200
    assert_gateway_error(post_graphql(gw.url, COSTS_THIRTY, headers=d), 429, "RATE_LIMITED")
    # That refusal took one more token: 8 are left, two requests costing 3 (1 + 2 each, 6), then 2 left.
    assert post_many(gw, [(COSTS_THREE, d)] * 3) == [200, 200, 429]

    series = scrape(gw)
    assert series["gqlgate_rate_limited_total"] == 2 + 1 + 1 + 2


def test_by_cost_with_enforce_a_refused_operation_takes_one_token(gqlgate, tmp_path):
    gw = gqlgate(config=schema_config(tmp_path, "demand_control: {mode: enforce, max_cost: 100}\n"
                                                + BY_COST.format(by="global", store="")))
    # Refused at its estimate (120), after the rate limit took its one token: 9 left.
    for _ in range(3):
        assert_too_expensive(post_graphql(gw.url, TOO_MANY_CHARACTERS, headers=GRAPHQL_RESPONSE), 400, 120, 100)
    # 7 left: two requests costing 3 (6), then 1 left: the third takes it and lacks 2.
    assert post_many(gw, [(COSTS_THREE, {})] * 3) == [200, 200, 429]


def test_cache_hits_carry_their_cost_and_take_its_tokens(gqlgate, tmp_path, strawberry_upstream):
    gw = gqlgate(config=schema_config(tmp_path, "demand_control: {mode: measure, expose: true}\ncache: {enabled: true}\n"
                                                + BY_COST.format(by="global", store="")))
    before = upstream_posts(strawberry_upstream)
    answers = [post_graphql(gw.url, COSTS_THREE) for _ in range(3)]
    assert [r.header("X-Cache") for r in answers] == ["MISS", "HIT", "HIT"], [str(r) for r in answers]
    # Each answer, the stored one too, carries its cost once: 1 × 3, one came.
    for r in answers:
        assert r.text.count('"cost"') == 1 and cost(r) == {"estimated": 3, "actual": 3, "max": 1000}, str(r)
    assert upstream_posts(strawberry_upstream) == before + 1
    # Three times 3 tokens of 10: the fourth, a hit too, lacks 2.
    assert_gateway_error(post_graphql(gw.url, COSTS_THREE), 429, "RATE_LIMITED")


redis_server = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed (make deps)")


@redis_server
def test_by_cost_with_a_redis_store_spends_the_fleets_budget(gqlgate, tmp_path, redis):  # noqa: F811
    store = f', store: redis}}\nredis: {{url: "{redis.url}", key_prefix: "dc-test:"'
    config = schema_config(tmp_path, "demand_control: {mode: measure}\n" + BY_COST.format(by="global", store=store))
    first = gqlgate(config=config)
    # As in memory: 10 → 7 → 4 → 1, then the fourth lacks 2.
    assert post_many(first, [(COSTS_THREE, {})] * 4) == [200, 200, 200, 429]
    assert_gateway_error(post_graphql(first.url, "{ hello }"), 429, "RATE_LIMITED")

    # The fleet's bucket in Redis: 3 × 3 + the fourth's first token = 10 tokens taken (the hello's
    # was not: none was left), so its theoretical arrival time is 10 × 1000 s ahead of Redis's clock.
    def tokens_ahead() -> float:
        [key] = [k for k in redis.cli("KEYS", "dc-test:rl:*").split() if k != "dc-test:rl:replicas"]
        seconds, micros = redis.cli("TIME").split()
        now = int(seconds) * 1_000_000 + int(micros)
        return (int(redis.cli("HGET", key, "=")) - now) / 1e9

    wait_until(lambda: tokens_ahead() > 9.9, timeout=5, what="the spent tokens settled in Redis", alive=first.proc)
    assert tokens_ahead() <= 10

    # Another replica of the fleet: its first request passes on a share of a full bucket taken
    # before it knows better; once settled, the fleet's budget is spent for it too.
    second = gqlgate(config=config)
    assert post_graphql(second.url, "{ hello }").status == 200
    wait_until(lambda: scrape(second).get('gqlgate_rate_limit_settlements_total{outcome="ok"}', 0) >= 1, timeout=5,
               what="the second replica's settlement", alive=second.proc)
    assert_gateway_error(post_graphql(second.url, COSTS_THREE), 429, "RATE_LIMITED")
    assert_gateway_error(post_graphql(second.url, "{ hello }"), 429, "RATE_LIMITED")
    for gw in (first, second):
        assert scrape(gw).get('gqlgate_rate_limit_settlements_total{outcome="failed"}', 0) == 0


# ---------------------------------------------------------------------------
# Field usage


def test_field_usage_counts_each_coordinate_once_per_request_by_client(gqlgate, tmp_path):
    gw = gqlgate(config=schema_config(tmp_path, "metrics: {field_usage: true}\n"))
    web = {"apollographql-client-name": "web"}
    ios = {"apollographql-client-name": "ios"}
    # A named fragment spread twice and an alias of the same field: each coordinate once a request.
    # `name` is selected on the interface (Character.name), `height` on Human, `id` on both.
    fragments = """
      query { characters { ...Names ...Names ... on Human { id height } ... on Droid { id } }
              again: characters(first: 1) { ...Names } }
      fragment Names on Character { name }
    """
    for _ in range(2):
        r = post_graphql(gw.url, fragments, headers=web)
        assert r.status == 200 and len(r.json()["data"]["characters"]) == CHARACTERS, str(r)
    r = post_graphql(gw.url, "{ characters(first: 1) { ... on Human { homePlanet } } books { title } }", headers=ios)
    assert r.json()["data"]["characters"] == [{"homePlanet": "Tatooine"}], str(r)
    # No client name: the empty name.
    assert post_graphql(gw.url, "{ hello }").status == 200
    # A union: its members' fields.
    assert post_graphql(gw.url, '{ search(text: "R2") { ... on Droid { primaryFunction } } }', headers=ios).status == 200
    # Over a WebSocket, the name from the upgrade request.
    ws = initialised(gw, TRANSPORT_WS, headers={"apollographql-client-name": "socket"})
    try:
        send(ws, {"id": "1", "type": "subscribe", "payload": {"query": "subscription { countdown(from: 0) }"}})
        assert recv_end(ws)["type"] == "complete"
    finally:
        ws.close()
    # Refused operations count nothing (here: validation).
    assert post_graphql(gw.url, "{ characters { nope } }", headers=web).json()["errors"][0]["extensions"]["code"] == \
        "GRAPHQL_VALIDATION_FAILED"

    assert field_usage(gw) == {
        ("Query.characters", "web"): 2,
        ("Character.name", "web"): 2,
        ("Human.id", "web"): 2,
        ("Human.height", "web"): 2,
        ("Droid.id", "web"): 2,
        ("Query.characters", "ios"): 1,
        ("Human.homePlanet", "ios"): 1,
        ("Query.books", "ios"): 1,
        ("Book.title", "ios"): 1,
        ("Query.search", "ios"): 1,
        ("Droid.primaryFunction", "ios"): 1,
        ("Query.hello", ""): 1,
        ("Subscription.countdown", "socket"): 1,
    }
    assert field_usage(gw, "gqlgate_deprecated_field_usage_total") == {("Human.homePlanet", "ios"): 1}


def test_field_usage_from_an_introspected_schema_knows_deprecated_fields_and_another_header(gqlgate):
    gw = gqlgate(config="schema: {source: introspection}\nmetrics: {field_usage: true, client_name_header: X-Client}\n")
    wait_until(lambda: scrape(gw).get("gqlgate_schema_loaded") == 1, timeout=15, what="the schema", alive=gw.proc)
    headers = {"X-Client": "android", "apollographql-client-name": "not-this-one"}
    r = post_graphql(gw.url, "{ characters { ... on Human { homePlanet } } }", headers=headers)
    assert r.status == 200, str(r)
    assert field_usage(gw) == {("Query.characters", "android"): 1, ("Human.homePlanet", "android"): 1}
    assert field_usage(gw, "gqlgate_deprecated_field_usage_total") == {("Human.homePlanet", "android"): 1}


def test_field_usage_refused_by_cost_counts_nothing(gqlgate, tmp_path):
    gw = gqlgate(config=schema_config(tmp_path, "demand_control: {mode: enforce, max_cost: 100}\nmetrics: {field_usage: true}\n"))
    assert_too_expensive(post_graphql(gw.url, TOO_MANY_CHARACTERS, headers=GRAPHQL_RESPONSE), 400, 120, 100)
    assert field_usage(gw) == {}
    assert post_graphql(gw.url, "{ characters(first: 2) { id } }").status == 200
    assert field_usage(gw) == {("Query.characters", ""): 1, ("Character.id", ""): 1}


def test_field_usage_keeps_100_client_names_and_counts_the_rest_as_other(gqlgate, tmp_path):
    gw = gqlgate(config=schema_config(tmp_path, "metrics: {field_usage: true}\n"))
    names = [f"client-{i:03}" for i in range(105)]
    assert post_many(gw, [("{ hello }", {"apollographql-client-name": name}) for name in names]) == [200] * 105
    # A name kept keeps its series; a new one, or a later one again, is `other`.
    again = [("{ hello }", {"apollographql-client-name": name}) for name in ("client-007", "client-103", "client-200")]
    # The empty name (no header) came after the hundredth name: `other` too.
    assert post_many(gw, again + [("{ hello }", {})]) == [200] * 4
    counts = field_usage(gw)
    expected = {("Query.hello", name): 1 for name in names[:100]}
    expected[("Query.hello", "client-007")] = 2
    expected[("Query.hello", "other")] = 5 + 3
    assert counts == expected


def test_field_usage_client_names_are_escaped_and_cut_at_128_bytes(gqlgate, tmp_path):
    gw = gqlgate(config=schema_config(tmp_path, "metrics: {field_usage: true}\n"))
    odd = 'we"b\\app, v2} {x'
    long_a, long_b = "n" * 128 + "-first", "n" * 128 + "-second"
    for name in (odd, long_a, long_b):
        assert post_graphql(gw.url, "{ hello }", headers={"apollographql-client-name": name}).status == 200
    # Two names alike in their first 128 bytes share one series.
    assert field_usage(gw) == {("Query.hello", odd): 1, ("Query.hello", "n" * 128): 2}


def test_field_usage_client_name_without_the_headers_surrounding_whitespace(gqlgate, tmp_path):
    gw = gqlgate(config=schema_config(tmp_path, "metrics: {field_usage: true}\n"))
    # curl sends the value as written, spaces and all.
    for value in ("web", "   web", "web   "):
        assert curl(gw.url, json_body={"query": "{ hello }"}, extra=["-H", f"apollographql-client-name:{value}"]).status == 200
    assert field_usage(gw) == {("Query.hello", "web"): 3}


# ---------------------------------------------------------------------------
# Configuration


@pytest.mark.parametrize("settings, message", [
    ("demand_control: {mode: measure}\n",
     "demand_control.mode: measure needs a schema: set schema.source (costs are read from the schema)"),
    ("demand_control: {mode: enforce, max_cost: 10}\n",
     "demand_control.mode: enforce needs a schema: set schema.source (costs are read from the schema)"),
    ("metrics: {field_usage: true}\n",
     "metrics.field_usage: needs a schema: set schema.source (fields are counted by their schema coordinates)"),
    ("schema: {source: introspection}\nclients:\n  rate_limit: {requests_per_second: 5, by_cost: true}\n",
     "clients.rate_limit.by_cost: needs demand_control.mode measure or enforce (a request takes its estimated cost)"),
], ids=["measure", "enforce", "field-usage", "by-cost"])
def test_check_config_and_run_refuse_demand_control_without_what_it_needs(gqlgate_bin, tmp_path, settings, message):
    path = tmp_path / "gqlgate.yaml"
    path.write_text("upstream: {url: http://127.0.0.1:9/graphql}\n" + settings)
    checked = run_cli(gqlgate_bin, "check-config", str(path), cwd=tmp_path)
    assert checked.rc == 1, str(checked)
    assert f"invalid configuration: {message}" in checked.stderr, str(checked)
    ran = run_cli(gqlgate_bin, "run", "--config", str(path), "--listen", "127.0.0.1:0", cwd=tmp_path)
    assert ran.rc == 1, str(ran)
    assert message in ran.stderr, str(ran)


def test_check_config_accepts_demand_control_with_a_schema_file(gqlgate_bin, tmp_path):
    path = tmp_path / "gqlgate.yaml"
    path.write_text("upstream: {url: http://127.0.0.1:9/graphql}\n" + schema_config(
        tmp_path, "demand_control: {mode: enforce, max_cost: 250, weights: {Book: 2}}\nmetrics: {field_usage: true}\n"
                  "clients:\n  rate_limit: {requests_per_second: 5, by_cost: true}\n"))
    checked = run_cli(gqlgate_bin, "check-config", str(path), cwd=tmp_path)
    assert checked.rc == 0, str(checked)


# A schema file that mentions `directive @cost` (in a comment, or as the start of another
# directive's name) without defining @cost, yet uses it.
MENTIONS = {
    "comment": "# Costs: directive @cost of the IBM GraphQL Cost Directives specification.\n",
    "other-directive": "directive @costCentre(name: String) on OBJECT\n",
}


@pytest.mark.parametrize("mention", list(MENTIONS), ids=list(MENTIONS))
def test_a_schema_that_mentions_directive_cost_still_gets_the_implied_definition(gqlgate_bin, tmp_path, mention):
    path = tmp_path / "gqlgate.yaml"
    path.write_text("upstream: {url: http://127.0.0.1:9/graphql}\n"
                    + schema_config(tmp_path, "demand_control: {mode: measure}\n", sdl=MENTIONS[mention] + SDL))
    checked = run_cli(gqlgate_bin, "check-config", str(path), cwd=tmp_path)
    assert checked.rc == 0, str(checked)
