"""Helpers shared by the integration tests: ports, processes, curl."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import signal
import socket
import subprocess
import tempfile
import time
import typing
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent

# ---------------------------------------------------------------------------
# Ports


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def closed_port() -> int:
    """A port where a connection is refused (nothing listens there)."""
    return free_port()


def port_open(host: str, port: int, timeout: float = 0.2) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


class NotReady(Exception):
    pass


def wait_until(
    predicate: typing.Callable[[], bool],
    *,
    timeout: float,
    what: str,
    interval: float = 0.05,
    alive: typing.Optional["Process"] = None,
) -> None:
    """Poll ``predicate`` until it is true; fail after ``timeout`` seconds or when ``alive`` exits."""
    deadline = time.monotonic() + timeout
    while True:
        if alive is not None and alive.exited():
            raise NotReady(f"{alive.name} exited with {alive.returncode} while waiting for {what}\n{alive.describe()}")
        try:
            if predicate():
                return
        except Exception:  # noqa: BLE001 - keep polling
            pass
        if time.monotonic() > deadline:
            extra = f"\n{alive.describe()}" if alive is not None else ""
            raise NotReady(f"timed out after {timeout}s waiting for {what}{extra}")
        time.sleep(interval)


def wait_for_port(host: str, port: int, *, timeout: float = 20.0, alive: typing.Optional["Process"] = None) -> None:
    wait_until(lambda: port_open(host, port), timeout=timeout, what=f"{host}:{port} to accept connections", alive=alive)


def http_status(url: str, timeout: float = 1.0) -> int:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def wait_for_http(
    url: str, *, status: int = 200, timeout: float = 20.0, alive: typing.Optional["Process"] = None
) -> None:
    wait_until(lambda: http_status(url) == status, timeout=timeout, what=f"GET {url} -> {status}", alive=alive)


# ---------------------------------------------------------------------------
# Processes


def clean_env(extra: typing.Optional[dict[str, str]] = None) -> dict[str, str]:
    """The test runner's environment without any GQLGATE_* setting, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GQLGATE_")}
    env.update(extra or {})
    return env


def _tail(path: Path, limit: int = 8000) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    text = data[-limit:].decode("utf-8", "replace")
    return ("...\n" if len(data) > limit else "") + text


