"""Upstream credentials end to end: static headers, a rotating token file, OAuth2,
and an upstream WebSocket whose credentials are refused.

The token endpoint is ``token_auth.py`` (its own process); the Strawberry
upstream's ``/auth/graphql`` accepts only unexpired tokens it minted, over HTTP
and in a WebSocket's ``connection_init``, and ``/auth/revoke`` closes its
WebSockets as an upstream does when their credentials run out.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import sys
import time
import typing
import urllib.request

import pytest
from websockets.sync.client import ClientConnection, connect

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


def test_token_file_rewritten_in_place_with_the_same_stamp_is_reread_after_a_401(gqlgate, strawberry_upstream, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(mint(-1, 1))
    gw = gqlgate(strawberry_upstream.path("/auth/graphql"), config=f"auth:\n  bearer_token_file: {token_file}\n")
    assert post_graphql(gw.url, "{ hello }").status == 401
    # The same length, written in place (same inode), with the old time stamps put back:
    # to stat the file has not changed, but the 401 makes gqlgate read it again.
    before = os.stat(token_file)
    fresh = mint(3600, 2)
    assert len(fresh) == before.st_size
    with open(token_file, "r+") as f:
        f.write(fresh)
    os.utime(token_file, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(token_file)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
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
    assert "wrong-secret-value" not in r.text and "invalid_client" not in json.dumps(body)
    # The reason is the operator's, in the log; the secret is nowhere.
    wait_until(lambda: "invalid_client" in gw.proc.stderr(), timeout=5, what="the reason in the log")
    assert "wrong-secret-value" not in gw.proc.stderr()


# ---------------------------------------------------------------------------
# The upstream WebSocket


BOOK_ADDED = "subscription { bookAdded { title } }"
ADD_BOOK = 'mutation($t: String!) { addBook(title: $t, author: "WS") { id } }'


def book_event(ws: ClientConnection, timeout: float) -> str:
    """The title of the next ``bookAdded`` event on subscription ``books``; fails on any other message."""
    while True:
        message = json.loads(ws.recv(timeout=timeout))
        if message["type"] not in ("ping", "pong"):
            assert (message["type"], message.get("id")) == ("next", "books"), message
            return message["payload"]["data"]["bookAdded"]["title"]


def first_book_through(ws: ClientConnection, gateway_url: str, prefix: str, timeout: float = 15) -> str:
    """Adds books through gqlgate until one reaches ``ws``: books added before
    the subscription runs upstream (again) raise no event."""
    sent: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sent.append(f"{prefix} {len(sent)}")
        assert post_graphql(gateway_url, ADD_BOOK, {"t": sent[-1]}).status == 200
        try:
            title = book_event(ws, timeout=0.5)
        except TimeoutError:
            continue
        assert title in sent, (title, sent)
        return title
    pytest.fail(f"no bookAdded event within {timeout}s for {sent}")


def revoke_upstream_sockets(upstream: typing.Any, code: int) -> int:
    """Makes the upstream revoke its WebSockets' tokens and close them with ``code``; how many it closed."""
    request = urllib.request.Request(upstream.path(f"/auth/revoke?code={code}"), method="POST")
    with urllib.request.urlopen(request, timeout=5) as r:
        return json.loads(r.read())["closed"]


def upstream_sockets(upstream: typing.Any) -> dict[str, int]:
    """The upstream's WebSockets at ``/auth/graphql``: open now with an accepted token, refused so far."""
    with urllib.request.urlopen(upstream.path("/auth/sockets"), timeout=5) as r:
        return json.loads(r.read())


@pytest.mark.parametrize("code", [4401, 4403])
def test_upstream_websocket_refused_reopens_with_a_fresh_token_and_keeps_the_stream(
        gqlgate, strawberry_upstream, token_endpoint, code):
    endpoint = token_endpoint()
    gw = gqlgate(strawberry_upstream.path("/auth/graphql"), config=oauth2_config(endpoint), env=SECRET_ENV)
    with connect(f"ws://127.0.0.1:{gw.port}/graphql", subprotocols=["graphql-transport-ws"], open_timeout=10) as ws:
        ws.send(json.dumps({"type": "connection_init"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "connection_ack"
        ws.send(json.dumps({"type": "subscribe", "id": "books", "payload": {"query": BOOK_ADDED}}))
        first_book_through(ws, gw.url, "before")
        assert endpoint.issued() == 1, endpoint.calls()
        refused = upstream_sockets(strawberry_upstream)["refused"]

        # The upstream revokes the token and closes the socket: only a fresh
        # token gets a new one past its connection_init.
        assert revoke_upstream_sockets(strawberry_upstream, code) == 1
        wait_until(lambda: endpoint.issued() == 2, timeout=10, what="gqlgate to ask for a fresh token")
        first_book_through(ws, gw.url, "after")
        # The first socket gqlgate opened again already carried the fresh token.
        assert upstream_sockets(strawberry_upstream) == {"open": 1, "refused": refused}
        for title in ("steady 1", "steady 2"):
            assert post_graphql(gw.url, ADD_BOOK, {"t": title}).status == 200
            while book_event(ws, timeout=10) != title:
                pass
    assert endpoint.issued() == 2, endpoint.calls()
