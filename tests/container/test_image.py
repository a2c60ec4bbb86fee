"""The runtime image, run the way its users run it: podman, read-only root filesystem, no
capabilities, a mounted config, a real upstream (the demo API), stopped with SIGTERM."""

from __future__ import annotations

import http.server
import json
import subprocess
import threading
import typing
import uuid
from pathlib import Path

import pytest
import yaml
from conftest import DIST_BINARY, REPO_ROOT, Container, DemoAPI, Podman
from harness import curl, free_port, post_graphql, wait_for_http, wait_until

HERO = "query Hero($episode: Episode) { hero(episode: $episode) { id name } }"
CREATE_REVIEW = (
    "mutation Create($episode: Episode!, $review: ReviewInput!) "
    "{ createReview(episode: $episode, review: $review) { stars commentary } }"
)
REVIEWS = "query Reviews($episode: Episode!) { reviews(episode: $episode) { stars commentary } }"


def mounted_config(tmp_path: Path, listen_port: int, upstream: str) -> list[str]:
    """Flags that mount a config of the test's own over the image's default one."""
    config = tmp_path / "gqlgate.yaml"
    config.write_text(
        f"server:\n  listen: 127.0.0.1:{listen_port}\n  drain_timeout: 20s\n"
        f"upstream:\n  url: {upstream}\n  timeout: 30s\nretry:\n  max_attempts: 1\n"
    )
    config.chmod(0o644)
    return ["--volume", f"{config}:/etc/gqlgate/gqlgate.yaml:ro"]


def data_of(response: typing.Any) -> dict[str, typing.Any]:
    assert response.status == 200, str(response)
    body = response.json()
    assert not body.get("errors"), str(response)
    return body["data"]


def wait_ready(container: Container, port: int) -> None:
    def running() -> bool:
        state = container.state()
        if state["Status"] == "exited":
            raise AssertionError(f"container exited with {state['ExitCode']}:\n{container.logs()}")
        return True

    wait_until(
        lambda: running() and curl(f"http://127.0.0.1:{port}/readyz", timeout=2).status == 200,
        timeout=30,
        what=f"gqlgate in {container.name} ready on {port}",
    )


def host_pid_status(container: Container) -> dict[str, str]:
    """/proc/PID/status of the container's first process, read from the host."""
    pid = container.state()["Pid"]
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


def test_image_metadata(podman: Podman, gqlgate_image: str, dist_binary: Path) -> None:
    config = json.loads(podman.run("image", "inspect", "--format", "{{json .Config}}", gqlgate_image).stdout)
    assert config["User"] == "65532:65532"
    assert config["Entrypoint"] == ["gqlgate"]
    assert config["Cmd"] == ["run", "--config", "/etc/gqlgate/gqlgate.yaml"]
    assert "8080/tcp" in config["ExposedPorts"]
    version = podman.run("run", "--rm", "--network", "none", gqlgate_image, "--version").stdout.strip()
    assert version and version == config["Labels"]["org.opencontainers.image.version"]
    assert config["Labels"]["org.opencontainers.image.title"] == "gqlgate"


# Modes of a Debian root as debootstrap leaves them (and as debian:bookworm-slim has them).
DEBIAN_ROOT_MODES = {"/": "755", "/usr": "755", "/etc": "755", "/usr/local/bin": "755", "/tmp": "1777", "/root": "700"}


def modes(podman: Podman, image: str) -> dict[str, str]:
    """The modes of DEBIAN_ROOT_MODES's paths in an image, read by user 65532."""
    out = podman.run(
        "run", "--rm", "--network", "none", "--user", "65532:65532", "--entrypoint", "stat",
        image, "-c", "%n %a", *DEBIAN_ROOT_MODES,
    ).stdout  # fmt: skip
    return dict(line.split(" ", 1) for line in out.splitlines())


