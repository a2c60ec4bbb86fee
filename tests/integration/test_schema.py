"""The schema at the edge: a schema from a file or by introspection, every document validated and
its variables coerced before anything goes upstream, over every transport; schema-blind until a
schema loads; the file re-read when it changes; validate: false; check-config; the metrics."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from conftest import _RUNNING, START_TIMEOUT
from harness import (
    HERE, ProcessGroup, assert_gateway_error, clean_env, curl, free_port, get_graphql, post_graphql, wait_for_http, wait_until,
)
from test_ops import find_record, scrape, wait_for_record
from test_streams import MULTIPART, SSE, multipart_parts, sse_events
from test_subscriptions_ws import LEGACY_WS, TRANSPORT_WS, initialised, recv_type, send

sys.path.insert(0, str(Path(__file__).parent))
from upstream_app import schema as upstream_schema  # noqa: E402

# The answer type the GraphQL over HTTP draft gives request errors their 4xx under.
GRAPHQL_RESPONSE = {"Accept": "application/graphql-response+json"}
MISSPELT = "{\n  books {\n    titel\n  }\n}"
BOOK = "query Book($id: ID!) { book(id: $id) { title } }"


def upstream_sdl() -> str:
    """The Strawberry upstream's schema as SDL, printed from the app itself (never stale)."""
    return str(upstream_schema)


def config(source: str, tmp_path: Path, *, sdl: str | None = None, extra: str = "") -> str:
    lines = [f"schema: {{source: {source}"]
    if sdl is not None:
        path = tmp_path / "schema.graphql"
        path.write_text(sdl)
        lines[0] += f", file: {json.dumps(str(path))}"
    lines[0] += extra + "}"
    return "\n".join(lines) + "\n"


def upstream_posts(upstream) -> int:
    return upstream.count("/graphql")


def assert_misspelt_refused(resp) -> None:
    body = assert_gateway_error(resp, 400, "GRAPHQL_VALIDATION_FAILED")
    [error] = body["errors"]
    assert error["message"] == 'Cannot query field "titel" on type "Book". Did you mean "title"?', body
    assert error["locations"] == [{"line": 3, "column": 5}], body


class LateUpstream:
    """A Strawberry upstream on a port chosen now and started later, as an app beside its sidecar."""

    def __init__(self, group: ProcessGroup) -> None:
        self.group = group
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/graphql"

    def start(self) -> None:
        proc = self.group.start("late-upstream", [sys.executable, str(HERE / "upstream_app.py"), "--port", str(self.port)],
                                env=clean_env({"PYTHONUNBUFFERED": "1"}), cwd=HERE)
        wait_for_http(f"http://127.0.0.1:{self.port}/counters", timeout=START_TIMEOUT, alive=proc)


@pytest.fixture
def free_upstream(proc_dir):
    group = ProcessGroup(proc_dir, _RUNNING)
    try:
        yield LateUpstream(group)
    finally:
        group.stop_all()


@pytest.fixture
def file_gateway(gqlgate, tmp_path):
    return gqlgate(config=config("file", tmp_path, sdl=upstream_sdl()))


def test_a_document_that_does_not_validate_is_refused_with_every_error_and_never_reaches_the_upstream(
        file_gateway, strawberry_upstream):
    before = upstream_posts(strawberry_upstream)
    assert_misspelt_refused(post_graphql(file_gateway.url, MISSPELT, headers=GRAPHQL_RESPONSE))
    two = post_graphql(file_gateway.url, "{ books { titel } nope }", headers=GRAPHQL_RESPONSE)
    body = assert_gateway_error(two, 400, "GRAPHQL_VALIDATION_FAILED")
    assert [e["locations"] for e in body["errors"]] == [[{"line": 1, "column": 11}], [{"line": 1, "column": 19}]], body
    assert {e["extensions"]["code"] for e in body["errors"]} == {"GRAPHQL_VALIDATION_FAILED"}
    assert upstream_posts(strawberry_upstream) == before
    ok = post_graphql(file_gateway.url, BOOK, variables={"id": "1"})
    assert ok.status == 200 and ok.json()["data"]["book"]["title"], str(ok)
    assert upstream_posts(strawberry_upstream) == before + 1


