"""Clients never learn the gateway's secrets or internals when its upstream credentials fail:
no token endpoint URL (nor the password in it), no token file path, no endpoint's reason. They
get 502 `UPSTREAM_AUTH_FAILED` with a generic message; the reason goes to the log, with the URL's
password redacted."""

from __future__ import annotations

import json

from harness import assert_gateway_error, post_graphql, wait_until
from test_upstream_auth import CLIENT_ID, SECRET_ENV, token_endpoint  # noqa: F401

URL_PASSWORD = "TOKENURLPW"


def test_a_failing_token_endpoint_tells_clients_nothing_of_it(gqlgate, strawberry_upstream, token_endpoint):  # noqa: F811
    endpoint = token_endpoint()
    endpoint.fail_next(100)
    url = endpoint.url.replace("http://", f"http://tokuser:{URL_PASSWORD}@")
    config = (
        "auth:\n  oauth2:\n"
        f"    token_url: {url}\n    client_id: {CLIENT_ID}\n    client_secret: ${{OAUTH_SECRET}}\n"
    )
    gw = gqlgate(strawberry_upstream.path("/auth/graphql"), config=config, env=SECRET_ENV)
    r = post_graphql(gw.url, "{ hello }")
    body = assert_gateway_error(r, 502, "UPSTREAM_AUTH_FAILED")
    text = json.dumps(body) + r.text
    for leak in (URL_PASSWORD, "tokuser", endpoint.url.split("//")[1], "token endpoint", "answered", "temporarily"):
        assert leak not in text, f"{leak!r} reached the client: {text}"
    wait_until(lambda: "no upstream credentials" in gw.proc.stderr(), timeout=5, what="the reason in the log")
    log = gw.proc.stderr()
    assert URL_PASSWORD not in log
    assert "***@127.0.0.1" in log and "answered 503" in log, log[-2000:]


def test_a_missing_token_file_is_not_named_to_clients(gqlgate, strawberry_upstream, tmp_path):
    path = tmp_path / "secret-dir" / "upstream-token"
    gw = gqlgate(strawberry_upstream.path("/auth/graphql"), config=f"auth:\n  bearer_token_file: {path}\n")
    r = post_graphql(gw.url, "{ hello }")
    body = assert_gateway_error(r, 502, "UPSTREAM_AUTH_FAILED")
    assert "secret-dir" not in r.text and "bearer_token_file" not in json.dumps(body), r.text
    wait_until(lambda: "no upstream credentials" in gw.proc.stderr(), timeout=5, what="the reason in the log")
    assert str(path) in gw.proc.stderr()
