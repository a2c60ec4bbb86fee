"""The admin API on its own listener (``admin.listen``): ``POST /cache/purge`` by entity, type,
operation name, everything, softly (served stale while one refresh runs), and across a tiered fleet
through Redis; ``GET /schema``; the token (``admin.token_file``); refusals (paths, methods, bodies);
``check-config`` refusing an admin listener beyond loopback without a token; and neither path on
the client port."""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import time
import typing
from pathlib import Path

import pytest

from harness import Response, curl, free_port, logged, port_open, post_graphql, wait_for_schema_learned, wait_until
from redis_servers import redis  # noqa: F401 (fixture)
from test_cli import run_cli

REVIEWS = "query Reviews($episode: Episode!) { reviews(episode: $episode) { id stars commentary } }"
HELLO = "query Hello($name: String) { hello(name: $name) }"
SLOW = "query Slow($seconds: Float!) { slow(seconds: $seconds) }"
TOKEN = "admin-s3cret-token"
ADMIN_PURGES = 'gqlgate_cache_invalidations_total{source="admin"}'

CACHE = """
cache:
  enabled: true
  default_ttl: 30s
"""


@dataclasses.dataclass
class Admin:
    """A gqlgate and its admin listener."""

    gw: typing.Any
    port: int
    token: typing.Optional[str]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def purge(self, body: typing.Any, *, token: typing.Optional[str] = None, **kw: typing.Any) -> Response:
        headers = {"Authorization": f"Bearer {token or self.token}"} if (token or self.token) else {}
        return curl(self.url("/cache/purge"), json_body=body, headers=headers, **kw)

    def purged(self, body: typing.Any) -> int:
        r = self.purge(body)
        assert r.status == 200 and r.header("Content-Type") == "application/json", str(r)
        return r.json()["purged"]

    def get(self, path: str, **kw: typing.Any) -> Response:
        headers = kw.pop("headers", None) or ({"Authorization": f"Bearer {self.token}"} if self.token else {})
        return curl(self.url(path), headers=headers, **kw)


def metric(gw, series: str) -> typing.Optional[float]:
    for line in curl(gw.path("/metrics")).text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    return None


def admin_config(port: int, token_file: typing.Optional[Path] = None, extra: str = CACHE) -> str:
    token = f'\n  token_file: "{token_file}"' if token_file is not None else ""
    return f'{extra}\nadmin:\n  listen: "127.0.0.1:{port}"{token}\n'


def started(gqlgate, tmp_path: Path, extra: str = CACHE, *, token: typing.Optional[str] = TOKEN, learn: bool = True) -> Admin:
    """A gqlgate with an admin listener (with ``token`` in its token file, unless None), once both
    listen and, with ``learn``, the upstream schema is learned (what entity tags need)."""
    token_file = None
    if token is not None:
        token_file = tmp_path / f"admin-token-{free_port()}"
        token_file.write_text(token + "\n")
    port = free_port()
    gw = gqlgate(config=admin_config(port, token_file, extra))
    wait_until(lambda: port_open("127.0.0.1", port), timeout=5, what="the admin listener", alive=gw.proc)
    if learn:
        wait_for_schema_learned(gw)
    return Admin(gw=gw, port=port, token=token)


def reviews(gw, episode: str) -> Response:
    r = post_graphql(gw.url, REVIEWS, {"episode": episode})
    assert r.status == 200 and "errors" not in r.json(), str(r)
    return r


def hello(gw, name: str) -> Response:
    r = post_graphql(gw.url, HELLO, {"name": name}, timeout=5)
    assert r.status == 200 and r.json() == {"data": {"hello": f"Hello, {name}!"}}, str(r)
    return r


def assert_admin_error(r: Response, status: int, code: str) -> dict:
    """A GraphQL-style JSON error from the admin listener."""
    assert r.status == status, f"expected {status} {code}, got:\n{r}"
    assert r.header("Content-Type") == "application/json", str(r)
    body = r.json()
    [error] = body["errors"]
    assert error["extensions"]["code"] == code and error["message"], str(r)
    return error


# ---------------------------------------------------------------------------
# Purging


