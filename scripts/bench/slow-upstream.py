#!/usr/bin/env python3
"""S: a slow fake GraphQL upstream for the burst row of scripts/bench.sh.

Answers every POST with {"data":{"hello":"world"}} after a fixed delay and counts
the POSTs it received; GET /count answers {"requests": N} (not counted). HTTP/1.1
with kept-alive connections and Content-Length bodies, which is what libcurl sends.

usage: slow-upstream.py PORT DELAY_MS   (listens on 127.0.0.1)

Standard library only.
"""

from __future__ import annotations

import asyncio
import json
import sys

from json_upstream import serve_json

ANSWER = b'{"data":{"hello":"world"}}'


class Upstream:
    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.requests = 0

    async def respond(self, method: str, path: str) -> bytes:
        if method == "GET" and path == "/count":
            return json.dumps({"requests": self.requests}).encode()
        self.requests += 1
        await asyncio.sleep(self.delay_s)
        return ANSWER

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await serve_json(reader, writer, self.respond)


async def main(port: int, delay_ms: float) -> None:
    upstream = Upstream(delay_ms / 1000)
    server = await asyncio.start_server(upstream.serve, "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: slow-upstream.py PORT DELAY_MS")
    asyncio.run(main(int(sys.argv[1]), float(sys.argv[2])))
