"""Failure injection for the test upstream, driven by request headers.

A request carrying ``X-Fail-Key: K`` and ``X-Fail-Times: N`` is answered with
``X-Fail-Status`` (default 503) for the first N requests of key K, then passed
to the app. ``X-Fail-Retry-After`` adds a ``Retry-After`` header to the failing
answers. ``GET /flaky/calls`` tells how many requests each key has received
(failed or not), so a test can count what reached the upstream.
"""

from __future__ import annotations

import collections
import json
import typing

CALLS: collections.Counter[str] = collections.Counter()


def _headers(scope: dict) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


class FlakyRequests:
    """ASGI middleware: fails the first N requests of a key, counts every request of a key."""

    def __init__(self, app: typing.Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: typing.Any, send: typing.Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == "/flaky/calls":
            await _send(send, 200, json.dumps(dict(CALLS)).encode(), [])
            return
        headers = _headers(scope)
        key = headers.get("x-fail-key")
        if key is None:
            await self.app(scope, receive, send)
            return
        CALLS[key] += 1
        if CALLS[key] > int(headers.get("x-fail-times", "0")):
            await self.app(scope, receive, send)
            return
        while (await receive()).get("more_body"):
            pass
        status = int(headers.get("x-fail-status", "503"))
        extra = []
        if "x-fail-retry-after" in headers:
            extra.append((b"retry-after", headers["x-fail-retry-after"].encode()))
        body = json.dumps({"errors": [{"message": f"flaky upstream answered {status}"}]}).encode()
        await _send(send, status, body, extra)


async def _send(send: typing.Any, status: int, body: bytes, extra: list[tuple[bytes, bytes]]) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())] + extra
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
