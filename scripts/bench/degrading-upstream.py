#!/usr/bin/env python3
"""D: a fake GraphQL upstream of fixed capacity that can be told to slow down, for
scripts/bench-overload.sh.

WORKERS requests are worked on at once, each for LATENCY_MS (times the current factor);
the others wait for a worker, as in a real server's thread pool. Every POST is answered
{"data":{"hello":"world"}}.

  GET /degrade?factor=F&seconds=S   latency x F for the next S seconds (not counted)
  GET /stats                        {"requests": n, "in_flight": n, "max_in_flight": n}: POSTs
                                    received, received and not yet answered now, and the most
                                    at once since the last /stats?reset=1 (not counted)

usage: degrading-upstream.py PORT WORKERS LATENCY_MS   (listens on 127.0.0.1)

Standard library only.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import urllib.parse

from json_upstream import serve_json

ANSWER = b'{"data":{"hello":"world"}}'


class Upstream:
    def __init__(self, workers: int, latency_s: float) -> None:
        self.workers = asyncio.Semaphore(workers)
        self.latency_s = latency_s
        self.factor = 1.0
        self.degraded_until = 0.0
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0

    def control(self, path: str) -> bytes:
        url = urllib.parse.urlsplit(path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/degrade":
            self.factor = float(query.get("factor", "10"))
            self.degraded_until = time.monotonic() + float(query.get("seconds", "20"))
        elif query.get("reset") == "1":
            self.max_in_flight = self.in_flight
        return json.dumps({"requests": self.requests, "in_flight": self.in_flight, "max_in_flight": self.max_in_flight}).encode()

    async def answer(self) -> bytes:
        self.requests += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            async with self.workers:
                factor = self.factor if time.monotonic() < self.degraded_until else 1.0
                await asyncio.sleep(self.latency_s * factor)
        finally:
            self.in_flight -= 1
        return ANSWER

    async def respond(self, method: str, path: str) -> bytes:
        return self.control(path) if method == "GET" else await self.answer()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await serve_json(reader, writer, self.respond)


async def main(port: int, workers: int, latency_ms: float) -> None:
    upstream = Upstream(workers, latency_ms / 1000)
    server = await asyncio.start_server(upstream.serve, "127.0.0.1", port, backlog=4096)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: degrading-upstream.py PORT WORKERS LATENCY_MS")
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])))
