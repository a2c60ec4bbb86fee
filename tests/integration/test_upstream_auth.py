"""Upstream credentials end to end: static headers, a rotating token file, OAuth2.

The token endpoint is ``token_auth.py`` (its own process); the Strawberry
upstream's ``/auth/graphql`` accepts only unexpired tokens it minted.
"""

from __future__ import annotations

import concurrent.futures
import json
import sys
import typing
import urllib.request

import pytest

from conftest import START_TIMEOUT, _RUNNING, _start_with_port_retry
from harness import (
    HERE,
    ProcessGroup,
    assert_gateway_error,
    clean_env,
    curl,
    free_port,
    post_graphql,
    wait_for_http,
    wait_until,
)
from token_auth import CLIENT_ID, CLIENT_SECRET, mint


class TokenEndpoint:
    def __init__(self, port: int) -> None:
        self.port = port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/token"

    def calls(self) -> dict[str, int]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/calls", timeout=5) as r:
            return json.loads(r.read())

    def issued(self) -> int:
        calls = self.calls()
        return calls["basic"] + calls["post"]

    def fail_next(self, times: int) -> None:
        urllib.request.urlopen(urllib.request.Request(
            f"http://127.0.0.1:{self.port}/fail?times={times}", method="POST"), timeout=5).read()


@pytest.fixture
def token_endpoint(proc_dir, request) -> typing.Iterator[typing.Callable[..., TokenEndpoint]]:
    group = ProcessGroup(proc_dir, _RUNNING)

    def start(*args: str) -> TokenEndpoint:
        ports: list[int] = []

        def launch():
            port = free_port()
            ports.append(port)
            proc = group.start("token-endpoint", [sys.executable, str(HERE / "token_auth.py"), "--port", str(port), *args],
                               env=clean_env({"PYTHONUNBUFFERED": "1"}), cwd=HERE)
            return proc, lambda: wait_for_http(f"http://127.0.0.1:{port}/calls", timeout=START_TIMEOUT, alive=proc)

        _start_with_port_retry(launch)
        return TokenEndpoint(ports[-1])

    try:
        yield start
    finally:
        group.stop_all()


def oauth2_config(endpoint: TokenEndpoint, client_auth: str = "basic") -> str:
    return (
        "auth:\n  oauth2:\n"
        f"    token_url: {endpoint.url}\n    client_id: {CLIENT_ID}\n    client_secret: ${{OAUTH_SECRET}}\n"
        f"    client_auth: {client_auth}\n"
    )


SECRET_ENV = {"OAUTH_SECRET": CLIENT_SECRET}


def test_static_headers_with_environment_values_go_upstream(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"),
                 config='auth:\n  headers: {X-Api-Key: "${UPSTREAM_KEY}", X-Tenant: "${TENANT:-blue}"}\n',
                 env={"UPSTREAM_KEY": "upstream-secret"})
    seen = post_graphql(gw.url, "{ x }").json()["data"]["headers"]
    assert seen["x-api-key"] == "upstream-secret" and seen["x-tenant"] == "blue", seen


def test_static_credentials_win_over_a_client_header_of_the_same_name(gqlgate, strawberry_upstream):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"),
                 config="auth:\n  headers: {X-Api-Key: gateway-key}\nheaders:\n  forward: [x-api-key]\n")
    seen = post_graphql(gw.url, "{ x }", headers={"X-Api-Key": "client-key"}).json()["data"]["headers"]
    assert seen["x-api-key"] == "gateway-key", seen


