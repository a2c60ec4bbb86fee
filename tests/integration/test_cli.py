"""The command line: flags, exit codes, config checking, precedence."""

from __future__ import annotations

import signal
import subprocess
import typing
from pathlib import Path

import pytest

from harness import clean_env, closed_port, free_port, post_graphql

VALID_CONFIG = """\
server:
  listen: 127.0.0.1:18080
  max_body_bytes: 2KiB
upstream:
  url: http://127.0.0.1:4999/graphql
  timeout: 750ms
retry:
  max_attempts: 2
"""


class Run(typing.NamedTuple):
    rc: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def __str__(self) -> str:
        return f"exit {self.rc}\n--- stdout:\n{self.stdout}\n--- stderr:\n{self.stderr}"


def run_cli(binary: str, *args: str, cwd: Path, env: typing.Optional[dict[str, str]] = None, timeout: float = 10) -> Run:
    """Runs gqlgate to completion. A gqlgate that is still running after ``timeout`` fails the test."""
    proc = subprocess.Popen(
        [binary, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=clean_env(env),
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(
            f"gqlgate {' '.join(args)} still running after {timeout}s\n--- stdout:\n{out.decode(errors='replace')}"
            f"\n--- stderr:\n{err.decode(errors='replace')}"
        )
    return Run(proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"))


@pytest.fixture
def cli(gqlgate_bin: str, tmp_path: Path) -> typing.Callable[..., Run]:
    def call(*args: str, env: typing.Optional[dict[str, str]] = None, timeout: float = 10) -> Run:
        return run_cli(gqlgate_bin, *args, cwd=tmp_path, env=env, timeout=timeout)

    return call


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


# ---------------------------------------------------------------------------
# Flags


def test_version(cli):
    r = cli("--version")
    assert r.rc == 0, str(r)
    assert r.stdout.strip(), str(r)


def test_help(cli):
    r = cli("--help")
    assert r.rc == 0, str(r)
    for word in ("run", "demo", "check-config"):
        assert word in r.stdout, f"--help does not mention {word}:\n{r}"


@pytest.mark.parametrize(
    "args",
    [
        ["--no-such-flag"],
        ["run", "--no-such-flag", "--upstream", "http://127.0.0.1:4999/graphql"],
        ["no-such-command"],
    ],
    ids=["top-level", "run", "subcommand"],
)
def test_unknown_flag_is_usage_error(cli, args):
    r = cli(*args)
    assert r.rc == 2, str(r)


@pytest.mark.parametrize(
    "args",
    [
        ["--log-level", "loud"],
        ["--listen", "127.0.0.1:notaport"],
    ],
    ids=["log-level", "listen"],
)
def test_bad_flag_value_is_usage_error(cli, args):
    r = cli("run", "--upstream", "http://127.0.0.1:4999/graphql", *args)
    assert r.rc == 2, str(r)


@pytest.mark.parametrize("args", [[], ["run"]], ids=["bare", "run"])
def test_no_upstream_configured(cli, args):
    r = cli(*args, "--listen", f"127.0.0.1:{free_port()}") if args else cli()
    assert r.rc == 2, str(r)
    assert "--upstream" in r.stderr, str(r)
    assert "gqlgate demo" in r.stderr, str(r)


# ---------------------------------------------------------------------------
# check-config


def test_check_config_valid(cli, tmp_path):
    r = cli("check-config", write(tmp_path, "good.yaml", VALID_CONFIG))
    assert r.rc == 0, str(r)
    assert "http://127.0.0.1:4999/graphql" in r.stdout, f"effective config not printed:\n{r}"


def test_check_config_empty_file_is_valid(cli, tmp_path):
    r = cli("check-config", write(tmp_path, "empty.yaml", ""))
    assert r.rc == 0, str(r)


@pytest.mark.parametrize(
    "text,key",
    [
        (VALID_CONFIG.replace("  timeout: 750ms", "  timout: 750ms"), "upstream.timout"),
        (VALID_CONFIG + "bogus_section:\n  a: 1\n", "bogus_section"),
        (VALID_CONFIG.replace("  max_body_bytes: 2KiB", "  max_body_bytes: 2KiB\n  colour: blue"), "server.colour"),
    ],
    ids=["nested", "top-level", "server"],
)
def test_check_config_unknown_key(cli, tmp_path, text, key):
    r = cli("check-config", write(tmp_path, "unknown.yaml", text))
    assert r.rc == 1, str(r)
    assert key in r.output, f"the error does not name {key}:\n{r}"


def test_check_config_bad_value_names_key_and_value(cli, tmp_path):
    r = cli("check-config", write(tmp_path, "badvalue.yaml", VALID_CONFIG.replace("750ms", "soonish")))
    assert r.rc == 1, str(r)
    assert "upstream.timeout" in r.output, str(r)
    assert "soonish" in r.output, str(r)


def test_check_config_invalid_yaml(cli, tmp_path):
    r = cli("check-config", write(tmp_path, "broken.yaml", "server: {listen: [unclosed\n"))
    assert r.rc == 1, str(r)


def test_check_config_missing_file(cli, tmp_path):
    r = cli("check-config", str(tmp_path / "does-not-exist.yaml"))
    assert r.rc == 1, str(r)


@pytest.mark.parametrize(
    "text",
    [
        VALID_CONFIG.replace("  timeout: 750ms", "  timout: 750ms"),
        VALID_CONFIG.replace("750ms", "soonish"),
        "server: {listen: [unclosed\n",
    ],
    ids=["unknown-key", "bad-value", "bad-yaml"],
)
def test_run_with_bad_config_exits_1(cli, tmp_path, text):
    path = write(tmp_path, "bad.yaml", text)
    r = cli("run", "--config", path, "--listen", f"127.0.0.1:{free_port()}", "--upstream", "http://127.0.0.1:4999/graphql")
    assert r.rc == 1, str(r)


def test_non_loopback_listen_without_client_auth_is_refused(cli):
    r = cli("run", "--listen", f"0.0.0.0:{free_port()}", "--upstream", "http://127.0.0.1:4999/graphql")
    assert r.rc == 1, str(r)
    assert "clients.allow_anonymous" in r.output, str(r)
    assert "clients.api_keys_file" in r.output, str(r)


def test_unreadable_client_key_file_is_a_config_error(cli, tmp_path):
    path = write(tmp_path, "keys.yaml", "clients:\n  api_keys_file: /nonexistent/client-keys\n")
    r = cli("run", "--config", path, "--listen", f"127.0.0.1:{free_port()}", "--upstream", "http://127.0.0.1:4999/graphql")
    assert r.rc == 1, str(r)
    assert "clients.api_keys_file" in r.output and "/nonexistent/client-keys" in r.output, str(r)


# ---------------------------------------------------------------------------
# Where the upstream comes from: flag > environment > config file


def test_upstream_from_environment(gqlgate, strawberry_upstream):
    gw = gqlgate(use_upstream_flag=False, env={"GQLGATE_UPSTREAM": strawberry_upstream.url})
    r = post_graphql(gw.url, "{ hello }")
    assert r.status == 200, str(r)
    assert r.json() == {"data": {"hello": "Hello, world!"}}


def test_upstream_from_config_file(gqlgate, strawberry_upstream):
    gw = gqlgate(use_upstream_flag=False, config=f"upstream:\n  url: {strawberry_upstream.url}\n")
    r = post_graphql(gw.url, "{ hello }")
    assert r.status == 200, str(r)


def test_flag_beats_environment(gqlgate, strawberry_upstream):
    down = f"http://127.0.0.1:{closed_port()}/graphql"
    gw = gqlgate(strawberry_upstream.url, env={"GQLGATE_UPSTREAM": down})
    r = post_graphql(gw.url, "{ hello }")
    assert r.status == 200, str(r)


def test_environment_beats_config_file(gqlgate, strawberry_upstream):
    down = f"http://127.0.0.1:{closed_port()}/graphql"
    gw = gqlgate(
        use_upstream_flag=False,
        env={"GQLGATE_UPSTREAM": strawberry_upstream.url},
        config=f"upstream:\n  url: {down}\n",
    )
    r = post_graphql(gw.url, "{ hello }")
    assert r.status == 200, str(r)


# ---------------------------------------------------------------------------
# Stopping


def test_sigterm_exits_0(gqlgate):
    gw = gqlgate()
    assert post_graphql(gw.url, "{ hello }").status == 200
    gw.proc.popen.send_signal(signal.SIGTERM)
    try:
        rc = gw.proc.popen.wait(timeout=12)
    except subprocess.TimeoutExpired:
        pytest.fail("gqlgate did not stop within 12s of SIGTERM")
    finally:
        described = gw.proc.describe()
        gw.proc.stop()
    assert rc == 0, f"exit {rc} after SIGTERM\n{described}"