@pytest.mark.parametrize("variables, message", [
    ({}, 'Variable "$id" of required type "ID!" was not provided.'),
    ({"id": None}, 'Variable "$id" of non-null type "ID!" must not be null.'),
    ({"id": True}, 'Variable "$id" got invalid value true; ID cannot represent value: true'),
])
def test_variables_that_cannot_be_coerced_are_bad_user_input(file_gateway, strawberry_upstream, variables, message):
    before = upstream_posts(strawberry_upstream)
    body = assert_gateway_error(post_graphql(file_gateway.url, BOOK, variables=variables, headers=GRAPHQL_RESPONSE),
                                400, "BAD_USER_INPUT")
    assert [e["message"] for e in body["errors"]] == [message]
    assert upstream_posts(strawberry_upstream) == before


def test_an_input_object_is_coerced_field_by_field(file_gateway, strawberry_upstream):
    mutation = "mutation($r: ReviewInput!) { createReview(episode: JEDI, review: $r) { stars } }"
    before = upstream_posts(strawberry_upstream)
    body = assert_gateway_error(
        post_graphql(file_gateway.url, mutation, variables={"r": {"stars": "five", "extra": 1}}, headers=GRAPHQL_RESPONSE),
        400, "BAD_USER_INPUT")
    messages = sorted(e["message"] for e in body["errors"])
    assert any('at "r.stars"' in m and "Int cannot represent non-integer value" in m for m in messages), messages
    assert any('Field "extra" is not defined by type "ReviewInput"' in m for m in messages), messages
    assert upstream_posts(strawberry_upstream) == before


def test_every_transport_is_refused_the_same_way(file_gateway, strawberry_upstream):
    before = upstream_posts(strawberry_upstream)
    assert_misspelt_refused(get_graphql(file_gateway.url, MISSPELT, headers=GRAPHQL_RESPONSE))
    bad_subscription = "subscription { countdown(from: 2) { nope } }"
    for accept in (SSE, MULTIPART):
        r = post_graphql(file_gateway.url, bad_subscription, headers=accept)
        # Apollo's multipart Accept admits application/json, where a request error is 200.
        assert_gateway_error(r, 200 if "application/json" in accept["Accept"] else 400, "GRAPHQL_VALIDATION_FAILED")
    assert upstream_posts(strawberry_upstream) == before