def test_a_purge_by_entity_drops_the_answers_holding_it(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path)
    gw = admin.gw
    newhope = reviews(gw, "NEWHOPE")
    assert "1" in [review["id"] for review in newhope.json()["data"]["reviews"]]
    reviews(gw, "EMPIRE")
    assert reviews(gw, "NEWHOPE").header("X-Cache") == "HIT"
    assert admin.purged({"entities": ["Review:1"]}) == 1
    before = strawberry_upstream.count()
    assert reviews(gw, "NEWHOPE").header("X-Cache") == "MISS"
    assert strawberry_upstream.count() == before + 1
    assert reviews(gw, "EMPIRE").header("X-Cache") == "HIT", "an answer without Review:1 stays"
    assert metric(gw, ADMIN_PURGES) == 1
    assert logged(gw, "cache purged")


def test_a_purge_by_type_drops_every_answer_holding_one(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path)
    gw = admin.gw
    reviews(gw, "JEDI")
    reviews(gw, "EMPIRE")
    hello(gw, "type")
    assert admin.purged({"types": ["Review"]}) == 2
    assert reviews(gw, "JEDI").header("X-Cache") == "MISS"
    assert reviews(gw, "EMPIRE").header("X-Cache") == "MISS"
    assert hello(gw, "type").header("X-Cache") == "HIT"


def test_a_purge_by_operation_name_drops_that_operations_answers(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path)
    gw = admin.gw
    reviews(gw, "JEDI")
    hello(gw, "op-a")
    hello(gw, "op-b")
    assert admin.purged({"operations": ["Hello"]}) == 2
    assert hello(gw, "op-a").header("X-Cache") == "MISS"
    assert hello(gw, "op-b").header("X-Cache") == "MISS"
    assert reviews(gw, "JEDI").header("X-Cache") == "HIT"
    assert admin.purged({"operations": ["NoSuchOperation"]}) == 0


def test_a_purge_of_everything_and_the_contracts_full_body(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path)
    gw = admin.gw
    reviews(gw, "JEDI")
    hello(gw, "all-a")
    hello(gw, "all-b")
    body = {"types": [], "entities": [], "operations": [], "all": True, "soft": False}
    assert admin.purged(body) == 3
    for r in (reviews(gw, "JEDI"), hello(gw, "all-a"), hello(gw, "all-b")):
        assert r.header("X-Cache") == "MISS", str(r)
    assert admin.purged({"all": True}) == 3
    assert metric(gw, ADMIN_PURGES) == 2


def test_a_soft_purge_serves_the_answer_stale_while_one_refresh_runs(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path, CACHE + "  stale_while_revalidate: 30s\n")
    gw = admin.gw

    def slow() -> Response:  # the upstream takes 0.6 s: long enough to see the refresh run
        r = post_graphql(gw.url, SLOW, {"seconds": 0.6}, timeout=5)
        assert r.status == 200 and r.json() == {"data": {"slow": "slept 0.6"}}, str(r)
        return r

    assert slow().header("X-Cache") == "MISS"
    time.sleep(1.2)  # so that the stale answer's Age tells it from the refreshed one
    assert admin.purged({"operations": ["Slow"], "soft": True}) == 1
    before = strawberry_upstream.count()
    started_at = time.monotonic()
    stale = [slow() for _ in range(3)]
    assert time.monotonic() - started_at < 0.6, "served at once, not after the upstream"
    for r in stale:
        assert r.header("X-Cache") == "HIT" and int(r.header("Age")) >= 1, str(r)
    wait_until(lambda: slow().header("Age") == "0", timeout=5, what="the refreshed answer")
    fresh = slow()
    assert fresh.header("X-Cache") == "HIT" and fresh.header("Age") == "0", str(fresh)
    assert strawberry_upstream.count() == before + 1, "the upstream is asked once, in the background"


def test_with_the_cache_off_a_purge_purges_nothing(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path, "", learn=False)
    assert admin.purged({"all": True}) == 0


# ---------------------------------------------------------------------------
# The token


