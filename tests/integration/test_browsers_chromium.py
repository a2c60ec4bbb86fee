"""A real browser (headless Chromium, Debian's ``chromium``) on a page served
from another origin calls gqlgate: a JSON POST (preflighted, so CORS decides)
and a graphql-transport-ws subscription. What the page could read is written
back to the page's own server.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import shutil
import subprocess
import threading
import typing

import pytest

from harness import wait_until

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package (apt-get install chromium)")

PAGE = """<!doctype html><html><body><script>
const out = {};
async function run() {
  try {
    const r = await fetch(%(http)s, {method: "POST", headers: {"Content-Type": "application/json"},
                                     body: JSON.stringify({query: "{ hello }"})});
    out.fetch = await r.json();
    out.requestId = r.headers.get("x-request-id");
  } catch (e) { out.fetch = "failed"; }
  await new Promise(resolve => {
    const ws = new WebSocket(%(ws)s, "graphql-transport-ws");
    ws.onopen = () => ws.send(JSON.stringify({type: "connection_init"}));
    ws.onmessage = m => {
      const message = JSON.parse(m.data);
      if (message.type === "connection_ack") {
        ws.send(JSON.stringify({id: "1", type: "subscribe", payload: {query: "subscription { countdown(from: 2) }"}}));
      } else if (message.type === "next") { out.ws = message.payload; ws.close(); resolve(); }
    };
    ws.onerror = () => { out.ws = "failed"; resolve(); };
  });
  await fetch("/result", {method: "POST", body: JSON.stringify(out)});
}
run();
</script></body></html>"""


@contextlib.contextmanager
def page_server(page: dict[str, typing.Any]) -> typing.Iterator[str]:
    """Serves ``page["html"]`` at ``/`` from a port of its own and keeps what
    the page posts to ``/result`` in ``page["result"]``; yields the origin."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = page["html"].encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802
            page["result"] = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: typing.Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def page_result(page: dict[str, typing.Any], origin: str, tmp_path: typing.Any) -> dict:
    """What the page at ``origin`` could read, once Chromium ran it."""
    argv = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'chromium'}", origin + "/"]
    with subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as browser:
        try:
            wait_until(lambda: "result" in page, timeout=30, what="the page's result")
        finally:
            browser.terminate()
            browser.wait(timeout=10)
    return page["result"]


def run_page(gqlgate: typing.Any, tmp_path: typing.Any, allowed: bool) -> dict:
    """Serves the page from an origin of its own, allowed by gqlgate's
    ``cors`` or not, and returns what it could read."""
    page: dict[str, typing.Any] = {}
    with page_server(page) as origin:
        listed = origin if allowed else "https://app.example.com"
        gw = gqlgate(config=f'cors: {{allow_origins: ["{listed}"]}}\n')
        page["html"] = PAGE % {"http": json.dumps(gw.url), "ws": json.dumps(f"ws://127.0.0.1:{gw.port}/graphql")}
        return page_result(page, origin, tmp_path)


def test_a_page_on_an_allowed_origin_reads_a_query_and_a_subscription(gqlgate, tmp_path):
    result = run_page(gqlgate, tmp_path, allowed=True)
    assert result["fetch"] == {"data": {"hello": "Hello, world!"}}
    assert result["requestId"]  # exposed by cors.expose_headers
    assert result["ws"] == {"data": {"countdown": 2}}


def test_a_page_on_another_origin_can_read_neither(gqlgate, tmp_path):
    result = run_page(gqlgate, tmp_path, allowed=False)
    assert result == {"fetch": "failed", "ws": "failed"}
