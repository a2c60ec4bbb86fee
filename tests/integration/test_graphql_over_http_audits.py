"""graphql-http's server audit suite, against gqlgate in front of the Strawberry upstream.

The suite (``src/audits/server.ts`` of github.com/graphql/graphql-http, at
``AUDIT_SUITE_COMMIT``) checks a server against the GraphQL over HTTP spec with
61 audits: 13 MUST, 23 SHOULD, 25 MAY. Each one is a test here, named after its
id and level (``test_4655_MUST_...``; the loops of the suite are parametrized,
the id of each case is the audit's id), with the suite's name as the docstring
and the same request and assertions:

- the suite sends its requests with ``fetch``, which adds ``Accept: */*`` when
  the audit sets no ``Accept`` (so "accept is missing" in 80D8 is ``*/*`` on the
  wire), sends a string body without a ``Content-Type`` as
  ``text/plain;charset=UTF-8`` (9ABE), and a POST without a body with
  ``Content-Length: 0`` (A5BF); ``post`` and ``get`` do the same (fetch's
  other defaults, ``User-Agent``, ``Accept-Language``, ``Sec-Fetch-Mode`` and
  ``Accept-Encoding``, play no part in what is audited and are left to curl);
- request bodies are ``JSON.stringify``'s: compact, non-ASCII as raw UTF-8;
- GET parameters are encoded as ``URLSearchParams`` encodes them (``+`` for
  spaces);
- ``header(...).toContain`` is a case-sensitive substring test of the
  ``Content-Type``; a body is read as UTF-8 JSON, and ``data``/``errors`` are
  looked up as keys of it.

Counts per level: ``-k MUST``, ``-k SHOULD``, ``-k MAY`` (only the audits' test
names hold those words). The gateway's config loads the upstream's schema as
SDL, generated from ``upstream_app.schema`` at test time
(``schema: {source: file}``). See docs/graphql-over-http.md.
"""

from __future__ import annotations

import json
import typing
import urllib.parse
from pathlib import Path

import pytest

import upstream_app
from conftest import Gateway, Upstream, _factory_fixture
from harness import Response, curl

# The suite's revision these tests follow (2025-10-08, "fix(audits): incorrect status code range").
AUDIT_SUITE_COMMIT = "08b4ed2cb320d9bc78d96c3801f1f6bed5c61553"


GRAPHQL_RESPONSE_JSON = "application/graphql-response+json"
APPLICATION_JSON = "application/json"
# What fetch sends when a request sets no Accept.
FETCH_DEFAULT_ACCEPT = "*/*"
# What fetch sends as the Content-Type of a string body when the request sets none.
FETCH_STRING_BODY_TYPE = "text/plain;charset=UTF-8"

TYPENAME = "{ __typename }"
TYPE_BY_NAME = "query Type($name: String!) { __type(name: $name) { name } }"
# Not a field of any schema. In fact not a name at all (a name cannot start with
# a digit): the suite's "validation failure" audits send a document that does not parse.
NO_SUCH_FIELD = "{ 8f31403dfe404bccbb0e835f2629c6a7 }"
# null for a non-null variable. The variable is never used, so the document also
# fails validation (All Variables Used), which a validating server reports first.
COERCION_FAILURE = "query CoerceFailure($id: ID!){ __typename }"
NOT_JSON = '{ "not a JSON'

# The suite's loops over values of the wrong type, named by its extendedTypeof.
NOT_A_STRING = {"object": {"obj": "ect"}, "number": 0, "boolean": False, "array": ["array"]}
NOT_A_MAP = {"string": "string", "number": 0, "boolean": False, "array": ["array"]}
NULLABLE_PARAMETERS = ["variables", "operationName", "extensions"]

# ---------------------------------------------------------------------------
# The gateway under audit


@pytest.fixture(scope="module")
def schema_sdl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Strawberry upstream's schema as SDL, printed from the app itself so it never goes stale."""
    path = tmp_path_factory.mktemp("audit-schema") / "upstream.graphql"
    path.write_text(upstream_app.schema.as_str() + "\n")
    return path


