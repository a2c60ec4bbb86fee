"""`gqlgate demo`: the embedded Star Wars reviews API with gqlgate in front of it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest
from harness import NotReady, Process, clean_env, free_port, post_graphql, wait_for_http, wait_until
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

HERO = "query Hero($episode: Episode) { hero(episode: $episode) { id name friends { id name } } }"
REVIEWS = "query Reviews($episode: Episode!) { reviews(episode: $episode) { stars commentary } }"
CREATE_REVIEW = (
    "mutation Create($episode: Episode!, $review: ReviewInput!) "
    "{ createReview(episode: $episode, review: $review) { stars commentary } }"
)
CREATE_REVIEW_WITH_ID = (
    "mutation Create($episode: Episode!, $review: ReviewInput!) "
    "{ createReview(episode: $episode, review: $review) { id episode stars commentary } }"
)
REVIEW_ADDED = (
    "subscription OnReview($episode: Episode) { reviewAdded(episode: $episode) { id episode stars commentary } }"
)


def data_of(r) -> dict:
    assert r.status == 200, str(r)
    body = r.json()
    assert not body.get("errors"), str(r)
    return body["data"]


def test_hero_through_gateway(demo):
    hero = data_of(post_graphql(demo.url, HERO))["hero"]
    assert isinstance(hero["id"], str) and hero["id"]
    assert isinstance(hero["name"], str) and hero["name"]
    assert isinstance(hero["friends"], list) and hero["friends"]
    assert all(f["name"] for f in hero["friends"])


def test_hero_by_episode_matches_the_demo_api(demo):
    for episode in ("NEWHOPE", "EMPIRE", "JEDI"):
        via = post_graphql(demo.url, HERO, {"episode": episode})
        direct = post_graphql(demo.api_url, HERO, {"episode": episode})
        assert data_of(via)["hero"]["name"]
        assert via.body == direct.body, f"via gqlgate: {via}\ndirect: {direct}"


def test_reviews_inline_argument(demo):
    reviews = data_of(post_graphql(demo.url, "{ reviews(episode: JEDI) { stars commentary } }"))["reviews"]
    assert isinstance(reviews, list)


def test_create_review_then_list_it(demo):
    commentary = f"x {uuid.uuid4()}"
    created = data_of(
        post_graphql(demo.url, CREATE_REVIEW, {"episode": "JEDI", "review": {"stars": 5, "commentary": commentary}})
    )["createReview"]
    assert created == {"stars": 5, "commentary": commentary}
    reviews = data_of(post_graphql(demo.url, REVIEWS, {"episode": "JEDI"}))["reviews"]
    assert reviews.count({"stars": 5, "commentary": commentary}) == 1, reviews
    other = data_of(post_graphql(demo.url, REVIEWS, {"episode": "EMPIRE"}))["reviews"]
    assert {"stars": 5, "commentary": commentary} not in other


def test_create_review_inline_arguments(demo):
    commentary = f"inline {uuid.uuid4()}"
    q = 'mutation { createReview(episode: JEDI, review: {stars: 5, commentary: "%s"}) { stars commentary } }'
    created = data_of(post_graphql(demo.url, q % commentary))["createReview"]
    assert created == {"stars": 5, "commentary": commentary}
    reviews = data_of(post_graphql(demo.url, "{ reviews(episode: JEDI) { stars commentary } }"))["reviews"]
    assert {"stars": 5, "commentary": commentary} in reviews


def test_demo_prints_curl_lines(demo):
    address = f"127.0.0.1:{demo.port}"

    def printed() -> bool:
        out = demo.proc.stdout() + demo.proc.stderr()
        return "curl" in out and address in out

    try:
        wait_until(printed, timeout=5, what="curl lines naming " + address)
    except NotReady:
        raise AssertionError(
            f"within 5s, `gqlgate demo` with its output going to a file printed no curl line naming {address} "
            "(a line printed but not flushed counts as not printed)"
        ) from None


def test_demo_prints_subscription_examples(demo):
    def printed() -> bool:
        out = demo.proc.stdout()
        return all(word in out for word in ("reviewAdded", "text/event-stream", "graphql-transport-ws", "createReview"))

    try:
        wait_until(printed, timeout=5, what="the subscription examples")
    except NotReady:
        raise AssertionError("`gqlgate demo` printed no SSE, WebSocket and createReview lines for reviewAdded") from None
    out = demo.proc.stdout()
    assert f"curl -N -sS -X POST 'http://127.0.0.1:{demo.port}/graphql' -H 'Accept: text/event-stream'" in out
    assert f'connect("ws://127.0.0.1:{demo.port}/graphql", subprotocols=["graphql-transport-ws"])' in out
    snippet = out.split("python3 - <<'EOF'\n", 1)[1].split("\nEOF\n", 1)[0]
    compile(snippet, "printed WebSocket example", "exec")


def _ws_url(demo) -> str:
    return demo.api_url.replace("http://", "ws://", 1)


def _receive(ws) -> dict:
    """The next message, leaving out legacy keep-alives."""
    while True:
        message = json.loads(ws.recv(timeout=10))
        if message.get("type") != "ka":
            return message


def _create_jedi_review(demo, stars: int) -> dict:
    review = {"stars": stars, "commentary": f"ws {uuid.uuid4()}"}
    return data_of(post_graphql(demo.api_url, CREATE_REVIEW_WITH_ID, {"episode": "JEDI", "review": review}))["createReview"]


def test_review_added_over_graphql_transport_ws(demo):
    with connect(_ws_url(demo), subprotocols=["graphql-transport-ws"], open_timeout=10) as ws:
        assert ws.subprotocol == "graphql-transport-ws"
        ws.send(json.dumps({"type": "connection_init"}))
        assert _receive(ws)["type"] == "connection_ack"
        subscribe = {"query": REVIEW_ADDED, "variables": {"episode": "JEDI"}}
        ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": subscribe}))
        # Operations of one socket start in order: once this query answers, the subscription listens.
        ws.send(json.dumps({"id": "2", "type": "subscribe", "payload": {"query": "{ hero { name } }"}}))
        assert _receive(ws) == {"id": "2", "type": "next", "payload": {"data": {"hero": {"name": "R2-D2"}}}}
        assert _receive(ws) == {"id": "2", "type": "complete"}

        data_of(post_graphql(demo.api_url, CREATE_REVIEW, {"episode": "EMPIRE", "review": {"stars": 1}}))
        created = _create_jedi_review(demo, 4)
        assert _receive(ws) == {"id": "1", "type": "next", "payload": {"data": {"reviewAdded": created}}}

        ws.send(json.dumps({"id": "1", "type": "complete"}))
        ws.send(json.dumps({"type": "ping"}))
        assert _receive(ws) == {"type": "pong"}


def test_review_added_over_legacy_graphql_ws(demo):
    with connect(_ws_url(demo), subprotocols=["graphql-ws"], open_timeout=10) as ws:
        assert ws.subprotocol == "graphql-ws"
        ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        ws.send(json.dumps({"id": "a", "type": "start", "payload": {"query": REVIEW_ADDED}}))
        ws.send(json.dumps({"id": "b", "type": "start", "payload": {"query": "{ hero(episode: EMPIRE) { name } }"}}))
        assert _receive(ws)["type"] == "connection_ack"
        assert _receive(ws) == {"id": "b", "type": "data", "payload": {"data": {"hero": {"name": "Luke Skywalker"}}}}
        assert _receive(ws) == {"id": "b", "type": "complete"}

        created = _create_jedi_review(demo, 2)
        assert _receive(ws) == {"id": "a", "type": "data", "payload": {"data": {"reviewAdded": created}}}

        ws.send(json.dumps({"id": "a", "type": "stop"}))
        assert _receive(ws) == {"id": "a", "type": "complete"}


def test_websocket_needs_a_graphql_subprotocol(demo):
    with pytest.raises(InvalidStatus) as refused:
        with connect(_ws_url(demo), subprotocols=["chat"], open_timeout=10):
            pass
    assert refused.value.response.status_code == 400


def _printed_block(out: str, title: str) -> str:
    """The command printed under the comment line ``# <title>...``."""
    after = out.split(f"# {title}", 1)[1].split("\n", 1)[1]
    return after.split("\n\n", 1)[0]