class Process:
    """A child process whose stdout and stderr go to files kept for failure messages."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        *,
        workdir: Path,
        env: typing.Optional[dict[str, str]] = None,
        cwd: typing.Optional[Path] = None,
    ) -> None:
        self.name = name
        self.argv = argv
        workdir.mkdir(parents=True, exist_ok=True)
        fd, out = tempfile.mkstemp(prefix=f"{name}-", suffix=".stdout", dir=workdir)
        os.close(fd)
        self.stdout_path = Path(out)
        self.stderr_path = self.stdout_path.with_suffix(".stderr")
        self._out = open(self.stdout_path, "wb")
        self._err = open(self.stderr_path, "wb")
        self.popen = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=self._out,
            stderr=self._err,
            env=env,
            cwd=str(cwd) if cwd else None,
            start_new_session=True,
        )
        self.stopped = False

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> typing.Optional[int]:
        return self.popen.poll()

    def exited(self) -> bool:
        return self.popen.poll() is not None

    def stdout(self) -> str:
        return _tail(self.stdout_path)

    def stderr(self) -> str:
        return _tail(self.stderr_path)

    def describe(self) -> str:
        rc = self.popen.poll()
        state = "running" if rc is None else f"exited with {rc}"
        return (
            f"--- {self.name} ({state}): {shlex.join(self.argv)}\n"
            f"--- stdout:\n{self.stdout()}\n--- stderr:\n{self.stderr()}"
        )

    def stop(self, timeout: float = 2.0) -> typing.Optional[int]:
        """SIGTERM, wait up to ``timeout``, then SIGKILL.

        The processes are idle when stopped, so a prompt exit is expected;
        test_cli.py checks the SIGTERM exit itself.
        """
        if not self.stopped:
            self.stopped = True
            if self.popen.poll() is None:
                try:
                    self.popen.send_signal(signal.SIGTERM)
                    self.popen.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    self.popen.kill()
                    self.popen.wait(timeout=10)
                except ProcessLookupError:
                    pass
            self._out.close()
            self._err.close()
        return self.popen.returncode


class ProcessGroup:
    """Every process started through it is stopped by ``stop_all``."""

    def __init__(self, workdir: Path, registry: list[Process]) -> None:
        self.workdir = workdir
        self.registry = registry
        self.procs: list[Process] = []

    def start(self, name: str, argv: list[str], **kw: typing.Any) -> Process:
        p = Process(name, argv, workdir=self.workdir, **kw)
        self.procs.append(p)
        self.registry.append(p)
        return p

    def stop_all(self) -> None:
        for p in reversed(self.procs):
            p.stop()
            if p in self.registry:
                self.registry.remove(p)
        self.procs.clear()


def address_in_use(proc: Process) -> bool:
    text = (proc.stderr() + proc.stdout()).lower()
    return "address already in use" in text or "address in use" in text or "eaddrinuse" in text


# ---------------------------------------------------------------------------
# curl


@dataclasses.dataclass
class Response:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    time_total: float
    command: list[str]

    def header(self, name: str) -> typing.Optional[str]:
        """The value of a header (several joined by ', '), or None."""
        values = self.header_values(name)
        return ", ".join(values) if values else None

    def header_values(self, name: str) -> list[str]:
        n = name.lower()
        return [v for k, v in self.headers if k.lower() == n]

    def json(self) -> typing.Any:
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def __str__(self) -> str:
        hdrs = "\n".join(f"  {k}: {v}" for k, v in self.headers)
        body = self.body[:2000].decode("utf-8", "replace")
        return f"HTTP {self.status} in {self.time_total:.3f}s\n{hdrs}\n  body: {body}\n  ({shlex.join(self.command)})"


def parse_header_dump(raw: bytes) -> list[tuple[str, str]]:
    """Headers of the last response in a ``curl -D`` dump (skips 1xx and earlier blocks)."""
    text = raw.decode("latin-1")
    blocks = [b for b in text.replace("\r\n", "\n").split("\n\n") if b.strip()]
    if not blocks:
        return []
    lines = blocks[-1].split("\n")
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers.append((k.strip(), v.strip()))
    return headers


_CURL_WRITE_OUT = "%{http_code} %{time_total}"


def curl(
    url: str,
    *,
    method: typing.Optional[str] = None,
    json_body: typing.Any = None,
    data: typing.Optional[typing.Union[bytes, str]] = None,
    content_type: typing.Optional[str] = "application/json",
    headers: typing.Optional[dict[str, str]] = None,
    params: typing.Optional[dict[str, str]] = None,
    timeout: float = 15.0,
    extra: typing.Optional[list[str]] = None,
) -> Response:
    """One request with the curl command-line tool, as a user would send it.

    ``json_body`` is serialised to JSON; ``data`` is sent as is. With a body
    the method defaults to POST and ``Content-Type`` to ``content_type``
    (``None`` sends none). ``params`` are URL-encoded into the query string.
    """
    with tempfile.TemporaryDirectory(prefix="curl-") as tmp:
        t = Path(tmp)
        body_file, header_file = t / "body", t / "headers"
        cmd = [
            "curl", "-sS", "--max-time", str(timeout),
            "-o", str(body_file), "-D", str(header_file), "-w", _CURL_WRITE_OUT,
        ]  # fmt: skip
        if json_body is not None:
            data = json.dumps(json_body)
        if data is not None:
            payload = t / "payload"
            payload.write_bytes(data.encode() if isinstance(data, str) else data)
            cmd += ["--data-binary", f"@{payload}"]
            if content_type is None:
                cmd += ["-H", "Content-Type:"]
            else:
                cmd += ["-H", f"Content-Type: {content_type}"]
            # No 'Expect: 100-continue' round trip for bodies over 1 KiB.
            cmd += ["-H", "Expect:"]
        elif content_type is not None and method not in (None, "GET", "HEAD"):
            cmd += ["-H", f"Content-Type: {content_type}"]
        if params is not None:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params, quote_via=urllib.parse.quote)
        if method is not None:
            cmd += ["-X", method]
        for k, v in (headers or {}).items():
            cmd += ["-H", f"{k}: {v}"]
        cmd += extra or []
        cmd += [url]
        proc = subprocess.run(cmd, capture_output=True, timeout=timeout + 5)
        if proc.returncode != 0:
            raise CurlError(cmd, proc.returncode, proc.stderr.decode("utf-8", "replace"))
        code, time_total = proc.stdout.decode().split()
        return Response(
            status=int(code),
            headers=parse_header_dump(header_file.read_bytes()),
            body=body_file.read_bytes() if body_file.exists() else b"",
            time_total=float(time_total),
            command=cmd,
        )


class CurlError(Exception):
    def __init__(self, cmd: list[str], rc: int, stderr: str) -> None:
        super().__init__(f"curl exited {rc}: {stderr.strip()}\n  ({shlex.join(cmd)})")
        self.rc = rc
        self.stderr = stderr


def post_graphql(url: str, query: str, variables: typing.Any = None, operation_name: typing.Any = None, **kw: typing.Any) -> Response:
    body: dict[str, typing.Any] = {"query": query}
    if variables is not None:
        body["variables"] = variables
    if operation_name is not None:
        body["operationName"] = operation_name
    return curl(url, json_body=body, **kw)


# A header gqlgate's CSRF rule (csrf.required_headers) accepts on a request
# without Content-Type, such as a GET: what Apollo clients send.
PREFLIGHT = {"Apollo-Require-Preflight": "true"}

# The media type the contract's table of gateway-made answers holds for (as does a request
# without Accept). curl sends Accept: */*, which gets application/json, where a GraphQL request
# error (syntax, limits, operation selection) is 200 (GraphQL over HTTP).
GRAPHQL_RESPONSE = {"Accept": "application/graphql-response+json"}


def get_graphql(url: str, query: str, variables: typing.Any = None, operation_name: typing.Any = None, **kw: typing.Any) -> Response:
    """A GET with the query in the URL, and ``PREFLIGHT`` beside ``headers``."""
    kw["headers"] = {**PREFLIGHT, **(kw.get("headers") or {})}
    params = {"query": query}
    if variables is not None:
        params["variables"] = json.dumps(variables)
    if operation_name is not None:
        params["operationName"] = operation_name
    return curl(url, params=params, **kw)


# ---------------------------------------------------------------------------
# Assertions


def assert_gateway_error(resp: Response, status: int, code: str) -> dict:
    """A gateway-made error: status, GraphQL error body with extensions.code, X-Request-Id."""
    assert resp.status == status, f"expected {status} {code}, got:\n{resp}"
    try:
        body = resp.json()
    except ValueError:
        raise AssertionError(f"error body is not JSON:\n{resp}") from None
    assert isinstance(body, dict), f"error body is not a JSON object:\n{resp}"
    errors = body.get("errors")
    assert isinstance(errors, list) and errors, f"no 'errors' list:\n{resp}"
    for err in errors:
        assert isinstance(err, dict), f"error entry is not an object:\n{resp}"
        assert isinstance(err.get("message"), str) and err["message"], f"error without a message:\n{resp}"
        assert isinstance(err.get("extensions"), dict), f"error without extensions:\n{resp}"
    codes = [e["extensions"].get("code") for e in errors]
    assert code in codes, f"expected extensions.code {code}, got {codes}:\n{resp}"
    ctype = (resp.header("Content-Type") or "").lower()
    assert ctype.startswith("application/json") or ctype.startswith(
        "application/graphql-response+json"
    ), f"error answer Content-Type is {ctype!r}:\n{resp}"
    assert resp.header("X-Request-Id"), f"error answer without X-Request-Id:\n{resp}"
    return body


def yaml_config(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _status_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for process {pid}")


def rss_kib(pid: int) -> int:
    """A process's resident memory now, in KiB."""
    return _status_kib(pid, "VmRSS")


def peak_rss_kib(pid: int) -> int:
    """A process's peak resident memory so far, in KiB."""
    return _status_kib(pid, "VmHWM")


def access_record(gw, request_id: str) -> dict:
    """The JSON access line gqlgate wrote to stderr for `request_id`, waited for."""

    def find() -> dict | None:
        for line in gw.proc.stderr().splitlines():
            if line.startswith("{") and f'"request_id":"{request_id}"' in line:
                return json.loads(line)
        return None

    wait_until(lambda: find() is not None, timeout=10, what=f"the access line of {request_id}", alive=gw.proc)
    return typing.cast(dict, find())


def logged(gw, message: str) -> bool:
    """Whether gqlgate wrote a log line with ``message`` to stderr so far."""
    return any(f'"msg":"{message}"' in line for line in gw.proc.stderr().splitlines())


def wait_for_schema_learned(gw) -> None:
    """Wait until gqlgate learned the upstream schema: the introspection query it sends at start reached the upstream,
    so the upstream requests counted after it are the test's own."""
    wait_until(lambda: logged(gw, "upstream schema learned"), timeout=10, what="the upstream schema", alive=gw.proc)
