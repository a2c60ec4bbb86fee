"""TLS on the listener (``server.tls``): HTTPS queries, server-sent events
and WSS subscriptions through gqlgate with a certificate made by openssl
for the test; old protocol versions and plain HTTP refused; bad settings
refused at start; certificates rotated on disk (a Kubernetes Secret
volume's link swap) and on SIGHUP while open WebSockets carry on; client
certificates required, checked against the client CA file, logged and rate
limited by subject.
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import ssl
import subprocess
import typing
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from harness import assert_gateway_error, curl, wait_until
from test_cli import run_cli
from test_ops import find_record, log_records, wait_for_record
from test_subscriptions_ws import TICKS, TRANSPORT_WS, recv_type, send


def openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=30)


def make_certificate(directory: Path, name: str = "") -> tuple[Path, Path]:
    """A self-signed P-256 certificate for 127.0.0.1 and its key (``<name>cert.pem``, ``<name>key.pem``)."""
    cert, key = directory / f"{name}cert.pem", directory / f"{name}key.pem"
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", f"/CN=gqlgate-test{name}", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert))  # fmt: skip
    return cert, key


def make_ca(directory: Path, name: str) -> tuple[Path, Path]:
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", f"/CN={name}", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
            "-keyout", str(key), "-out", str(cert))  # fmt: skip
    return cert, key


def make_client(directory: Path, ca: tuple[Path, Path], subject: str, name: str) -> tuple[Path, Path]:
    """A client certificate for ``subject`` (``/O=.../CN=...``) signed by ``ca``, and its key."""
    cert, key, request, extensions = (directory / f"{name}.pem", directory / f"{name}.key", directory / f"{name}.csr",
                                      directory / f"{name}.ext")  # fmt: skip
    extensions.write_text("extendedKeyUsage=clientAuth\n")
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", subject,
            "-keyout", str(key), "-out", str(request))  # fmt: skip
    openssl("x509", "-req", "-in", str(request), "-CA", str(ca[0]), "-CAkey", str(ca[1]), "-CAcreateserial", "-days", "1",
            "-extfile", str(extensions), "-out", str(cert))  # fmt: skip
    return cert, key


def fingerprint(cert: Path) -> str:
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(cert.read_text())).hexdigest()


def served_fingerprint(port: int) -> str:
    """The SHA-256 of the certificate a new connection to ``port`` gets."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw, context.wrap_socket(raw) as tls:
        return hashlib.sha256(typing.cast(bytes, tls.getpeercert(binary_form=True))).hexdigest()


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
    _, other_key = make_certificate(tmp_path, "other-")
    cases = {
        f"server:\n  tls: {{cert_file: {cert}}}\n": "server.tls.key_file",
        f"server:\n  tls: {{client_ca_file: {cert}}}\n": "server.tls.client_ca_file",
        f"server:\n  tls: {{cert_file: {cert}, key_file: {key}, client_ca_file: {key}}}\n": "server.tls.client_ca_file",
        f"server:\n  tls: {{cert_file: {tmp_path / 'missing.pem'}, key_file: {key}}}\n": "server.tls.cert_file",
        f"server:\n  tls: {{cert_file: {cert}, key_file: {other_key}}}\n": "server.tls.key_file",
    }
    for n, (config, key_path) in enumerate(cases.items()):
        path = tmp_path / f"bad-{n}.yaml"
        path.write_text(config)
        r = run_cli(gqlgate_bin, "run", "--upstream", "http://127.0.0.1:9/graphql", "--listen", "127.0.0.1:0", "--config", str(path),
                    cwd=tmp_path, timeout=10)  # fmt: skip
        assert r.rc == 1 and key_path in r.stderr, str(r)


# ---------------------------------------------------------------------------
# Certificate rotation