def test_user_65532_reaches_the_root_and_runs_gqlgate(podman: Podman, gqlgate_image: str) -> None:
    """The image made here from a base of scripts/base-image.sh (no registry to pull one from):
    its root has Debian's modes, so user 65532 runs gqlgate. A base imported with the modes of
    a private temporary folder (/ 0700) gave `gqlgate: executable file not found`."""
    base = podman.run(
        "image", "inspect", "--format", '{{index .Config.Labels "org.opencontainers.image.base.name"}}', gqlgate_image
    ).stdout.strip()
    made_here = subprocess.run(
        [str(REPO_ROOT / "scripts" / "base-image.sh"), "--name"], capture_output=True, text=True, check=True
    ).stdout.strip()
    if not podman.run("image", "exists", "docker.io/library/debian:bookworm-slim", check=False).returncode == 0:
        assert base == made_here, f"the image was built on {base!r}, not on the base made here ({made_here})"
    assert modes(podman, base) == DEBIAN_ROOT_MODES
    assert modes(podman, gqlgate_image) == DEBIAN_ROOT_MODES
    as_user = ("run", "--rm", "--network", "none", "--user", "65532:65532")
    assert podman.run(*as_user, "--entrypoint", "id", gqlgate_image, "-u").stdout.strip() == "65532"
    version = podman.run(*as_user, gqlgate_image, "--version").stdout.strip()
    assert version == subprocess.run([str(DIST_BINARY), "--version"], capture_output=True, text=True).stdout.strip()
    executable = podman.run(*as_user, "--entrypoint", "test", gqlgate_image, "-x", "/usr/local/bin/gqlgate", check=False)
    assert executable.returncode == 0, executable


def test_default_config_checks_and_listens_on_the_container_port(podman: Podman, gqlgate_image: str) -> None:
    checked = podman.run(
        "run", "--rm", "--network", "none", "--read-only", "--cap-drop=ALL",
        gqlgate_image, "check-config", "/etc/gqlgate/gqlgate.yaml",
    )  # fmt: skip
    printed = yaml.safe_load(checked.stdout)
    assert printed["server"]["listen"] == "0.0.0.0:8080"
    assert printed["upstream"]["url"] == "http://127.0.0.1:4000/graphql"
    assert printed["logging"]["format"] == "json"
    assert printed["clients"]["allow_anonymous"] is True


def test_default_config_with_upstream_from_environment(start_container: typing.Callable[..., Container], demo_api: DemoAPI) -> None:
    port = free_port()
    container = start_container("--env", f"GQLGATE_UPSTREAM={demo_api.url}", "--env", f"GQLGATE_LISTEN=127.0.0.1:{port}")
    wait_ready(container, port)
    hero = data_of(post_graphql(f"http://127.0.0.1:{port}/graphql", HERO, {"episode": "JEDI"}))["hero"]
    assert hero["name"]
    lines = [line for line in container.logs().splitlines() if line.strip()]
    assert lines, "no log lines"
    records = [json.loads(line) for line in lines]  # every line one JSON object
    assert any(r.get("msg") == "listening" for r in records), lines
    assert any(demo_api.url in json.dumps(r) for r in records), lines


def test_query_mutation_and_endpoints_through_the_container(
    start_container: typing.Callable[..., Container], demo_api: DemoAPI, tmp_path: Path
) -> None:
    port = free_port()
    container = start_container(*mounted_config(tmp_path, port, demo_api.url))
    wait_ready(container, port)
    url = f"http://127.0.0.1:{port}/graphql"

    via = post_graphql(url, HERO, {"episode": "EMPIRE"})
    direct = post_graphql(demo_api.url, HERO, {"episode": "EMPIRE"})
    assert data_of(via)["hero"]["name"]
    assert via.body == direct.body

    commentary = f"from a container {uuid.uuid4()}"
    review = {"stars": 4, "commentary": commentary}
    created = data_of(post_graphql(url, CREATE_REVIEW, {"episode": "JEDI", "review": review}))["createReview"]
    assert created == review
    assert review in data_of(post_graphql(demo_api.url, REVIEWS, {"episode": "JEDI"}))["reviews"]

    assert curl(f"http://127.0.0.1:{port}/healthz").status == 200
    assert curl(f"http://127.0.0.1:{port}/readyz").status == 200
    metrics = curl(f"http://127.0.0.1:{port}/metrics")
    assert metrics.status == 200
    assert "gqlgate_requests_total" in metrics.text, metrics.text[:2000]


