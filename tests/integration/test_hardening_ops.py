"""Hardening of the operations side: config errors never print a secret, /readyz
answers within 2 s whatever the upstream does, and the demo API survives deep
nesting."""

from __future__ import annotations

import json
import signal
import socket
import threading
import typing

import pytest

from harness import CurlError, curl, free_port, post_graphql
from test_cli import run_cli
from test_ops import log_records, wait_for_record

SECRET = "hunter2-topsecret"

# Each config is invalid because of a secret value; the error must name the key, not the secret.
BAD_SECRET_CONFIGS = [
    pytest.param("auth:\n  headers:\n    X-Api-Key: \"${API_KEY}\"\n", {"API_KEY": SECRET + "\n"},
                 "auth.headers.X-Api-Key", id="header-value-with-trailing-newline-from-env"),
    pytest.param(f"auth:\n  headers:\n    X-Api-Key: \"{SECRET}${{\"\n", {}, "auth.headers.X-Api-Key", id="header-value-bad-reference"),
    pytest.param(f"auth:\n  headers: \"{SECRET}\"\n", {}, "auth.headers", id="headers-not-a-mapping"),
    pytest.param(f"auth:\n  ws_init_payload: \"{SECRET}\"\n", {}, "auth.ws_init_payload", id="ws-init-payload-not-a-mapping"),
    pytest.param(f"auth:\n  ws_init_payload:\n    token: \"{SECRET}${{\"\n", {}, "auth.ws_init_payload.token",
                 id="ws-init-payload-value-bad-reference"),
    pytest.param(f"auth:\n  oauth2:\n    token_url: https://id.example/token\n    client_id: gqlgate\n"
                 f"    client_secret: \"{SECRET}${{\"\n", {}, "auth.oauth2.client_secret", id="client-secret-bad-reference"),
    pytest.param(f"cache:\n  backend: redis\n  redis_url: \"redis//:{SECRET}@cache\"\n", {}, "cache.redis_url",
                 id="redis-url-without-scheme-separator"),
    pytest.param("cache:\n  backend: redis\n  redis_url: \"${REDIS_URL}\"\n", {"REDIS_URL": f"redis://gate:{SECRET}@"},
                 "cache.redis_url", id="redis-url-without-host-from-env"),
]

# Valid for check-config, refused when `run` builds the Redis client.
UNUSABLE_REDIS = f"cache:\n  enabled: true\n  backend: redis\n  redis_url: \"redis://gate:{SECRET}@127.0.0.1:99999/0\"\n"


def assert_no_secret(text: str, key: str) -> None:
    assert SECRET not in text and "topsecret" not in text, text
    assert key in text, text


@pytest.mark.parametrize("config, env, key", BAD_SECRET_CONFIGS)
def test_check_config_errors_name_the_key_but_not_the_secret(gqlgate_bin, tmp_path, config, env, key):
    path = tmp_path / "bad.yaml"
    path.write_text(config)
    r = run_cli(gqlgate_bin, "check-config", str(path), cwd=tmp_path, env=env)
    assert r.rc == 1, str(r)
    assert_no_secret(r.output, key)


@pytest.mark.parametrize(
    "config, env, key", [*BAD_SECRET_CONFIGS, pytest.param(UNUSABLE_REDIS, {}, "cache.redis_url", id="unusable-redis-url")]
)
def test_run_errors_name_the_key_but_not_the_secret(gqlgate_bin, tmp_path, config, env, key):
    path = tmp_path / "bad.yaml"
    path.write_text(config)
    r = run_cli(gqlgate_bin, "run", "--config", str(path), "--listen", f"127.0.0.1:{free_port()}",
                "--upstream", "http://127.0.0.1:4999/graphql", cwd=tmp_path, env=env)
    assert r.rc == 1, str(r)
    assert_no_secret(r.output, key)


def test_unusable_redis_url_passes_check_config_with_the_password_redacted(gqlgate_bin, tmp_path):
    path = tmp_path / "redis.yaml"
    path.write_text(UNUSABLE_REDIS)
    r = run_cli(gqlgate_bin, "check-config", str(path), cwd=tmp_path)
    assert r.rc == 0, str(r)
    assert 'redis_url: "redis://gate:<redacted>@127.0.0.1:99999/0"' in r.stdout, str(r)
    assert SECRET not in r.output, str(r)