class SecretVolume:
    """A directory laid out like a Kubernetes Secret volume: ``tls.crt`` and
    ``tls.key`` link to ``..data/``, a link to the current timestamped
    directory; ``publish`` swaps ``..data`` in one rename, as the kubelet does."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir()
        self.generation = 0
        for name in ("tls.crt", "tls.key"):
            (root / name).symlink_to(Path("..data") / name)

    @property
    def cert(self) -> Path:
        return self.root / "tls.crt"

    @property
    def key(self) -> Path:
        return self.root / "tls.key"

    def publish(self, cert: Path, key: Path) -> None:
        self.generation += 1
        version = self.root / f"..2026_11_26_{self.generation}"
        version.mkdir()
        (version / "tls.crt").write_bytes(cert.read_bytes())
        (version / "tls.key").write_bytes(key.read_bytes())
        staged = self.root / "..data_tmp"
        staged.symlink_to(version.name)
        os.replace(staged, self.root / "..data")


def tls_config(cert: Path, key: Path, ca: typing.Optional[Path] = None, extra: str = "") -> str:
    client_ca = f", client_ca_file: {ca}" if ca is not None else ""
    return f"server:\n  tls: {{cert_file: {cert}, key_file: {key}{client_ca}}}\n{extra}"


def test_a_certificate_swapped_on_disk_is_served_to_new_connections_while_an_open_websocket_carries_on(gqlgate, tmp_path):
    first, second = make_certificate(tmp_path, "first-"), make_certificate(tmp_path, "second-")
    volume = SecretVolume(tmp_path / "secret")
    volume.publish(*first)
    gw = gqlgate(config=tls_config(volume.cert, volume.key), ready=tls_ready(first[0]))
    assert served_fingerprint(gw.port) == fingerprint(first[0])
    context = ssl.create_default_context(cafile=str(first[0]))
    with connect(f"wss://127.0.0.1:{gw.port}/graphql", ssl=context, subprotocols=[TRANSPORT_WS], open_timeout=10) as ws:
        send(ws, {"type": "connection_init"})
        recv_type(ws, "connection_ack")
        send(ws, {"type": "subscribe", "id": "1", "payload": {"query": TICKS}})
        recv_type(ws, "next")

        volume.publish(*second)
        wait_until(lambda: served_fingerprint(gw.port) == fingerprint(second[0]), timeout=10, what="the new certificate served",
                   alive=gw.proc)  # fmt: skip
        loaded = wait_for_record(gw.proc, msg="tls certificate loaded", trigger="file change")
        assert loaded["subject"] == "CN=gqlgate-testsecond-", loaded
        # The WebSocket opened with the first certificate still delivers events.
        ticks = [recv_type(ws, "next")["payload"]["data"]["ticks"] for _ in range(3)]
        assert ticks == sorted(ticks) and len(set(ticks)) == 3, ticks
    r = curl(https(gw), json_body={"query": "{ hello }"}, extra=["--cacert", str(second[0])])
    assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, str(r)


def test_sighup_reads_the_certificate_files_the_config_names_now(gqlgate, tmp_path):
    first, second = make_certificate(tmp_path, "first-"), make_certificate(tmp_path, "second-")
    gw = gqlgate(config=tls_config(*first), ready=tls_ready(first[0]))
    assert gw.config_path is not None
    # New paths: unchanged files at the old ones, so only the reload can find them.
    gw.config_path.write_text(tls_config(*second))
    gw.proc.popen.send_signal(signal.SIGHUP)
    loaded = wait_for_record(gw.proc, msg="tls certificate loaded", trigger="reload")
    assert loaded["subject"] == "CN=gqlgate-testsecond-", loaded
    wait_for_record(gw.proc, msg="reloaded")
    assert find_record(gw.proc, msg="needs restart") is None
    assert served_fingerprint(gw.port) == fingerprint(second[0])
    r = curl(https(gw), json_body={"query": "{ hello }"}, extra=["--cacert", str(second[0])])
    assert r.status == 200, str(r)


def test_a_bad_new_pair_keeps_the_served_certificate(gqlgate, tmp_path):
    first, second = make_certificate(tmp_path, "first-"), make_certificate(tmp_path, "second-")
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    cert.write_bytes(first[0].read_bytes())
    key.write_bytes(first[1].read_bytes())
    gw = gqlgate(config=tls_config(cert, key), ready=tls_ready(first[0]))

    def failures() -> list[dict]:
        return [r for r in log_records(gw.proc) if r.get("msg") == "tls reload failed"]

    # A new certificate whose key has not been replaced (yet): it does not match.
    cert.write_bytes(second[0].read_bytes())
    wait_until(lambda: len(failures()) == 1, timeout=10, what="the mismatched pair refused", alive=gw.proc)
    assert failures()[0]["trigger"] == "file change" and "server.tls.key_file" in failures()[0]["error"], failures()
    # Then a key file that is no key at all.
    key.write_text("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
    wait_until(lambda: len(failures()) == 2, timeout=10, what="the broken key refused", alive=gw.proc)
    gw.proc.popen.send_signal(signal.SIGHUP)
    wait_until(lambda: len(failures()) == 3, timeout=10, what="the broken key refused on SIGHUP", alive=gw.proc)
    assert failures()[2]["trigger"] == "reload", failures()
    assert served_fingerprint(gw.port) == fingerprint(first[0])
    r = curl(https(gw), json_body={"query": "{ hello }"}, extra=["--cacert", str(first[0])])
    assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, str(r)
    # The right key arrives: the new certificate is served.
    key.write_bytes(second[1].read_bytes())
    wait_until(lambda: served_fingerprint(gw.port) == fingerprint(second[0]), timeout=10, what="the new certificate served",
               alive=gw.proc)  # fmt: skip


# ---------------------------------------------------------------------------
# Client certificates


@pytest.fixture
def client_certificates(tmp_path):
    """A server certificate, the client CA, a second CA, and client certificates signed by each."""
    server = make_certificate(tmp_path)
    ca, other_ca = make_ca(tmp_path, "client-ca"), make_ca(tmp_path, "other-ca")
    return {
        "server": server, "ca": ca, "other_ca": other_ca,
        "alice": make_client(tmp_path, ca, "/O=gqlgate-test/CN=alice", "alice"),
        "bob": make_client(tmp_path, ca, "/O=gqlgate-test/CN=bob", "bob"),
        "mallory": make_client(tmp_path, other_ca, "/O=gqlgate-test/CN=mallory", "mallory"),
    }  # fmt: skip


def with_client(certs: dict, name: typing.Optional[str]) -> list[str]:
    extra = ["--cacert", str(certs["server"][0])]
    if name is not None:
        extra += ["--cert", str(certs[name][0]), "--key", str(certs[name][1])]
    return extra


def wss_context(certs: dict, name: typing.Optional[str]) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(certs["server"][0]))
    if name is not None:
        context.load_cert_chain(str(certs[name][0]), str(certs[name][1]))
    return context


def test_client_certificates_signed_by_the_client_ca_are_required(gqlgate, client_certificates):
    certs = client_certificates
    gw = gqlgate(config=tls_config(*certs["server"], certs["ca"][0]), ready=tls_ready(certs["server"][0]))
    for name in (None, "mallory"):
        r = curl(https(gw), json_body={"query": "{ hello }"}, extra=with_client(certs, name))
        assert_gateway_error(r, 401, "UNAUTHENTICATED")
    r = curl(https(gw), json_body={"query": "{ hello }"}, extra=with_client(certs, "alice"))
    assert r.status == 200 and r.json() == {"data": {"hello": "Hello, world!"}}, str(r)
    # Probes answer without a certificate; the metrics do not.
    assert curl(f"https://127.0.0.1:{gw.port}/healthz", extra=with_client(certs, None)).status == 200
    assert curl(f"https://127.0.0.1:{gw.port}/metrics", extra=with_client(certs, None)).status == 401

    for name in (None, "mallory"):
        with pytest.raises(InvalidStatus) as refused:
            connect(f"wss://127.0.0.1:{gw.port}/graphql", ssl=wss_context(certs, name), subprotocols=[TRANSPORT_WS], open_timeout=10)
        assert refused.value.response.status_code == 401
    with connect(f"wss://127.0.0.1:{gw.port}/graphql", ssl=wss_context(certs, "alice"), subprotocols=[TRANSPORT_WS],
                 open_timeout=10) as ws:  # fmt: skip
        send(ws, {"type": "connection_init"})
        recv_type(ws, "connection_ack")
        send(ws, {"type": "subscribe", "id": "1", "payload": {"query": TICKS}})
        assert len({recv_type(ws, "next")["payload"]["data"]["ticks"] for _ in range(2)}) == 2

    # The client CA file is watched too: another CA from now on.
    certs["ca"][0].write_bytes(certs["other_ca"][0].read_bytes())

    def mallory_answered() -> bool:
        return curl(https(gw), json_body={"query": "{ hello }"}, extra=with_client(certs, "mallory")).status == 200

    wait_until(mallory_answered, timeout=10, what="the new client CA in use", alive=gw.proc)
    assert curl(https(gw), json_body={"query": "{ hello }"}, extra=with_client(certs, "alice")).status == 401


def test_the_client_certificate_subject_is_logged_and_rate_limited(gqlgate, client_certificates):
    certs = client_certificates
    limit = "clients:\n  rate_limit: {requests_per_second: 0.01, burst: 1}\n"
    gw = gqlgate(config=tls_config(*certs["server"], certs["ca"][0], extra=limit), ready=tls_ready(certs["server"][0]))
    first = curl(https(gw), json_body={"query": "{ hello }"}, extra=with_client(certs, "alice"))
    assert first.status == 200, str(first)
    assert_gateway_error(curl(https(gw), json_body={"query": "{ hello }"}, extra=with_client(certs, "alice")), 429, "RATE_LIMITED")
    # Another subject from the same address has a bucket of its own.
    assert curl(https(gw), json_body={"query": "{ hello }"}, extra=with_client(certs, "bob")).status == 200
    line = wait_for_record(gw.proc, msg="request", request_id=first.header("x-request-id"))
    assert line["client_cert"] == "CN=alice,O=gqlgate-test", line
    refused = curl(https(gw), json_body={"query": "{ hello }"}, extra=with_client(certs, None))
    assert_gateway_error(refused, 401, "UNAUTHENTICATED")
    assert "client_cert" not in wait_for_record(gw.proc, msg="request", request_id=refused.header("x-request-id"))