def audit_config(schema_file: Path) -> str:
    # The CSRF rule (on by default, as the contract sets it) counts a GET without Content-Type
    # as a request any page could send, and refuses it without a preflight header: the suite's
    # plain GETs (5A70, D6D5, 6A70; MAY) are such requests. An API whose GET clients send none
    # turns it off, as here; docs/graphql-over-http.md says why.
    return f"schema: {{source: file, file: {json.dumps(str(schema_file))}}}\ncsrf: {{enabled: false}}\n"


@pytest.fixture(scope="module")
def audit_gqlgate(
    request: pytest.FixtureRequest, gqlgate_bin: str, proc_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> typing.Iterator[typing.Any]:
    yield from _factory_fixture(request, gqlgate_bin, proc_dir, tmp_path_factory.mktemp("audits"))


@pytest.fixture(scope="module")
def gw(audit_gqlgate: typing.Any, strawberry_upstream: Upstream, schema_sdl: Path) -> Gateway:
    """One gqlgate, default settings plus the schema, in front of an upstream where ``{ __typename }`` is valid."""
    direct = curl(
        strawberry_upstream.url,
        data=json.dumps({"query": TYPENAME}),
        headers={"X-Test-Probe": "1", "Accept": APPLICATION_JSON},
    )
    assert direct.status == 200 and direct.json() == {"data": {"__typename": "Query"}}, (
        f"the audits need an upstream where {{ __typename }} runs; Strawberry answered:\n{direct}"
    )
    return audit_gqlgate(strawberry_upstream.url, config=audit_config(schema_sdl))


# ---------------------------------------------------------------------------
# Requests, as the suite's fetch sends them


def post(
    gw: Gateway,
    body: typing.Any = None,
    *,
    raw: typing.Optional[str] = None,
    content_type: typing.Optional[str] = APPLICATION_JSON,
    accept: typing.Optional[str] = None,
) -> Response:
    """POST ``JSON.stringify(body)`` (or the text ``raw``; neither: an empty body, ``Content-Length: 0``)."""
    if raw is not None:
        data = raw.encode()
    elif body is not None:
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    else:
        data = b""
    return curl(gw.url, data=data, content_type=content_type, headers={"Accept": accept or FETCH_DEFAULT_ACCEPT})


def get(gw: Gateway, params: dict[str, str], *, accept: typing.Optional[str] = None) -> Response:
    """GET with ``params`` set on the URL's ``searchParams``."""
    url = gw.url + "?" + urllib.parse.urlencode(params)
    return curl(url, headers={"Accept": accept or FETCH_DEFAULT_ACCEPT})


def variables_in_url(variables: dict[str, typing.Any]) -> str:
    return json.dumps(variables, separators=(",", ":"))


# ---------------------------------------------------------------------------
# What the suite asserts (its `ressert`)


def expect_status(r: Response, code: int) -> None:
    assert r.status == code, f"Response status code is not {code}:\n{r}"


def expect_status_between(r: Response, low: int, high: int) -> None:
    assert low <= r.status <= high, f"Response status is not between {low} and {high}:\n{r}"


def expect_status_in(r: Response, ranges: list[tuple[int, int]]) -> None:
    assert any(low <= r.status <= high for low, high in ranges), (
        f"Response status is not between any of {ranges}:\n{r}"
    )


def expect_content_type_containing(r: Response, part: str) -> None:
    assert part in (r.header("Content-Type") or ""), f"Response header content-type does not contain {part}:\n{r}"


def execution_result(r: Response) -> dict[str, typing.Any]:
    try:
        text = r.body.decode("utf-8")
    except UnicodeDecodeError:
        raise AssertionError(f"Response body is not UTF-8 encoded:\n{r}") from None
    try:
        body = json.loads(text)
    except ValueError:
        raise AssertionError(f"Response body is not valid JSON:\n{r}") from None
    assert isinstance(body, dict), f"Response body is not a JSON object:\n{r}"
    return body


def expect_no_errors(r: Response) -> None:
    assert "errors" not in execution_result(r), f'Response body execution result has a property "errors":\n{r}'


def expect_no_data(r: Response) -> None:
    assert "data" not in execution_result(r), f'Response body execution result data is not "undefined":\n{r}'


# ---------------------------------------------------------------------------
# Media types


def test_22EB_SHOULD_accept_graphql_response_json_and_match_the_content_type(gw):
    """22EB SHOULD accept application/graphql-response+json and match the content-type"""
    r = post(gw, {"query": TYPENAME}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 200)
    expect_content_type_containing(r, GRAPHQL_RESPONSE_JSON)


def test_4655_MUST_accept_application_json_and_match_the_content_type(gw):
    """4655 MUST accept application/json and match the content-type"""
    r = post(gw, {"query": TYPENAME}, accept=APPLICATION_JSON)
    expect_status(r, 200)
    expect_content_type_containing(r, APPLICATION_JSON)


def test_47DE_SHOULD_accept_any_media_type_and_use_application_json(gw):
    """47DE SHOULD accept */* and use application/json for the content-type"""
    r = post(gw, {"query": TYPENAME}, accept="*/*")
    expect_status(r, 200)
    expect_content_type_containing(r, APPLICATION_JSON)


def test_80D8_SHOULD_assume_application_json_when_accept_is_missing(gw):
    """80D8 SHOULD assume application/json content-type when accept is missing

    The audit sets no Accept; fetch then sends ``Accept: */*``, and so does this test.
    """
    r = post(gw, {"query": TYPENAME})
    expect_status(r, 200)
    expect_content_type_containing(r, APPLICATION_JSON)


def test_82A3_MUST_use_utf8_encoding_when_responding(gw):
    """82A3 MUST use utf-8 encoding when responding

    The suite decodes with a non-fatal TextDecoder, which never fails; this test
    decodes strictly.
    """
    r = post(gw, {"query": TYPENAME})
    expect_status(r, 200)
    try:
        r.body.decode("utf-8")
    except UnicodeDecodeError:
        raise AssertionError(f"Response body is not UTF-8 encoded:\n{r}") from None


def test_BF61_MUST_accept_utf8_encoded_request(gw):
    """BF61 MUST accept utf-8 encoded request"""
    r = post(gw, {"query": '{ __type(name: "Run🏃Swim🏊") { name } }'}, content_type="application/json; charset=utf-8")
    expect_status(r, 200)


def test_78D5_MUST_assume_utf8_in_request_if_encoding_is_unspecified(gw):
    """78D5 MUST assume utf-8 in request if encoding is unspecified"""
    r = post(gw, {"query": TYPENAME})
    expect_status(r, 200)


# ---------------------------------------------------------------------------
# Request


def test_2C94_MUST_accept_post_requests(gw):
    """2C94 MUST accept POST requests"""
    r = post(gw, {"query": TYPENAME})
    expect_status(r, 200)


def test_5A70_MAY_accept_form_urlencoded_get_requests(gw):
    """5A70 MAY accept application/x-www-form-urlencoded formatted GET requests"""
    r = get(gw, {"query": TYPENAME})
    expect_status(r, 200)


def test_9C48_MAY_NOT_allow_executing_mutations_on_get_requests(gw):
    """9C48 MAY NOT allow executing mutations on GET requests"""
    r = get(gw, {"query": "mutation { __typename }"}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status_between(r, 400, 499)


def test_9ABE_SHOULD_respond_4xx_if_content_type_is_not_supplied_on_post(gw):
    """9ABE SHOULD respond with 4xx status code if content-type is not supplied on POST requests

    The audit sets no Content-Type on its string body; fetch then sends
    ``text/plain;charset=UTF-8``, and so does this test.
    """
    r = post(gw, raw=json.dumps({"query": TYPENAME}, separators=(",", ":")), content_type=FETCH_STRING_BODY_TYPE)
    expect_status_between(r, 400, 499)


def test_03D4_MUST_accept_application_json_post_requests(gw):
    """03D4 MUST accept application/json POST requests"""
    r = post(gw, {"query": TYPENAME})
    expect_status(r, 200)


def test_A5BF_MAY_use_400_when_request_body_is_missing_on_post(gw):
    """A5BF MAY use 400 status code when request body is missing on POST"""
    r = post(gw)
    expect_status(r, 400)


# ---------------------------------------------------------------------------
# Request parameters


def test_423L_MAY_use_400_on_missing_query_parameter(gw):
    """423L MAY use 400 status code on missing {query} parameter"""
    r = post(gw, {"notquery": TYPENAME}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 400)


@pytest.mark.parametrize(
    "query", [pytest.param(v, id=f"LKJ{i}-{kind}") for i, (kind, v) in enumerate(NOT_A_STRING.items())]
)
def test_LKJx_MAY_use_400_on_non_string_query_parameter(gw, query):
    """LKJ0..LKJ3 MAY use 400 status code on {object, number, boolean, array} {query} parameter"""
    r = post(gw, {"query": query})
    expect_status(r, 400)


def test_34A2_SHOULD_allow_string_query_when_accepting_graphql_response_json(gw):
    """34A2 SHOULD allow string {query} parameter when accepting application/graphql-response+json"""
    r = post(gw, {"query": TYPENAME}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 200)


def test_13EE_MUST_allow_string_query_when_accepting_application_json(gw):
    """13EE MUST allow string {query} parameter when accepting application/json"""
    r = post(gw, {"query": TYPENAME}, accept=APPLICATION_JSON)
    expect_status(r, 200)
    expect_no_errors(r)


@pytest.mark.parametrize(
    "operation_name", [pytest.param(v, id=f"6C0{i}-{kind}") for i, (kind, v) in enumerate(NOT_A_STRING.items())]
)
def test_6C0x_MAY_use_400_on_non_string_operation_name_parameter(gw, operation_name):
    """6C00..6C03 MAY use 400 status code on {object, number, boolean, array} {operationName} parameter"""
    r = post(gw, {"operationName": operation_name, "query": TYPENAME})
    expect_status(r, 400)


def test_8161_SHOULD_allow_string_operation_name_when_accepting_graphql_response_json(gw):
    """8161 SHOULD allow string {operationName} parameter when accepting application/graphql-response+json"""
    r = post(gw, {"operationName": "Query", "query": "query Query { __typename }"}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 200)


def test_B8B3_MUST_allow_string_operation_name_when_accepting_application_json(gw):
    """B8B3 MUST allow string {operationName} parameter when accepting application/json"""
    r = post(gw, {"operationName": "Query", "query": "query Query { __typename }"}, accept=APPLICATION_JSON)
    expect_status(r, 200)
    expect_no_errors(r)


@pytest.mark.parametrize(
    "parameter", [pytest.param(p, id=f"94B{i}-{p}") for i, p in enumerate(NULLABLE_PARAMETERS)]
)
def test_94Bx_SHOULD_allow_null_parameter_when_accepting_graphql_response_json(gw, parameter):
    """94B0..94B2 SHOULD allow null {variables, operationName, extensions} parameter when accepting
    application/graphql-response+json"""
    r = post(gw, {"query": TYPENAME, parameter: None}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 200)
    expect_no_errors(r)


@pytest.mark.parametrize(
    "parameter", [pytest.param(p, id=f"022{i}-{p}") for i, p in enumerate(NULLABLE_PARAMETERS)]
)
def test_022x_MUST_allow_null_parameter_when_accepting_application_json(gw, parameter):
    """0220..0222 MUST allow null {variables, operationName, extensions} parameter when accepting application/json"""
    r = post(gw, {"query": TYPENAME, parameter: None}, accept=APPLICATION_JSON)
    expect_status(r, 200)
    expect_no_errors(r)


@pytest.mark.parametrize(
    "variables", [pytest.param(v, id=f"476{i}-{kind}") for i, (kind, v) in enumerate(NOT_A_MAP.items())]
)
def test_476x_MAY_use_400_on_non_map_variables_parameter(gw, variables):
    """4760..4763 MAY use 400 status code on {string, number, boolean, array} {variables} parameter"""
    r = post(gw, {"query": TYPENAME, "variables": variables})
    expect_status(r, 400)


def test_2EA1_SHOULD_allow_map_variables_when_accepting_graphql_response_json(gw):
    """2EA1 SHOULD allow map {variables} parameter when accepting application/graphql-response+json"""
    r = post(gw, {"query": TYPE_BY_NAME, "variables": {"name": "sometype"}}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 200)


def test_28B9_MUST_allow_map_variables_when_accepting_application_json(gw):
    """28B9 MUST allow map {variables} parameter when accepting application/json"""
    r = post(gw, {"query": TYPE_BY_NAME, "variables": {"name": "sometype"}}, accept=APPLICATION_JSON)
    expect_status(r, 200)
    expect_no_errors(r)


def test_D6D5_MAY_allow_json_variables_in_get_when_accepting_graphql_response_json(gw):
    """D6D5 MAY allow URL-encoded JSON string {variables} parameter in GETs when accepting
    application/graphql-response+json"""
    params = {"query": TYPE_BY_NAME, "variables": variables_in_url({"name": "sometype"})}
    r = get(gw, params, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 200)
    expect_no_errors(r)


def test_6A70_MAY_allow_json_variables_in_get_when_accepting_application_json(gw):
    """6A70 MAY allow URL-encoded JSON string {variables} parameter in GETs when accepting application/json"""
    params = {"query": TYPE_BY_NAME, "variables": variables_in_url({"name": "sometype"})}
    r = get(gw, params, accept=APPLICATION_JSON)
    expect_status(r, 200)
    expect_no_errors(r)


@pytest.mark.parametrize(
    "extensions", [pytest.param(v, id=f"58B{i}-{kind}") for i, (kind, v) in enumerate(NOT_A_MAP.items())]
)
def test_58Bx_MAY_use_400_on_non_map_extensions_parameter(gw, extensions):
    """58B0..58B3 MAY use 400 status code on {string, number, boolean, array} {extensions} parameter"""
    r = post(gw, {"query": TYPENAME, "extensions": extensions})
    expect_status(r, 400)


def test_428F_SHOULD_allow_map_extensions_when_accepting_graphql_response_json(gw):
    """428F SHOULD allow map {extensions} parameter when accepting application/graphql-response+json"""
    r = post(gw, {"query": TYPENAME, "extensions": {"some": "value"}}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 200)


def test_1B7A_MUST_allow_map_extensions_when_accepting_application_json(gw):
    """1B7A MUST allow map {extensions} parameter when accepting application/json"""
    r = post(gw, {"query": TYPENAME, "extensions": {"some": "value"}}, accept=APPLICATION_JSON)
    expect_status(r, 200)
    expect_no_errors(r)


def test_B6DC_MAY_use_2xx_4xx_or_5xx_on_json_parsing_failure_when_accepting_application_json(gw):
    """B6DC MAY use 2xx, 4xx, or 5xx status codes on JSON parsing failure when accepting application/json"""
    r = post(gw, raw=NOT_JSON, accept=APPLICATION_JSON)
    expect_status_in(r, [(200, 299), (400, 499), (500, 599)])


def test_BCF8_SHOULD_use_400_on_json_parsing_failure_when_accepting_application_json(gw):
    """BCF8 SHOULD use 400 status code on JSON parsing failure when accepting application/json"""
    r = post(gw, raw=NOT_JSON, accept=APPLICATION_JSON)
    expect_status(r, 400)


def test_B7N8_SHOULD_use_400_on_json_parsing_failure_when_accepting_graphql_response_json(gw):
    """B7N8 SHOULD use 400 status code on JSON parsing failure when accepting application/graphql-response+json"""
    r = post(gw, raw=NOT_JSON, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 400)


def test_8764_MAY_use_4xx_or_5xx_if_parameters_are_invalid(gw):
    """8764 MAY use 4xx or 5xx status codes if parameters are invalid"""
    r = post(gw, {"qeury": TYPENAME})
    expect_status_between(r, 400, 599)


def test_3E3A_MAY_use_400_if_parameters_are_invalid(gw):
    """3E3A MAY use 400 status code if parameters are invalid"""
    r = post(gw, {"qeury": TYPENAME})
    expect_status(r, 400)


# ---------------------------------------------------------------------------
# Response application/json


def test_572B_SHOULD_use_200_on_document_parsing_failure_when_accepting_application_json(gw):
    """572B SHOULD use 200 status code on document parsing failure when accepting application/json"""
    r = post(gw, {"query": "{"}, accept=APPLICATION_JSON)
    expect_status(r, 200)


def test_FDE2_SHOULD_use_200_on_document_validation_failure_when_accepting_application_json(gw):
    """FDE2 SHOULD use 200 status code on document validation failure when accepting application/json"""
    r = post(gw, {"query": NO_SUCH_FIELD}, accept=APPLICATION_JSON)
    expect_status(r, 200)


def test_7B9B_SHOULD_use_200_on_variable_coercion_failure_when_accepting_application_json(gw):
    """7B9B SHOULD use a status code of 200 on variable coercion failure when accepting application/json"""
    r = post(gw, {"query": COERCION_FAILURE, "variables": {"id": None}}, accept=APPLICATION_JSON)
    expect_status(r, 200)


# ---------------------------------------------------------------------------
# Response application/graphql-response+json


def test_865D_SHOULD_use_4xx_or_5xx_on_document_parsing_failure_when_accepting_graphql_response_json(gw):
    """865D SHOULD use 4xx or 5xx status codes on document parsing failure when accepting
    application/graphql-response+json"""
    r = post(gw, {"query": "{"}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status_between(r, 400, 599)


def test_556A_SHOULD_use_400_on_document_parsing_failure_when_accepting_graphql_response_json(gw):
    """556A SHOULD use 400 status code on document parsing failure when accepting application/graphql-response+json"""
    r = post(gw, {"query": "{"}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 400)


def test_D586_SHOULD_not_contain_data_on_document_parsing_failure_when_accepting_graphql_response_json(gw):
    """D586 SHOULD not contain the data entry on document parsing failure when accepting
    application/graphql-response+json"""
    r = post(gw, {"query": "{"}, accept=GRAPHQL_RESPONSE_JSON)
    expect_no_data(r)


def test_51FE_SHOULD_use_4xx_or_5xx_on_document_validation_failure_when_accepting_graphql_response_json(gw):
    """51FE SHOULD use 4xx or 5xx status codes on document validation failure when accepting
    application/graphql-response+json"""
    r = post(gw, {"query": NO_SUCH_FIELD}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status_between(r, 400, 599)


def test_74FF_SHOULD_use_400_on_document_validation_failure_when_accepting_graphql_response_json(gw):
    """74FF SHOULD use 400 status code on document validation failure when accepting application/graphql-response+json"""
    r = post(gw, {"query": NO_SUCH_FIELD}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 400)


def test_5E5B_SHOULD_not_contain_data_on_document_validation_failure_when_accepting_graphql_response_json(gw):
    """5E5B SHOULD not contain the data entry on document validation failure when accepting
    application/graphql-response+json"""
    r = post(gw, {"query": NO_SUCH_FIELD}, accept=GRAPHQL_RESPONSE_JSON)
    expect_no_data(r)


def test_86EE_SHOULD_use_400_on_variable_coercion_failure_when_accepting_graphql_response_json(gw):
    """86EE SHOULD use a status code of 400 on variable coercion failure when accepting
    application/graphql-response+json"""
    r = post(gw, {"query": COERCION_FAILURE, "variables": {"id": None}}, accept=GRAPHQL_RESPONSE_JSON)
    expect_status(r, 400)
