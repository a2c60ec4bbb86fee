"""`gqlgate check-config` reads every file the config names, like `nginx -t`: a missing file or
one that is not what its key needs is exit 1 with the key and the file named, in the very words
`run` refuses to start with; `--skip-files` leaves the files alone. `auth.bearer_token_file` is
the one file `run` starts without (a token writer may create it later): it logs it."""

from __future__ import annotations

import hashlib
import json
import typing
from pathlib import Path

import pytest

from harness import post_graphql, wait_until
from test_cli import Run, run_cli
from test_ops import wait_for_record
from test_tls import make_certificate

UPSTREAM = "upstream:\n  url: http://127.0.0.1:9/graphql\n"
HELLO = "query Hello { hello }"
MANIFEST = {"format": "apollo-persisted-query-manifest", "version": 1, "operations": [
    {"id": hashlib.sha256(HELLO.encode()).hexdigest(), "name": "Hello", "type": "query", "body": HELLO}]}  # fmt: skip


class Files(typing.NamedTuple):
    """Good files of every kind, and bad ones."""

    cert: Path
    key: Path
    other_key: Path
    keys: Path
    token: Path
    manifest: Path
    not_json: Path
    not_pem: Path
    empty: Path
    missing: Path


@pytest.fixture()
def files(tmp_path: Path) -> Files:
    cert, key = make_certificate(tmp_path)
    _, other_key = make_certificate(tmp_path, "other-")
    (tmp_path / "keys.txt").write_text("client-key-1\n")
    (tmp_path / "token").write_text("upstream-token\n")
    (tmp_path / "manifest.json").write_text(json.dumps(MANIFEST))
    (tmp_path / "not.json").write_text("operations: [not json")
    (tmp_path / "not.pem").write_text("this is no certificate\n")
    (tmp_path / "empty").write_text("")
    return Files(cert, key, other_key, tmp_path / "keys.txt", tmp_path / "token", tmp_path / "manifest.json",
                 tmp_path / "not.json", tmp_path / "not.pem", tmp_path / "empty", tmp_path / "missing.file")  # fmt: skip


def config(
    *, cert: Path | None = None, key: Path | None = None, client_ca: Path | None = None, keys: Path | None = None,
    token: Path | None = None, manifests: typing.Sequence[Path] = (),
) -> str:  # fmt: skip
    text = UPSTREAM + "server:\n  listen: 127.0.0.1:0\n"
    if cert or key:
        text += f"  tls: {{cert_file: '{cert or ''}', key_file: '{key or ''}', client_ca_file: '{client_ca or ''}'}}\n"
    if token:
        text += f"auth:\n  bearer_token_file: {token}\n"
    if keys:
        text += f"clients:\n  api_keys_file: {keys}\n"
    if manifests:
        text += f"persisted_documents:\n  manifests: [{', '.join(str(m) for m in manifests)}]\n"
    return text


def check(gqlgate_bin: str, tmp_path: Path, text: str, *flags: str) -> Run:
    path = tmp_path / "gqlgate.yaml"
    path.write_text(text)
    return run_cli(gqlgate_bin, "check-config", *flags, str(path), cwd=tmp_path)


def run_refusal(gqlgate_bin: str, tmp_path: Path, text: str) -> Run:
    path = tmp_path / "gqlgate.yaml"
    path.write_text(text)
    return run_cli(gqlgate_bin, "run", "--config", str(path), cwd=tmp_path)


def test_every_kind_of_file_in_order_passes(gqlgate_bin, tmp_path, files):
    good = config(cert=files.cert, key=files.key, client_ca=files.cert, keys=files.keys, token=files.token,
                  manifests=[files.manifest])  # fmt: skip
    r = check(gqlgate_bin, tmp_path, good)
    assert r.rc == 0 and "api_keys_file" in r.stdout, str(r)


