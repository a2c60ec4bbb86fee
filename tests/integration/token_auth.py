"""Short-lived upstream tokens for the credential tests.

* ``mint`` / ``valid``: HMAC-signed tokens ``<n>.<expiry ms>.<signature>``
  under a shared secret (``TOKEN_SECRET``, default ``test-token-secret``).
* ``RequireToken``: ASGI middleware for the Strawberry upstream's
  ``/auth/graphql``: HTTP is 401 unless ``Authorization: Bearer`` holds a
  valid token; a WebSocket is closed 4403 unless its ``connection_init``
  payload's ``Authorization`` does. ``revoke(code)`` revokes the token of
  every WebSocket open there and closes it with ``code`` (4401 or 4403), the
  way an upstream ends a connection whose credentials ran out;
  ``socket_stats()`` tells how many are open and how many were refused.
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
import contextlib
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


# Tokens ``revoke`` took back: refused from then on, whatever their expiry.
REVOKED: set[str] = set()


def accepted_token(authorization: typing.Any) -> typing.Optional[str]:
    """The bearer token of an ``Authorization`` value if it is valid and not revoked."""
    if not isinstance(authorization, str) or not authorization.lower().startswith("bearer "):
        return None
    token = authorization[7:].strip()
    return token if valid(token) and token not in REVOKED else None


class RequireToken:
    """Lets through to ``app`` only what carries a valid, unrevoked bearer token.

    HTTP: 401 without one in the ``Authorization`` header. WebSocket: closed
    4403 when the ``connection_init`` payload's ``Authorization`` holds none.
    """

    def __init__(self, app: typing.Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: typing.Any, send: typing.Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
            if accepted_token(headers.get("authorization")) is None:
                await _body(receive)
                await _answer(send, 401, {"errors": [{"message": "token missing, invalid or expired"}]},
                              [(b"www-authenticate", b"Bearer")])
                return
        if scope["type"] == "websocket":
            socket = TokenWebSocket(receive, send)
            TokenWebSocket.open.add(socket)
            try:
                await self.app(scope, socket.receive, socket.send)
            finally:
                TokenWebSocket.open.discard(socket)
            return
        await self.app(scope, receive, send)


class TokenWebSocket:
    """One WebSocket behind ``RequireToken``: the ASGI ``receive``/``send`` its app
    uses, which check the ``connection_init`` token and can close the socket
    from outside (``revoke``); the app then sees a disconnect."""

    open: set[TokenWebSocket] = set()
    refused = 0

    def __init__(self, receive: typing.Any, send: typing.Any) -> None:
        self._receive = receive
        self._send = send
        self.token: typing.Optional[str] = None
        self._close_code: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._closed = False

    def close(self, code: int) -> None:
        """Closes the socket with ``code`` at the app's next (or current) ``receive``."""
        if not self._close_code.done():
            self._close_code.set_result(code)

    async def receive(self) -> dict:
        incoming = asyncio.ensure_future(self._receive())
        await asyncio.wait({incoming, self._close_code}, return_when=asyncio.FIRST_COMPLETED)
        if not incoming.done():
            incoming.cancel()
            return await self._close(self._close_code.result())
        message = incoming.result()
        init = _connection_init(message) if self.token is None else None
        if init is not None:
            fields = init["payload"] if isinstance(init.get("payload"), dict) else {}
            self.token = accepted_token(next((v for k, v in fields.items() if k.lower() == "authorization"), None))
            if self.token is None:
                TokenWebSocket.refused += 1
                return await self._close(4403)
        return message

    async def send(self, message: dict) -> None:
        if self._closed:
            return
        if message["type"] == "websocket.close":
            self._closed = True
        await self._send(message)

    async def _close(self, code: int) -> dict:
        if not self._closed:
            self._closed = True
            with contextlib.suppress(OSError, RuntimeError):
                await self._send({"type": "websocket.close", "code": code})
        return {"type": "websocket.disconnect", "code": code}


def _connection_init(message: dict) -> typing.Optional[dict]:
    """The ``connection_init`` an ASGI WebSocket message carries, if it is one."""
    if message["type"] != "websocket.receive" or not message.get("text"):
        return None
    try:
        init = json.loads(message["text"])
    except ValueError:
        return None
    return init if isinstance(init, dict) and init.get("type") == "connection_init" else None


def revoke(code: int) -> int:
    """Revokes the token of every WebSocket open behind ``RequireToken`` and
    closes it with ``code``; how many it closed."""
    sockets = [s for s in TokenWebSocket.open if s.token is not None]
    for socket in sockets:
        REVOKED.add(typing.cast(str, socket.token))
        socket.close(code)
    return len(sockets)


def socket_stats() -> dict[str, int]:
    """WebSockets behind ``RequireToken`` open now with an accepted token, and refused so far."""
    return {"open": sum(s.token is not None for s in TokenWebSocket.open), "refused": TokenWebSocket.refused}


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