def test_the_token_is_required_when_a_token_file_is_set(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path, learn=False)
    for headers in ({}, {"Authorization": "Bearer wrong-token"}, {"Authorization": f"Basic {TOKEN}"}):
        for r in (curl(admin.url("/cache/purge"), json_body={"all": True}, headers=headers), curl(admin.url("/schema"), headers=headers)):
            assert_admin_error(r, 401, "UNAUTHENTICATED")
            assert (r.header("WWW-Authenticate") or "").startswith("Bearer"), str(r)
    assert admin.purge({"all": True}).status == 200
    assert admin.purge({"all": True}, token="wrong-token").status == 401


def test_the_token_file_is_read_again_on_sighup(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path, learn=False)
    token_file = next(tmp_path.glob("admin-token-*"))
    token_file.write_text("rotated-token\n")
    os.kill(admin.gw.proc.pid, signal.SIGHUP)
    wait_until(lambda: logged(admin.gw, "reloaded"), timeout=5, what="the reload")
    assert admin.purge({"all": True}, token="rotated-token").status == 200
    assert admin.purge({"all": True}).status == 401


def test_on_loopback_without_a_token_file_no_token_is_asked(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path, token=None, learn=False)
    assert admin.purged({"all": True}) == 0


def test_check_config_refuses_an_admin_listener_beyond_loopback_without_a_token(gqlgate_bin, tmp_path):
    config = tmp_path / "gqlgate.yaml"
    config.write_text('upstream: {url: "http://127.0.0.1:9/graphql"}\nadmin: {listen: "0.0.0.0:8088"}\n')
    checked = run_cli(gqlgate_bin, "check-config", str(config), cwd=tmp_path)
    assert checked.rc == 1 and "admin.listen: 0.0.0.0:8088 is beyond loopback" in checked.stderr, str(checked)
    assert "admin.token_file" in checked.stderr, str(checked)
    ran = run_cli(gqlgate_bin, "run", "--config", str(config), cwd=tmp_path)
    assert ran.rc != 0 and "admin.listen" in ran.stderr, str(ran)
    token = tmp_path / "admin-token"
    token.write_text(TOKEN + "\n")
    config.write_text(f'upstream: {{url: "http://127.0.0.1:9/graphql"}}\nadmin: {{listen: "0.0.0.0:8088", token_file: "{token}"}}\n')
    checked = run_cli(gqlgate_bin, "check-config", str(config), cwd=tmp_path)
    assert checked.rc == 0, str(checked)
    token.write_text("\n")
    checked = run_cli(gqlgate_bin, "check-config", str(config), cwd=tmp_path)
    assert checked.rc == 1 and f'admin.token_file: "{token}" is missing, unreadable or empty' in checked.stderr, str(checked)


def test_check_config_refuses_the_client_port_for_the_admin_listener(gqlgate_bin, tmp_path):
    config = tmp_path / "gqlgate.yaml"
    config.write_text('server: {listen: "127.0.0.1:8080"}\nupstream: {url: "http://127.0.0.1:9/graphql"}\n'
                      'admin: {listen: "localhost:8080"}\n')  # fmt: skip
    checked = run_cli(gqlgate_bin, "check-config", str(config), cwd=tmp_path)
    assert checked.rc == 1 and "admin.listen: localhost:8080 is server.listen's port" in checked.stderr, str(checked)


# ---------------------------------------------------------------------------
# The schema


def test_get_schema_returns_the_sdl_held(gqlgate, tmp_path, strawberry_upstream):
    sdl = "type Query {\n  hello(name: String): String\n  bookCount: Int!\n}\n"
    schema_file = tmp_path / "schema.graphql"
    schema_file.write_text(sdl)
    admin = started(gqlgate, tmp_path, f'schema: {{source: file, file: "{schema_file}"}}\n', learn=False)
    r = admin.get("/schema")
    assert r.status == 200 and r.header("Content-Type") == "text/plain; charset=utf-8", str(r)
    assert r.text == sdl
    assert r.header("ETag") and r.header("Cache-Control") == "no-store", str(r)
    head = admin.get("/schema", extra=["-I"])  # HEAD: curl writes the header block where the body would go
    assert head.status == 200 and b"type Query" not in head.body, str(head)