# (config maker, key named): each a missing file and a file that is not what the key needs.
CASES: dict[str, tuple[typing.Callable[[Files], str], str, str]] = {
    "tls cert missing": (lambda f: config(cert=f.missing, key=f.key), "server.tls.cert_file", "missing"),
    "tls cert not pem": (lambda f: config(cert=f.not_pem, key=f.key), "server.tls.cert_file", "not_pem"),
    "tls key missing": (lambda f: config(cert=f.cert, key=f.missing), "server.tls.key_file", "missing"),
    "tls key not pem": (lambda f: config(cert=f.cert, key=f.not_pem), "server.tls.key_file", "not_pem"),
    "tls key of another cert": (lambda f: config(cert=f.cert, key=f.other_key), "server.tls.key_file", ""),
    "tls client ca missing": (lambda f: config(cert=f.cert, key=f.key, client_ca=f.missing), "server.tls.client_ca_file", "missing"),
    "tls client ca not pem": (lambda f: config(cert=f.cert, key=f.key, client_ca=f.not_pem), "server.tls.client_ca_file", "not_pem"),
    "api keys missing": (lambda f: config(keys=f.missing), "clients.api_keys_file", "missing"),
    "api keys empty": (lambda f: config(keys=f.empty), "clients.api_keys_file", "empty"),
    "manifest missing": (lambda f: config(manifests=[f.manifest, f.missing]), "persisted_documents.manifests", "missing"),
    "manifest not json": (lambda f: config(manifests=[f.not_json]), "persisted_documents.manifests", "not_json"),
    "manifest a certificate": (lambda f: config(manifests=[f.cert]), "persisted_documents.manifests", "cert"),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_bad_file_is_exit_1_naming_key_and_file_as_run_says_it(gqlgate_bin, tmp_path, files, case):
    make, key, file_field = CASES[case]
    text = make(files)
    r = check(gqlgate_bin, tmp_path, text)
    assert r.rc == 1, str(r)
    assert r.stdout == "", str(r)
    assert f": {key}: " in r.stderr, str(r)
    if file_field:
        assert Path(getattr(files, file_field)).name in r.stderr, str(r)
    refused = run_refusal(gqlgate_bin, tmp_path, text)
    assert refused.rc == 1, str(refused)
    assert refused.stderr.strip() == r.stderr.strip(), f"check-config:\n{r}\nrun:\n{refused}"
    skipped = check(gqlgate_bin, tmp_path, text, "--skip-files")
    assert skipped.rc == 0, str(skipped)


@pytest.mark.parametrize("which", ["missing", "empty"])
def test_a_bearer_token_file_not_there_fails_the_check_but_not_run(gqlgate_bin, gqlgate, strawberry_upstream, tmp_path, files, which):
    token = getattr(files, which)
    r = check(gqlgate_bin, tmp_path, config(token=token))
    assert r.rc == 1 and "auth.bearer_token_file" in r.stderr and token.name in r.stderr, str(r)
    assert check(gqlgate_bin, tmp_path, config(token=token), "--skip-files").rc == 0
    # run starts, says so, and sends the token once a writer beside it puts one there.
    gw = gqlgate(strawberry_upstream.path("/echo-headers"), config=f"auth:\n  bearer_token_file: {token}\n")
    warning = wait_for_record(gw.proc, msg="bearer token file not ready")
    assert "auth.bearer_token_file" in warning["error"] and token.name in warning["error"], warning
    assert post_graphql(gw.url, "{ x }").status != 200
    token.write_text("written-later\n")

    def sent() -> bool:
        answer = post_graphql(gw.url, "{ x }")
        return answer.status == 200 and answer.json()["data"]["headers"]["authorization"] == "Bearer written-later"

    wait_until(sent, timeout=5, what="the token written after start to be sent")


def test_every_problem_is_listed_not_only_the_first(gqlgate_bin, tmp_path, files):
    r = check(gqlgate_bin, tmp_path, config(cert=files.not_pem, key=files.key, keys=files.missing, manifests=[files.not_json]))
    assert r.rc == 1, str(r)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 3, str(r)
    for key in ("server.tls.cert_file", "clients.api_keys_file", "persisted_documents.manifests"):
        assert any(f": {key}: " in line for line in lines), str(r)
