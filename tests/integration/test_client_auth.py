"""Client API keys (clients.api_keys_file) and the header rules, end to end."""

from __future__ import annotations

import os
import socket

from conftest import START_TIMEOUT
from harness import (
    PREFLIGHT,
    ProcessGroup,
    assert_gateway_error,
    clean_env,
    curl,
    free_port,
    post_graphql,
    wait_for_http,
    wait_until,
)


def key_file(tmp_path, *keys: str) -> str:
    path = tmp_path / "client-keys"
    write_atomically(str(path), "# client keys\n" + "\n".join(keys) + "\n")
    return str(path)


def write_atomically(path: str, text: str) -> None:
    with open(path + ".next", "w") as f:
        f.write(text)
    os.replace(path + ".next", path)


def keyed_gateway(gqlgate, tmp_path, *keys: str, extra: str = ""):
    path = key_file(tmp_path, *keys)
    return gqlgate(config=f"clients:\n  api_keys_file: {path}\n" + extra), path


def test_requests_without_a_valid_key_get_401(gqlgate, tmp_path):
    gw, _ = keyed_gateway(gqlgate, tmp_path, "key-one")
    assert_gateway_error(post_graphql(gw.url, "{ hello }"), 401, "UNAUTHENTICATED")
    wrong = post_graphql(gw.url, "{ hello }", headers={"X-Api-Key": "key-two"})
    assert_gateway_error(wrong, 401, "UNAUTHENTICATED")
    assert (wrong.header("WWW-Authenticate") or "").startswith("Bearer"), str(wrong)
    assert_gateway_error(curl(gw.url, params={"query": "{ hello }"}, headers=PREFLIGHT), 401, "UNAUTHENTICATED")


def test_key_in_x_api_key_or_bearer_is_accepted(gqlgate, tmp_path):
    gw, _ = keyed_gateway(gqlgate, tmp_path, "key-one", "key-two")
    for headers in ({"X-Api-Key": "key-one"}, {"Authorization": "Bearer key-two"}):
        r = post_graphql(gw.url, "{ hello }", headers=headers)
        assert r.status == 200, str(r)
        assert r.json() == {"data": {"hello": "Hello, world!"}}


def test_health_stays_open(gqlgate, tmp_path):
    gw, _ = keyed_gateway(gqlgate, tmp_path, "key-one")
    r = curl(gw.path("/healthz"))
    assert r.status == 200, str(r)


def test_client_key_never_goes_upstream(gqlgate, tmp_path, strawberry_upstream):
    path = key_file(tmp_path, "secret-client-key")
    gw = gqlgate(strawberry_upstream.path("/echo-headers"), config=f"clients:\n  api_keys_file: {path}\n")
    r = post_graphql(gw.url, "{ x }", headers={"Authorization": "Bearer secret-client-key"})
    assert r.status == 200, str(r)
    seen = r.json()["data"]["headers"]
    assert "authorization" not in seen and "x-api-key" not in seen, seen


def test_key_file_is_read_again_when_it_changes(gqlgate, tmp_path):
    gw, path = keyed_gateway(gqlgate, tmp_path, "old-key")
    assert post_graphql(gw.url, "{ hello }", headers={"X-Api-Key": "old-key"}).status == 200
    write_atomically(path, "new-key\n")

    def new_key_works() -> bool:
        return post_graphql(gw.url, "{ hello }", headers={"X-Api-Key": "new-key"}).status == 200

    wait_until(new_key_works, timeout=5, what="the rotated key to be accepted")
    assert_gateway_error(post_graphql(gw.url, "{ hello }", headers={"X-Api-Key": "old-key"}), 401, "UNAUTHENTICATED")


def test_listening_beyond_loopback_with_client_keys_starts(gqlgate_bin, proc_dir, tmp_path, strawberry_upstream):
    port = free_port()
    path = key_file(tmp_path, "wide-key")
    config = tmp_path / "wide.yaml"
    config.write_text(f"clients:\n  api_keys_file: {path}\n")
    group = ProcessGroup(proc_dir, [])
    try:
        proc = group.start(
            "gqlgate-wide",
            [gqlgate_bin, "run", "--listen", f"0.0.0.0:{port}", "--upstream", strawberry_upstream.url, "--config", str(config)],
            env=clean_env(),
            cwd=tmp_path,
        )
        wait_for_http(f"http://127.0.0.1:{port}/healthz", timeout=START_TIMEOUT, alive=proc)
        url = f"http://127.0.0.1:{port}/graphql"
        assert_gateway_error(post_graphql(url, "{ hello }"), 401, "UNAUTHENTICATED")
        assert post_graphql(url, "{ hello }", headers={"X-Api-Key": "wide-key"}).status == 200
    finally:
        group.stop_all()


# ---------------------------------------------------------------------------
# Header rules


def raw_request(port: int, head: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(head)
        data = b""
        while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data


def test_bare_carriage_return_in_a_header_value_is_400(gateway):
    answer = raw_request(
        gateway.port,
        b"GET /graphql?query=%7Bhello%7D HTTP/1.1\r\nHost: x\r\nX-Custom: a\rInjected: yes\r\nConnection: close\r\n\r\n",
    )
    status_line = answer.split(b"\r\n", 1)[0]
    assert status_line.startswith(b"HTTP/1.1 400"), answer
    assert b'"code":"BAD_REQUEST"' in answer and b"X-Custom" in answer, answer
    assert b"\r\nInjected:" not in answer, answer


def test_client_authorization_is_forwarded_only_when_configured(gqlgate, strawberry_upstream):
    echo = strawberry_upstream.path("/echo-headers")
    headers = {"Authorization": "Bearer user-token"}
    default = post_graphql(gqlgate(echo).url, "{ x }", headers=headers).json()["data"]["headers"]
    assert "authorization" not in default, default
    forwarding = gqlgate(echo, config="headers:\n  forward_client_authorization: true\n")
    seen = post_graphql(forwarding.url, "{ x }", headers=headers).json()["data"]["headers"]
    assert seen.get("authorization") == "Bearer user-token", seen


def test_client_keys_guard_server_sent_events(gqlgate, tmp_path):
    gw, _ = keyed_gateway(gqlgate, tmp_path, "sse-key")
    sse = {"Accept": "text/event-stream"}
    refused = post_graphql(gw.url, "{ hello }", headers=sse)
    assert_gateway_error(refused, 401, "UNAUTHENTICATED")
    answered = post_graphql(gw.url, "{ hello }", headers={**sse, "X-Api-Key": "sse-key"})
    assert answered.status == 200, str(answered)
    assert (answered.header("Content-Type") or "").startswith("text/event-stream"), str(answered)
    assert "event: next" in answered.text and "event: complete" in answered.text, answered.text
