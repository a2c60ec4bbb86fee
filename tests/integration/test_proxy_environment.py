"""The upstream is reached through the proxy the environment names (libcurl's
http_proxy / no_proxy rules), which gqlgate reads once at start."""

from __future__ import annotations

import http.client
import http.server
import threading
import typing
import urllib.parse

import pytest

from harness import assert_gateway_error, closed_port, post_graphql


class ForwardProxy:
    """A plain HTTP forward proxy: takes absolute-form requests, sends them on, counts them."""

    def __init__(self) -> None:
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                target = urllib.parse.urlsplit(self.path)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("proxy-connection", "connection", "host")}
                conn = http.client.HTTPConnection(target.hostname, target.port, timeout=10)
                try:
                    conn.request("POST", target.path or "/", body=body, headers=headers)
                    answer = conn.getresponse()
                    data = answer.read()
                finally:
                    conn.close()
                with proxy.lock:
                    proxy.requests.append((self.path, self.headers.get("X-Request-Id")))
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: typing.Any) -> None:
                pass

        self.lock = threading.Lock()
        self.requests: list[tuple[str, typing.Optional[str]]] = []
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def forward_proxy() -> typing.Iterator[ForwardProxy]:
    proxy = ForwardProxy()
    try:
        yield proxy
    finally:
        proxy.stop()


def no_proxy_env(**extra: str) -> dict[str, str]:
    """Proxy variables cleared (the runner's own must not leak in), then ``extra`` set."""
    names = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY")
    env = {name: "" for name in names}
    env.update(extra)
    return env


def test_queries_go_through_the_proxy_in_http_proxy(gqlgate, strawberry_upstream, forward_proxy):
    gw = gqlgate(strawberry_upstream.url, env=no_proxy_env(http_proxy=f"http://127.0.0.1:{forward_proxy.port}"))
    for _ in range(3):
        r = post_graphql(gw.url, "{ hello }", headers={"X-Request-Id": "via-proxy"})
        assert r.status == 200, r
        assert r.json() == {"data": {"hello": "Hello, world!"}}
    with forward_proxy.lock:
        seen = list(forward_proxy.requests)
    assert len(seen) == 3, seen
    assert all(path == strawberry_upstream.url and rid == "via-proxy" for path, rid in seen), seen


def test_an_unreachable_proxy_is_502_and_no_proxy_bypasses_it(gqlgate, strawberry_upstream):
    dead_proxy = f"http://127.0.0.1:{closed_port()}"
    through = gqlgate(strawberry_upstream.url, env=no_proxy_env(http_proxy=dead_proxy))
    assert_gateway_error(post_graphql(through.url, "{ hello }"), 502, "UPSTREAM_UNAVAILABLE")

    bypassing = gqlgate(strawberry_upstream.url, env=no_proxy_env(http_proxy=dead_proxy, no_proxy="127.0.0.1"))
    r = post_graphql(bypassing.url, "{ hello }")
    assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, r