def test_bearer_token_file_is_sent_and_followed_when_it_rotates(gqlgate, strawberry_upstream, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(mint(3600, 1) + "\n")
    gw = gqlgate(strawberry_upstream.path("/auth/graphql"), config=f"auth:\n  bearer_token_file: {token_file}\n")
    r = post_graphql(gw.url, "{ hello }")
    assert r.status == 200, str(r)
    echo = gqlgate(strawberry_upstream.path("/echo-headers"), config=f"auth:\n  bearer_token_file: {token_file}\n")
    rotated = mint(3600, 2)
    (tmp_path / "token.next").write_text(rotated)
    (tmp_path / "token.next").replace(token_file)

    def rotated_token_sent() -> bool:
        return post_graphql(echo.url, "{ x }").json()["data"]["headers"]["authorization"] == f"Bearer {rotated}"

    wait_until(rotated_token_sent, timeout=5, what="the rotated token to be sent")


def test_expired_token_file_is_reread_after_a_401(gqlgate, strawberry_upstream, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(mint(-1, 1))
    gw = gqlgate(strawberry_upstream.path("/auth/graphql"), config=f"auth:\n  bearer_token_file: {token_file}\n")
    r = post_graphql(gw.url, "{ hello }")
    assert r.status == 401, str(r)
    token_file.write_text(mint(3600, 2))
    # The 401 marked the token rejected: the next operation reads the file at once.
    r = post_graphql(gw.url, "{ hello }")
    assert r.status == 200, str(r)


def test_hundred_concurrent_queries_cause_one_token_fetch(gqlgate, strawberry_upstream, token_endpoint):
    endpoint = token_endpoint("--delay", "0.5")
    gw = gqlgate(strawberry_upstream.path("/auth/graphql"), config=oauth2_config(endpoint), env=SECRET_ENV)

    def query(i: int) -> int:
        body = json.dumps({"query": "{ hello }"}).encode()
        req = urllib.request.Request(gw.url, data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status

    with concurrent.futures.ThreadPoolExecutor(max_workers=100) as pool:
        statuses = list(pool.map(query, range(100)))
    assert statuses == [200] * 100
    assert endpoint.issued() == 1, endpoint.calls()


def test_post_client_authentication(gqlgate, strawberry_upstream, token_endpoint):
    endpoint = token_endpoint()
    gw = gqlgate(strawberry_upstream.path("/auth/graphql"), config=oauth2_config(endpoint, "post"), env=SECRET_ENV)
    assert post_graphql(gw.url, "{ hello }").status == 200
    assert endpoint.calls()["post"] == 1, endpoint.calls()


def test_expired_token_is_refreshed_and_the_operation_succeeds(gqlgate, strawberry_upstream, token_endpoint):
    # Tokens really last 1 s but claim an hour, so gqlgate keeps sending the
    # stale one until the upstream's 401 makes it fetch a new one.
    endpoint = token_endpoint("--lifetime", "1", "--claimed-lifetime", "3600")
    gw = gqlgate(strawberry_upstream.path("/auth/graphql"), config=oauth2_config(endpoint), env=SECRET_ENV)
    echo = gqlgate(strawberry_upstream.path("/echo-headers"), config=oauth2_config(endpoint), env=SECRET_ENV)
    assert post_graphql(gw.url, "{ hello }").status == 200
    stale = post_graphql(echo.url, "{ x }").json()["data"]["headers"]["authorization"]

    def token_expired() -> bool:
        return curl(strawberry_upstream.path("/auth/graphql"), json_body={"query": "{ hello }"},
                    headers={"Authorization": stale}).status == 401

    wait_until(token_expired, timeout=5, what="the first token to expire")
    issued = endpoint.issued()
    mutation = post_graphql(gw.url, 'mutation { addBook(title: "Fresh token", author: "T") { title } }')
    assert mutation.status == 200, str(mutation)
    assert mutation.json()["data"]["addBook"]["title"] == "Fresh token"
    assert endpoint.issued() == issued + 1


def test_failing_token_endpoint_is_502_and_not_hammered(gqlgate, strawberry_upstream, token_endpoint):
    endpoint = token_endpoint()
    endpoint.fail_next(100)
    gw = gqlgate(strawberry_upstream.path("/auth/graphql"), config=oauth2_config(endpoint), env=SECRET_ENV)
    for _ in range(10):
        body = assert_gateway_error(post_graphql(gw.url, "{ hello }"), 502, "UPSTREAM_AUTH_FAILED")
        assert CLIENT_SECRET not in json.dumps(body)
    assert endpoint.calls()["failed"] == 1, endpoint.calls()
    endpoint.fail_next(0)
    wait_until(lambda: post_graphql(gw.url, "{ hello }").status == 200, timeout=10,
               what="the token endpoint to be asked again after its backoff")


def test_wrong_client_secret_is_502_without_the_secret(gqlgate, strawberry_upstream, token_endpoint):
    endpoint = token_endpoint()
    gw = gqlgate(strawberry_upstream.path("/auth/graphql"), config=oauth2_config(endpoint),
                 env={"OAUTH_SECRET": "wrong-secret-value"})
    r = post_graphql(gw.url, "{ hello }")
    body = assert_gateway_error(r, 502, "UPSTREAM_AUTH_FAILED")
    assert "wrong-secret-value" not in r.text and "invalid_client" in json.dumps(body)
    assert "wrong-secret-value" not in gw.proc.stderr()