@pytest.mark.parametrize(
    "config, env, key",
    [*BAD_SECRET_CONFIGS[:2], pytest.param(UNUSABLE_REDIS, {}, "cache.redis_url", id="unusable-redis-url")],
)
def test_sighup_with_a_secret_in_a_bad_config_logs_no_secret_and_keeps_the_config(
    gqlgate, strawberry_upstream, config, env, key
):
    gw = gqlgate(strawberry_upstream.path("/echo-headers"), config="auth:\n  headers:\n    X-Api-Key: good-key\n", env=env)
    assert gw.config_path is not None
    gw.config_path.write_text(config)
    gw.proc.popen.send_signal(signal.SIGHUP)
    failed = wait_for_record(gw.proc, msg="reload failed")
    assert_no_secret(json.dumps(failed), key)
    assert SECRET not in gw.proc.stderr() + gw.proc.stdout()
    r = post_graphql(gw.url, "{ hello }")
    assert r.status == 200, str(r)
    assert r.json()["data"]["headers"].get("x-api-key") == "good-key", "the running config was kept"
    assert not [rec for rec in log_records(gw.proc) if rec.get("msg") == "reloaded"]


class SilentUpstream:
    """Accepts connections and reads requests, and never answers."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections.append(conn)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/graphql"

    def close(self) -> None:
        self.listener.close()
        for conn in self.connections:
            conn.close()


@pytest.fixture
def silent_upstream() -> typing.Iterator[SilentUpstream]:
    upstream = SilentUpstream()
    yield upstream
    upstream.close()


def readyz_within_the_contract(port: int) -> int:
    """/readyz's status; curl gives up after 3 s, so a hung probe fails the test."""
    return curl(f"http://127.0.0.1:{port}/readyz", timeout=3).status


def test_readyz_answers_while_the_upstream_hangs(gqlgate, silent_upstream):
    gw = gqlgate(silent_upstream.url, config="upstream:\n  timeout: 30s\n  connect_timeout: 10s\n")
    assert readyz_within_the_contract(gw.port) == 503
    # Requests that arrive while a probe is running wait for the same probe.
    statuses: list[int] = []
    threads = [threading.Thread(target=lambda: statuses.append(readyz_within_the_contract(gw.port))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses == [503] * 4
    # A client request hanging on the upstream does not hold /readyz up either.
    def hang() -> None:
        try:
            post_graphql(gw.url, "{ hello }", timeout=5)
        except CurlError:
            pass  # the client gives up first: the upstream never answers

    hanging = threading.Thread(target=hang, daemon=True)
    hanging.start()
    assert readyz_within_the_contract(gw.port) == 503


# ---------------------------------------------------------------------------
# The demo API


def nested_object(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


CREATE_REVIEW = "mutation($r: ReviewInput!) { createReview(episode: JEDI, review: $r) { stars } }"


def test_demo_answers_nested_variables_at_once(demo):
    # Depth 30 took hours: every object was decoded twice per level.
    r = post_graphql(demo.api_url, CREATE_REVIEW, variables={"r": nested_object(30)}, timeout=10)
    assert r.status == 200, str(r)
    assert "Unknown field" in r.json()["errors"][0]["message"], str(r)


def test_demo_refuses_deep_variables_with_a_graphql_error(demo):
    r = post_graphql(demo.api_url, CREATE_REVIEW, variables={"r": nested_object(200)}, timeout=10)
    assert r.status == 400, str(r)
    assert r.json()["errors"][0]["message"] == "The variables nest deeper than 64 levels of objects and lists."
    r = post_graphql(demo.url, CREATE_REVIEW, variables={"r": nested_object(200)}, timeout=10)
    assert r.json()["errors"], str(r)
    assert readyz_within_the_contract(demo.port) == 200


def test_demo_survives_a_variable_type_twenty_thousand_lists_deep(demo):
    deep_type = "[" * 20_000 + "Int" + "]" * 20_000
    r = post_graphql(demo.api_url, f"query($v: {deep_type}) {{ hero {{ name }} }}", timeout=10)
    assert r.status == 400, str(r)
    assert r.json()["errors"][0]["message"] == "The document nests deeper than 64 levels of braces, brackets and parentheses."
    r = post_graphql(demo.api_url, "{ hero { name } }")
    assert r.status == 200 and r.json() == {"data": {"hero": {"name": "R2-D2"}}}, str(r)


def test_demo_refuses_a_long_chain_of_fragments(demo):
    n = 20_000
    chain = " ".join(f"fragment F{i} on Query {{ ...F{i + 1} }}" for i in range(n))
    r = post_graphql(demo.api_url, f"query {{ ...F0 }} {chain} fragment F{n} on Query {{ hero {{ name }} }}", timeout=10)
    assert r.status == 400, str(r)
    assert "at most 64 are allowed" in r.json()["errors"][0]["message"], str(r)
    assert post_graphql(demo.api_url, "{ hero { name } }").status == 200
