#!/usr/bin/env python3
"""A GraphQL WebSocket upstream that emits one timestamped event to every subscriber.

For scripts/bench-subscriptions.sh. Speaks graphql-transport-ws on any path:
connection_init -> connection_ack, ping -> pong, subscribe -> the subscription
joins the broadcast, complete -> it leaves. Every INTERVAL_MS one ticker sends
every subscription

    {"type":"next","id":...,"payload":{"data":{"ticks":{"seq":N,"emittedAt":T}}}}

with T the Unix time in seconds (float) just before the fan-out starts, so a client
on the same machine measures emit-to-receive latency. The document of a
subscription is not looked at: every subscription gets the ticks. GET /healthz
over plain HTTP answers 200, for readiness checks.

usage: ticker-upstream.py PORT INTERVAL_MS   (listens on 127.0.0.1)

Needs the `websockets` package (requirements-test.txt).
"""

from __future__ import annotations

import asyncio
import http
import json
import sys
import time

from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

PROTOCOL = "graphql-transport-ws"


class Ticker:
    def __init__(self) -> None:
        # subscriber connection -> the ids it subscribed with
        self.subscriptions: dict[ServerConnection, set[str]] = {}

    async def session(self, ws: ServerConnection) -> None:
        try:
            async for raw in ws:
                message = json.loads(raw)
                kind = message.get("type")
                if kind == "connection_init":
                    await ws.send(json.dumps({"type": "connection_ack"}))
                elif kind == "ping":
                    await ws.send(json.dumps({"type": "pong"}))
                elif kind == "subscribe":
                    self.subscriptions.setdefault(ws, set()).add(message["id"])
                elif kind == "complete":
                    self.subscriptions.get(ws, set()).discard(message["id"])
        except ConnectionClosed:
            pass
        finally:
            self.subscriptions.pop(ws, None)

    async def tick(self, interval_s: float) -> None:
        seq = 0
        while True:
            await asyncio.sleep(interval_s)
            seq += 1
            emitted_at = time.time()
            by_id: dict[str, list[ServerConnection]] = {}
            for ws, ids in self.subscriptions.items():
                for sid in ids:
                    by_id.setdefault(sid, []).append(ws)
            for sid, connections in by_id.items():
                event = {"type": "next", "id": sid, "payload": {"data": {"ticks": {"seq": seq, "emittedAt": emitted_at}}}}
                broadcast(connections, json.dumps(event))


def health(connection: ServerConnection, request: Request) -> Response | None:
    if request.path == "/healthz":
        return connection.respond(http.HTTPStatus.OK, "ok\n")
    return None


async def main(port: int, interval_ms: float) -> None:
    ticker = Ticker()
    async with serve(ticker.session, "127.0.0.1", port, subprotocols=[PROTOCOL], process_request=health,
                     max_queue=None, compression=None, backlog=4096):
        await ticker.tick(interval_ms / 1000)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: ticker-upstream.py PORT INTERVAL_MS")
    asyncio.run(main(int(sys.argv[1]), float(sys.argv[2])))
