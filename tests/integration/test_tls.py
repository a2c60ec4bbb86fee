"""TLS on the listener (``server.tls``): HTTPS queries, server-sent events
and WSS subscriptions through gqlgate with a certificate made by openssl
for the test; old protocol versions and plain HTTP refused; bad settings
refused at start.
"""

from __future__ import annotations

import ssl
import subprocess
import typing
from pathlib import Path

import pytest
from websockets.sync.client import connect

from harness import curl
from test_cli import run_cli
from test_subscriptions_ws import TICKS, TRANSPORT_WS, recv_type, send


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed P-256 certificate for 127.0.0.1 and its key."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
         "-subj", "/CN=gqlgate-test", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    return cert, key


def tls_ready(cert: Path) -> typing.Callable[[int], bool]:
    def ready(port: int) -> bool:
        try:
            return curl(f"https://127.0.0.1:{port}/healthz", extra=["--cacert", str(cert)], timeout=2).status == 200
        except Exception:  # noqa: BLE001  (not listening yet)
            return False

    return ready


@pytest.fixture
def tls_gateway(gqlgate, tmp_path):
    cert, key = make_certificate(tmp_path)
    gw = gqlgate(config=f"server:\n  tls: {{cert_file: {cert}, key_file: {key}}}\n", ready=tls_ready(cert))
    return gw, cert


def https(gw) -> str:
    return f"https://127.0.0.1:{gw.port}/graphql"


def test_a_query_over_https(tls_gateway):
    gw, cert = tls_gateway
    r = curl(https(gw), json_body={"query": "{ hello }"}, extra=["--cacert", str(cert)])
    assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, str(r)
    assert r.header("x-request-id")


def test_server_sent_events_over_https(tls_gateway):
    gw, cert = tls_gateway
    r = curl(https(gw), json_body={"query": "subscription { countdown(from: 3) }"}, headers={"Accept": "text/event-stream"},
             extra=["--cacert", str(cert), "-N"])  # fmt: skip
    assert r.status == 200, str(r)
    assert r.body.count(b"event: next") == 4 and b"event: complete" in r.body, str(r)


def test_a_subscription_over_wss(tls_gateway):
    gw, cert = tls_gateway
    context = ssl.create_default_context(cafile=str(cert))
    with connect(f"wss://127.0.0.1:{gw.port}/graphql", ssl=context, subprotocols=[TRANSPORT_WS], open_timeout=10) as ws:
        send(ws, {"type": "connection_init"})
        assert recv_type(ws, "connection_ack")["type"] == "connection_ack"
        send(ws, {"type": "subscribe", "id": "1", "payload": {"query": TICKS}})
        ticks = [recv_type(ws, "next")["payload"]["data"]["ticks"] for _ in range(3)]
        assert ticks == sorted(ticks) and len(set(ticks)) == 3, ticks


def test_old_protocol_versions_and_plain_http_are_refused(tls_gateway):
    gw, cert = tls_gateway
    old = subprocess.run(["curl", "-sS", "--cacert", str(cert), "--tlsv1.0", "--tls-max", "1.1", f"https://127.0.0.1:{gw.port}/healthz"],
                         capture_output=True, timeout=15)  # fmt: skip
    assert old.returncode != 0, old
    plain = subprocess.run(["curl", "-sS", "--max-time", "5", f"http://127.0.0.1:{gw.port}/healthz"], capture_output=True, timeout=15)
    assert plain.returncode != 0 or b'"ok"' not in plain.stdout, plain
    tls12 = subprocess.run(["curl", "-sS", "--cacert", str(cert), "--tlsv1.2", "--tls-max", "1.2", f"https://127.0.0.1:{gw.port}/healthz"],
                           capture_output=True, timeout=15)  # fmt: skip
    assert tls12.stdout == b'{"status":"ok"}', tls12


def test_bad_tls_settings_are_refused_at_start(gqlgate_bin, tmp_path):
    cert, key = make_certificate(tmp_path)
    cases = {
        f"server:\n  tls: {{cert_file: {cert}}}\n": "server.tls.key_file",
        f"server:\n  tls: {{cert_file: {cert}, key_file: {key}, client_ca_file: {cert}}}\n": "server.tls.client_ca_file",
        f"server:\n  tls: {{cert_file: {tmp_path / 'missing.pem'}, key_file: {key}}}\n": "server.tls.cert_file",
    }
    for n, (config, key_path) in enumerate(cases.items()):
        path = tmp_path / f"bad-{n}.yaml"
        path.write_text(config)
        r = run_cli(gqlgate_bin, "run", "--upstream", "http://127.0.0.1:9/graphql", "--listen", "127.0.0.1:0", "--config", str(path),
                    cwd=tmp_path, timeout=10)  # fmt: skip
        assert r.rc == 1 and key_path in r.stderr, str(r)