@pytest.mark.parametrize("subprotocol", [TRANSPORT_WS, LEGACY_WS])
def test_a_websocket_operation_that_does_not_validate_gets_the_protocols_error_message(file_gateway, subprotocol):
    ws = initialised(file_gateway, subprotocol)
    try:
        start = "subscribe" if subprotocol == TRANSPORT_WS else "start"
        send(ws, {"id": "1", "type": start, "payload": {"query": "subscription { countdown(from: 2) { nope } }"}})
        error = recv_type(ws, "error")
        errors = error["payload"] if subprotocol == TRANSPORT_WS else [error["payload"]]
        assert error["id"] == "1"
        assert errors[0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED", error
        assert "countdown" in errors[0]["message"], error
        # The socket stays open: a valid operation on it runs.
        send(ws, {"id": "2", "type": start, "payload": {"query": "subscription { countdown(from: 1) }"}})
        assert recv_type(ws, "next", "data")["id"] == "2"
    finally:
        ws.close()


def test_the_file_is_read_again_when_it_changes(gqlgate, tmp_path):
    sdl = upstream_sdl()
    gw = gqlgate(config=config("file", tmp_path, sdl=sdl.replace("  bookCount: Int!\n", "")))
    assert_gateway_error(post_graphql(gw.url, "{ bookCount }", headers=GRAPHQL_RESPONSE), 400, "GRAPHQL_VALIDATION_FAILED")
    (tmp_path / "schema.graphql").write_text(sdl)
    wait_until(lambda: post_graphql(gw.url, "{ bookCount }").status == 200, timeout=10, what="the new schema", alive=gw.proc)
    wait_for_record(gw.proc, msg="schema changed")
    # A file that no longer builds keeps the schema held, and says so once.
    (tmp_path / "schema.graphql").write_text("type Query {")
    wait_for_record(gw.proc, msg="schema refresh failed")
    assert post_graphql(gw.url, "{ bookCount }").status == 200
    assert_misspelt_refused(post_graphql(gw.url, MISSPELT, headers=GRAPHQL_RESPONSE))
    series = scrape(gw)
    assert series["gqlgate_schema_loaded"] == 1
    assert series['gqlgate_schema_refreshes_total{outcome="failed"}'] >= 1


def test_introspection_loads_the_upstreams_schema(gqlgate, tmp_path, strawberry_upstream):
    gw = gqlgate(config=config("introspection", tmp_path))
    wait_until(lambda: scrape(gw).get("gqlgate_schema_loaded") == 1, timeout=15, what="the schema", alive=gw.proc)
    record = wait_for_record(gw.proc, msg="schema loaded")
    assert record["source"] == "introspection"
    before = upstream_posts(strawberry_upstream)
    missing_argument = post_graphql(gw.url, "{ book { title } }", headers=GRAPHQL_RESPONSE)
    body = assert_gateway_error(missing_argument, 400, "GRAPHQL_VALIDATION_FAILED")
    assert "argument" in body["errors"][0]["message"] and '"id"' in body["errors"][0]["message"], body
    assert upstream_posts(strawberry_upstream) == before
    # A field the schema lacks may be one the upstream has since gained: one early refresh a
    # period (an introspection query, the only request upstream), then the refusal.
    assert_misspelt_refused(post_graphql(gw.url, MISSPELT, headers=GRAPHQL_RESPONSE))
    assert upstream_posts(strawberry_upstream) == before + 1
    assert_misspelt_refused(post_graphql(gw.url, MISSPELT, headers=GRAPHQL_RESPONSE))
    assert upstream_posts(strawberry_upstream) == before + 1
    series = scrape(gw)
    assert series['gqlgate_schema_refreshes_total{outcome="loaded"}'] == 1
    assert series['gqlgate_schema_refreshes_total{outcome="unchanged"}'] == 1


def test_until_the_upstream_answers_introspection_gqlgate_is_schema_blind(gqlgate, tmp_path, free_upstream):
    """A sidecar starts before its app: requests pass through until the schema loads."""
    gw = gqlgate(upstream=free_upstream.url, config=config("introspection", tmp_path))
    wait_for_record(gw.proc, msg="schema not loaded")
    assert scrape(gw)["gqlgate_schema_loaded"] == 0
    r = post_graphql(gw.url, MISSPELT, headers=GRAPHQL_RESPONSE)
    assert r.json()["errors"][0]["extensions"]["code"] != "GRAPHQL_VALIDATION_FAILED", str(r)
    free_upstream.start()
    wait_until(lambda: scrape(gw).get("gqlgate_schema_loaded") == 1, timeout=20, what="the schema", alive=gw.proc)
    assert_misspelt_refused(post_graphql(gw.url, MISSPELT, headers=GRAPHQL_RESPONSE))
    assert find_record(gw.proc, msg="schema loaded") is not None


def test_validate_false_passes_everything_on_and_logs_what_would_be_refused_once(gqlgate, tmp_path, strawberry_upstream):
    gw = gqlgate(config=config("file", tmp_path, sdl=upstream_sdl(), extra=", validate: false"))
    before = upstream_posts(strawberry_upstream)
    for _ in range(2):
        r = post_graphql(gw.url, MISSPELT, headers=GRAPHQL_RESPONSE)
        assert r.json()["errors"], str(r)  # the upstream's own answer
    assert upstream_posts(strawberry_upstream) == before + 2
    record = wait_for_record(gw.proc, msg="An operation schema.validate would refuse")
    assert record["code"] == "GRAPHQL_VALIDATION_FAILED"
    assert 'Cannot query field "titel" on type "Book". Did you mean "title"?' in record["errors"]
    lines = [line for line in gw.proc.stderr().splitlines() if "schema.validate would refuse" in line]
    assert len(lines) == 1, lines


def test_check_config_and_run_refuse_a_schema_file_that_does_not_build(gqlgate_bin, tmp_path):
    import subprocess
    cfg = tmp_path / "gqlgate.yaml"
    cfg.write_text("upstream: {url: http://127.0.0.1:9/graphql}\n" + config("file", tmp_path, sdl="type Query { a: Nope }"))
    checked = subprocess.run([gqlgate_bin, "check-config", str(cfg)], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 1
    assert "schema.file" in checked.stderr and "Unknown type" in checked.stderr, checked.stderr
    ran = subprocess.run([gqlgate_bin, "run", "--config", str(cfg)], capture_output=True, text=True, timeout=30)
    assert ran.returncode != 0
    assert "schema.file" in ran.stderr, ran.stderr


def test_a_schema_source_file_needs_a_file(gqlgate_bin, tmp_path):
    import subprocess
    cfg = tmp_path / "gqlgate.yaml"
    cfg.write_text("upstream: {url: http://127.0.0.1:9/graphql}\nschema: {source: file}\n")
    checked = subprocess.run([gqlgate_bin, "check-config", str(cfg)], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 1 and "schema.file: required when schema.source is file" in checked.stderr, checked.stderr


def test_a_persisted_document_that_does_not_validate_is_reported_at_load(gqlgate, tmp_path):
    manifest = tmp_path / "relay.json"
    manifest.write_text(json.dumps({"good": "{ books { title } }", "stale": "{ books { isbn } }"}))
    extra = f"persisted_documents: {{manifests: [{json.dumps(str(manifest))}]}}\n"
    gw = gqlgate(config=config("file", tmp_path, sdl=upstream_sdl()) + extra)
    record = wait_for_record(gw.proc, msg="A persisted document does not validate against the schema")
    assert record["id"] == "stale"
    assert record["errors"] == ['Cannot query field "isbn" on type "Book".'], record
    lines = [line for line in gw.proc.stderr().splitlines() if "does not validate against the schema" in line]
    assert len(lines) == 1, lines
    assert_gateway_error(curl(gw.url, json_body={"documentId": "stale"}, headers=GRAPHQL_RESPONSE), 400, "GRAPHQL_VALIDATION_FAILED")
    assert curl(gw.url, json_body={"documentId": "good"}).status == 200


def test_turning_validation_on_with_sighup_keeps_the_schema_held(gqlgate, tmp_path):
    gw = gqlgate(config=config("introspection", tmp_path, extra=", validate: false"))
    wait_until(lambda: scrape(gw).get("gqlgate_schema_loaded") == 1, timeout=15, what="the schema", alive=gw.proc)
    assert post_graphql(gw.url, "{ book { title } }").status == 200  # passed on: the upstream's own error
    gw.config_path.write_text(config("introspection", tmp_path))
    os.kill(gw.proc.pid, signal.SIGHUP)
    wait_until(lambda: post_graphql(gw.url, "{ book { title } }", headers=GRAPHQL_RESPONSE).status == 400,
               timeout=10, what="validation on", alive=gw.proc)
    series = scrape(gw)
    assert series["gqlgate_schema_loaded"] == 1
    assert series['gqlgate_schema_refreshes_total{outcome="loaded"}'] == 1, series
