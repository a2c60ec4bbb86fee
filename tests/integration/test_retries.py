"""Retries against a real upstream: flaky queries recover, mutations are never doubled.

The Strawberry upstream fails the first N requests of a key on demand
(``flaky.py``: ``X-Fail-Key``, ``X-Fail-Times``, ``X-Fail-Status``,
``X-Fail-Retry-After``); gqlgate forwards those headers because the tests'
configs name them in ``headers.forward``.
"""

from __future__ import annotations

import http.server
import json
import re
import threading
import time
import typing
import urllib.request
import uuid

from harness import closed_port, curl, post_graphql, wait_until

FORWARD = "headers:\n  forward: [x-fail-key, x-fail-times, x-fail-status, x-fail-retry-after]\n"
FAST_RETRIES = FORWARD + "retry:\n  base_delay: 10ms\n  max_delay: 50ms\n"
MUTATION = 'mutation { addBook(title: "%s", author: "Retry") { id title } }'


def flaky_calls(upstream, key: str) -> int:
    with urllib.request.urlopen(upstream.path("/flaky/calls"), timeout=5) as r:
        return json.loads(r.read()).get(key, 0)


def fail_headers(times: int, status: int = 503, retry_after: typing.Optional[str] = None) -> tuple[str, dict[str, str]]:
    key = str(uuid.uuid4())
    headers = {"X-Fail-Key": key, "X-Fail-Times": str(times), "X-Fail-Status": str(status)}
    if retry_after is not None:
        headers["X-Fail-Retry-After"] = retry_after
    return key, headers


def test_flaky_query_succeeds_on_its_third_attempt(gqlgate, strawberry_upstream):
    gw = gqlgate(config=FAST_RETRIES)
    key, headers = fail_headers(2)
    r = post_graphql(gw.url, "{ hello }", headers=headers)
    assert r.status == 200, str(r)
    assert r.json() == {"data": {"hello": "Hello, world!"}}
    assert flaky_calls(strawberry_upstream, key) == 3


def test_last_upstream_answer_reaches_the_client_when_attempts_run_out(gqlgate, strawberry_upstream):
    gw = gqlgate(config=FAST_RETRIES)
    key, headers = fail_headers(5, status=502)
    r = post_graphql(gw.url, "{ hello }", headers=headers)
    assert r.status == 502, str(r)
    assert r.json() == {"errors": [{"message": "flaky upstream answered 502"}]}
    assert flaky_calls(strawberry_upstream, key) == 3


def test_mutation_answered_503_reaches_the_upstream_exactly_once(gqlgate, strawberry_upstream):
    gw = gqlgate(config=FAST_RETRIES)
    key, headers = fail_headers(1)
    r = post_graphql(gw.url, MUTATION % uuid.uuid4(), headers=headers)
    assert r.status == 503, str(r)
    assert flaky_calls(strawberry_upstream, key) == 1


def test_idempotent_mutations_are_retried(gqlgate, strawberry_upstream):
    gw = gqlgate(config=FAST_RETRIES + "  idempotent_mutations: true\n")
    key, headers = fail_headers(1)
    title = str(uuid.uuid4())
    r = post_graphql(gw.url, MUTATION % title, headers=headers)
    assert r.status == 200, str(r)
    assert r.json()["data"]["addBook"]["title"] == title
    assert flaky_calls(strawberry_upstream, key) == 2


def test_retry_after_is_honoured(gqlgate, strawberry_upstream):
    gw = gqlgate(config=FAST_RETRIES)
    key, headers = fail_headers(1, status=429, retry_after="1")
    start = time.monotonic()
    r = post_graphql(gw.url, "{ hello }", headers=headers)
    elapsed = time.monotonic() - start
    assert r.status == 200, str(r)
    assert flaky_calls(strawberry_upstream, key) == 2
    assert elapsed >= 1.0, f"the retry came {elapsed:.2f}s after the first answer, before Retry-After: 1"


def test_retry_after_beyond_max_retry_after_is_not_retried(gqlgate, strawberry_upstream):
    gw = gqlgate(config=FAST_RETRIES + "  max_retry_after: 1s\n")
    key, headers = fail_headers(1, status=503, retry_after="30")
    r = post_graphql(gw.url, "{ hello }", headers=headers)
    assert r.status == 503, str(r)
    assert r.header("Retry-After") == "30"
    assert flaky_calls(strawberry_upstream, key) == 1


def test_retries_stay_within_the_deadline(gqlgate, strawberry_upstream):
    gw = gqlgate(config=FORWARD + "retry:\n  max_attempts: 10\n  deadline: 1500ms\n")
    key, headers = fail_headers(10, retry_after="1")
    start = time.monotonic()
    r = post_graphql(gw.url, "{ hello }", headers=headers)
    elapsed = time.monotonic() - start
    assert r.status == 503, str(r)
    assert flaky_calls(strawberry_upstream, key) == 2, "a second retry would end past the 1.5 s deadline"
    assert elapsed < 1.5 + 1.0, f"took {elapsed:.2f}s"


def test_budget_limits_retries_during_an_outage(gqlgate, strawberry_upstream):
    gw = gqlgate(config=FAST_RETRIES + "  budget: 0\n")
    key, headers = fail_headers(1000)
    for _ in range(4):
        assert post_graphql(gw.url, "{ hello }", headers=headers).status == 503
    # 4 requests with 3 attempts each would be 12; the budget allows 3 retries in 10 s.
    assert flaky_calls(strawberry_upstream, key) == 4 + 3


class LateUpstream:
    """A minimal GraphQL upstream started on demand on a given port: it
    answers every POST with an ``addBook`` result and counts the requests."""

    def __init__(self, port: int) -> None:
        self.requests: list[bytes] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                outer.requests.append(body)
                title = json.loads(body)["variables"]["title"]
                answer = json.dumps({"data": {"addBook": {"id": "99", "title": title}}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: typing.Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def retries_counted(gw, reason: str) -> float:
    metrics = curl(gw.path("/metrics")).text
    match = re.search(r'^gqlgate_retries_total\{reason="%s"\} (\S+)$' % reason, metrics, re.M)
    return float(match.group(1)) if match else 0.0


def test_mutation_to_a_closed_port_is_retried_until_the_upstream_comes_up(gqlgate):
    port = closed_port()
    gw = gqlgate(f"http://127.0.0.1:{port}/graphql",
                 config="retry:\n  max_attempts: 10\n  base_delay: 1s\n  max_delay: 1s\n")
    title = str(uuid.uuid4())
    result: dict[str, typing.Any] = {}
    mutation = "mutation Add($title: String!) { addBook(title: $title, author: \"Late\") { id title } }"
    sender = threading.Thread(
        target=lambda: result.setdefault("r", post_graphql(gw.url, mutation, {"title": title}, timeout=30)), daemon=True)
    sender.start()
    wait_until(lambda: retries_counted(gw, "unreachable") >= 1, timeout=10, interval=0.005,
               what="the first refused attempt to be retried")
    upstream = LateUpstream(port)
    try:
        sender.join(timeout=30)
        r = result["r"]
        assert r.status == 200, str(r)
        assert r.json()["data"]["addBook"]["title"] == title
        assert len(upstream.requests) == 1, "the mutation reached the upstream exactly once"
    finally:
        upstream.close()
