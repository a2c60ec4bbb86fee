"""Short-lived upstream tokens for the credential tests.

* ``mint`` / ``valid``: HMAC-signed tokens ``<n>.<expiry ms>.<signature>``
  under a shared secret (``TOKEN_SECRET``, default ``test-token-secret``).
* ``RequireToken``: ASGI middleware for the Strawberry upstream's
  ``/auth/graphql``: 401 unless ``Authorization: Bearer`` holds a valid token.
* The token endpoint (``python token_auth.py --port P``): an OAuth2 client
  credentials endpoint (``POST /token``, client ``gqlgate`` / ``s3cret``,
  basic or post client authentication) that counts its calls (``GET /calls``)
  and can be told to fail (``POST /fail?times=N``).
  ``--lifetime`` is how long tokens really last; ``--claimed-lifetime`` what
  ``expires_in`` says (to make a cached token go stale); ``--delay`` slows
  every token request so concurrent operations overlap one fetch.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import hmac
import itertools
import json
import os
import time
import typing
import urllib.parse

SECRET = os.environ.get("TOKEN_SECRET", "test-token-secret").encode()
CLIENT_ID = "gqlgate"
CLIENT_SECRET = "s3cret"


def mint(lifetime: float, serial: int = 0) -> str:
    expiry = int((time.time() + lifetime) * 1000)
    payload = f"{serial}.{expiry}"
    signature = hmac.new(SECRET, payload.encode(), hashlib.sha256).hexdigest()[:32]
    return f"{payload}.{signature}"


def valid(token: str) -> bool:
    try:
        serial, expiry, signature = token.split(".")
    except ValueError:
        return False
    expected = hmac.new(SECRET, f"{serial}.{expiry}".encode(), hashlib.sha256).hexdigest()[:32]
    return hmac.compare_digest(signature, expected) and int(expiry) > time.time() * 1000


async def _answer(send: typing.Any, status: int, body: dict, headers: typing.Sequence[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body).encode()
    await send({
        "type": "http.response.start",
        "status": status,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *headers],
    })
    await send({"type": "http.response.body", "body": data})


async def _body(receive: typing.Any) -> bytes:
    data = b""
    while True:
        message = await receive()
        data += message.get("body", b"")
        if not message.get("more_body"):
            return data


class RequireToken:
    """401 for HTTP requests without a valid bearer token; everything else passes to ``app``."""

    def __init__(self, app: typing.Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: typing.Any, send: typing.Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
            auth = headers.get("authorization", "")
            if not (auth.lower().startswith("bearer ") and valid(auth[7:].strip())):
                await _body(receive)
                await _answer(send, 401, {"errors": [{"message": "token missing, invalid or expired"}]},
                              [(b"www-authenticate", b"Bearer")])
                return
        await self.app(scope, receive, send)


class TokenEndpoint:
    """The OAuth2 token endpoint as a plain ASGI app."""

    def __init__(self, lifetime: float, claimed_lifetime: typing.Optional[int], delay: float) -> None:
        self.lifetime = lifetime
        self.claimed = claimed_lifetime
        self.delay = delay
        self.calls = {"basic": 0, "post": 0, "refused": 0, "failed": 0}
        self.fail_next = 0
        self.serial = itertools.count(1)

    async def __call__(self, scope: dict, receive: typing.Any, send: typing.Any) -> None:
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        if path == "/calls":
            await _answer(send, 200, self.calls)
        elif path == "/fail" and method == "POST":
            query = urllib.parse.parse_qs(scope.get("query_string", b"").decode())
            self.fail_next = int(query.get("times", ["1"])[0])
            await _answer(send, 200, {"fail_next": self.fail_next})
        elif path == "/token" and method == "POST":
            await self.token(scope, receive, send)
        else:
            await _answer(send, 404, {"error": "not_found"})

    async def token(self, scope: dict, receive: typing.Any, send: typing.Any) -> None:
        form = urllib.parse.parse_qs((await _body(receive)).decode())
        headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail_next > 0:
            self.fail_next -= 1
            self.calls["failed"] += 1
            await _answer(send, 503, {"error": "temporarily_unavailable"})
            return
        method = None
        auth = headers.get("authorization", "")
        if auth.startswith("Basic "):
            user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
            if urllib.parse.unquote_plus(user) == CLIENT_ID and urllib.parse.unquote_plus(password) == CLIENT_SECRET:
                method = "basic"
        elif form.get("client_id") == [CLIENT_ID] and form.get("client_secret") == [CLIENT_SECRET]:
            method = "post"
        if method is None or form.get("grant_type") != ["client_credentials"]:
            self.calls["refused"] += 1
            await _answer(send, 401, {"error": "invalid_client"})
            return
        self.calls[method] += 1
        body: dict[str, typing.Any] = {"access_token": mint(self.lifetime, next(self.serial)), "token_type": "Bearer"}
        body["expires_in"] = self.claimed if self.claimed is not None else max(1, int(self.lifetime))
        await _answer(send, 200, body)


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--lifetime", type=float, default=3600)
    parser.add_argument("--claimed-lifetime", type=int, default=None)
    parser.add_argument("--delay", type=float, default=0)
    args = parser.parse_args()
    app = TokenEndpoint(args.lifetime, args.claimed_lifetime, args.delay)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False, lifespan="off")


if __name__ == "__main__":
    main()