def test_printed_subscription_examples_work_through_the_gateway(demo):
    """`make demo`'s subscription lines, run as printed: curl -N (SSE) and the
    WebSocket snippet follow reviewAdded through gqlgate, and the printed
    createReview makes both print the new review."""
    wait_until(lambda: "# Then, in another terminal" in demo.proc.stdout(), timeout=5, what="the printed examples")
    out = demo.proc.stdout()
    sse_line = _printed_block(out, "Follow new reviews of JEDI as server-sent events")
    ws_snippet = _printed_block(out, "The same over a WebSocket")
    create_line = _printed_block(out, "Then, in another terminal, create a review")
    followers = [
        subprocess.Popen(["bash", "-c", command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for command in (sse_line, ws_snippet.replace("python3", sys.executable, 1))
    ]
    outputs = ["", ""]
    readers = []
    for i, proc in enumerate(followers):
        def read(i=i, proc=proc):
            for chunk in iter(lambda: proc.stdout.readline(), ""):
                outputs[i] += chunk
        readers.append(threading.Thread(target=read, daemon=True))
        readers[-1].start()
    try:
        def both_got_the_review() -> bool:
            # Creating reviews until both followers print one: the first ones may
            # come before a follower's subscription reached the demo API.
            subprocess.run(["bash", "-c", create_line], capture_output=True, check=True, timeout=10)
            return "great movie" in outputs[0] and "great movie" in outputs[1]

        wait_until(both_got_the_review, timeout=15, interval=0.3, what="both followers to print the new review")
        event = outputs[0].split("event: next\n", 1)[1].split("\n", 1)[0]
        assert event.startswith("data: "), outputs[0]
        assert json.loads(event[len("data: "):])["data"]["reviewAdded"]["episode"] == "JEDI"
        assert '"type":"next"' in outputs[1].replace(" ", "") or '"type": "next"' in outputs[1], outputs[1]
    finally:
        for proc in followers:
            proc.kill()
            proc.wait(timeout=5)


def test_api_only_runs_the_demo_api_alone_until_sigterm(gqlgate_bin, proc_dir: Path):
    port = free_port()
    proc = Process(
        "gqlgate-demo-api-only",
        [gqlgate_bin, "demo", "--api-only", "--demo-listen", f"127.0.0.1:{port}"],
        workdir=proc_dir,
        env=clean_env(),
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/healthz", timeout=30, alive=proc)
        url = f"http://127.0.0.1:{port}/graphql"
        assert data_of(post_graphql(url, HERO, {"episode": "JEDI"}))["hero"]["name"]
        commentary = f"api only {uuid.uuid4()}"
        review = {"stars": 3, "commentary": commentary}
        assert data_of(post_graphql(url, CREATE_REVIEW, {"episode": "JEDI", "review": review}))["createReview"] == review
        assert f"demo API listening on {url}" in proc.stderr()
        assert proc.stdout() == "", "no gateway, so no curl examples: " + proc.stdout()
    finally:
        code = proc.stop(timeout=15)
    assert code == 0, proc.describe()


def test_api_only_refuses_a_gateway_listen_address(gqlgate_bin):
    r = subprocess.run(
        [gqlgate_bin, "demo", "--api-only", "--listen", "127.0.0.1:1"],
        capture_output=True, text=True, timeout=30, env=clean_env(),
    )  # fmt: skip
    assert r.returncode == 2, r
    assert "--demo-listen" in r.stderr, r.stderr


def test_the_printed_curl_lines_answer_through_gqlgate(demo):
    """Each printed query, mutation and GET runs as pasted: the GET carries a header the CSRF rule accepts."""
    wait_until(lambda: "A query sent with GET" in demo.proc.stdout(), timeout=5, what="the printed GET example")
    lines = [line for line in demo.proc.stdout().splitlines() if line.startswith("curl -sS ")]
    assert any("--get" in line for line in lines), lines
    for line in lines:
        out = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=30).stdout
        assert out.startswith('{"data":{') and "errors" not in out, f"{line}\n{out}"