def test_get_schema_is_404_while_schema_blind(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path, learn=False)
    error = assert_admin_error(admin.get("/schema"), 404, "NOT_FOUND")
    assert "schema-blind" in error["message"], error


# ---------------------------------------------------------------------------
# Refusals


def test_unknown_paths_wrong_methods_and_bad_bodies_are_refused(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path, learn=False)
    assert_admin_error(admin.get("/cache"), 404, "NOT_FOUND")
    assert_admin_error(admin.get("/graphql"), 404, "NOT_FOUND")
    r = admin.get("/cache/purge")
    assert_admin_error(r, 405, "METHOD_NOT_ALLOWED")
    assert r.header("Allow") == "POST", str(r)
    r = curl(admin.url("/schema"), method="DELETE", headers={"Authorization": f"Bearer {TOKEN}"})
    assert_admin_error(r, 405, "METHOD_NOT_ALLOWED")
    assert r.header("Allow") == "GET, HEAD", str(r)
    for body, words in [
        ('{"all": true, "everything": true}', 'Unknown member "everything"'),
        ('{"types": "Review"}', '"types" must be a list of strings'),
        ('{"entities": [7]}', '"entities"[0] must be a string'),
        ('{"all": "yes"}', '"all" must be true or false'),
        ('{"entities": ["Review"]}', "expected an entity as Type:id"),
        ("{}", "Nothing to purge"),
        ("[]", "must be a JSON object"),
        ('{"all": tru', "is not valid JSON"),
    ]:
        error = assert_admin_error(admin.purge(None, data=body), 400, "BAD_REQUEST")
        assert words in error["message"], (body, error)
    r = admin.purge(None, data='{"all": true}', content_type="text/plain")
    assert_admin_error(r, 415, "UNSUPPORTED_MEDIA_TYPE")
    r = admin.purge(None, data='{"all": true, "types": ["' + "A" * 70000 + '"]}')
    assert_admin_error(r, 413, "PAYLOAD_TOO_LARGE")


def test_the_client_port_answers_neither_path(gqlgate, tmp_path, strawberry_upstream):
    admin = started(gqlgate, tmp_path, learn=False)
    gw = admin.gw
    headers = {"Authorization": f"Bearer {TOKEN}"}
    for r in (curl(gw.path("/cache/purge"), json_body={"all": True}, headers=headers), curl(gw.path("/schema"), headers=headers)):
        assert r.status == 404 and r.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND", str(r)
    assert metric(gw, ADMIN_PURGES) == 0


# ---------------------------------------------------------------------------
# A fleet


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed (make deps)")
def test_a_purge_on_one_replica_reaches_every_replica_of_a_tiered_fleet_within_a_second(
    gqlgate, tmp_path, redis, strawberry_upstream  # noqa: F811
):
    tiered = f"""
redis:
  url: "{redis.url}"
  key_prefix: "admin-test:"
cache:
  enabled: true
  backend: tiered
  default_ttl: 30s
"""
    fleet = [started(gqlgate, tmp_path, tiered) for _ in range(3)]
    gateways = [admin.gw for admin in fleet]
    names = [f"fleet-{n}" for n in range(len(gateways))]
    for name in names:
        assert hello(gateways[0], name).header("X-Cache") == "MISS"
        for gw in gateways:
            assert hello(gw, name).header("X-Cache") == "HIT"  # the others: from Redis, into memory
            assert hello(gw, name).header("X-Cache") == "HIT"  # from memory
    purged_at = time.monotonic()
    assert fleet[1].purged({"all": True}) == len(names)
    # Each replica asks its own name only, so no replica stores again what another checks.
    for gw, name in zip(gateways, names):
        wait_until(lambda: hello(gw, name).header("X-Cache") == "MISS", timeout=1, interval=0.02,
                   what=f"{name!r} purged from {gw.url}")  # fmt: skip
    assert time.monotonic() - purged_at < 2
    assert metric(gateways[1], ADMIN_PURGES) == 1
    assert all(metric(gw, 'gqlgate_cache_invalidations_total{source="peer"}') >= 1 for gw in (gateways[0], gateways[2]))