def test_runs_as_65532_without_capabilities_on_a_read_only_root(
    start_container: typing.Callable[..., Container], demo_api: DemoAPI, tmp_path: Path
) -> None:
    port = free_port()
    container = start_container(*mounted_config(tmp_path, port, demo_api.url))
    wait_ready(container, port)
    status = host_pid_status(container)
    assert status["Name"] == "gqlgate"  # gqlgate itself is the container's first process
    assert status["Uid"].split() == ["65532"] * 4
    assert status["Gid"].split() == ["65532"] * 4
    assert int(status["CapEff"], 16) == 0 and int(status["CapPrm"], 16) == 0
    assert container.exec("cat", "/proc/1/comm").stdout.strip() == "gqlgate"
    written = container.exec("touch", "/etc/gqlgate/x")
    assert written.returncode != 0 and "Read-only file system" in written.stderr, written


class HeldUpstream:
    """An upstream that holds the Hero query until released, so that it stays in flight for as
    long as the test wants, with no sleeping; anything else (the /readyz probe) it answers at once."""

    def __init__(self) -> None:
        self.received = threading.Event()
        self.release = threading.Event()
        held = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                request = self.rfile.read(int(self.headers["Content-Length"]))
                if b"Hero" in request:
                    held.received.set()
                    held.release.wait(60)
                    body = b'{"data":{"hero":{"id":"2001","name":"R2-D2"}}}'
                else:
                    body = b'{"data":{"__typename":"Query"}}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: typing.Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/graphql"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def held_upstream() -> typing.Iterator[HeldUpstream]:
    upstream = HeldUpstream()
    yield upstream
    upstream.close()


def test_sigterm_finishes_the_request_in_flight_and_exits_0(
    podman: Podman, start_container: typing.Callable[..., Container], held_upstream: HeldUpstream, tmp_path: Path
) -> None:
    port = free_port()
    container = start_container(*mounted_config(tmp_path, port, held_upstream.url))
    wait_ready(container, port)

    answers: list[typing.Any] = []
    client = threading.Thread(target=lambda: answers.append(post_graphql(f"http://127.0.0.1:{port}/graphql", HERO, timeout=60)))
    client.start()
    assert held_upstream.received.wait(30), "the request never reached the upstream"

    stop = threading.Thread(target=lambda: podman.run("stop", "--time", "30", container.name, timeout=60))
    stop.start()
    wait_until(lambda: '"draining"' in container.logs(), timeout=30, what="gqlgate to start draining")
    held_upstream.release.set()

    client.join(60)
    stop.join(60)
    assert answers and data_of(answers[0])["hero"] == {"id": "2001", "name": "R2-D2"}
    assert container.wait() == 0, container.logs()
    records = [json.loads(line) for line in container.logs().splitlines() if line.strip()]
    assert records[-1]["msg"] == "stopped", records[-3:]


def test_plain_podman_stop_exits_0(
    podman: Podman, start_container: typing.Callable[..., Container], demo_api: DemoAPI, tmp_path: Path
) -> None:
    port = free_port()
    container = start_container(*mounted_config(tmp_path, port, demo_api.url))
    wait_ready(container, port)
    assert data_of(post_graphql(f"http://127.0.0.1:{port}/graphql", HERO))["hero"]["name"]
    podman.run("stop", container.name)  # SIGTERM, then SIGKILL after podman's default 10 s
    assert container.wait() == 0, container.logs()
    assert '"msg":"stopped"' in container.logs()
