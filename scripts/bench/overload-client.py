#!/usr/bin/env python3
"""Open-loop load for scripts/bench-overload.sh: RATE requests a second to URL (a GraphQL
POST), sent on schedule whether or not earlier ones were answered, for BASE seconds at
normal speed, DEGRADED seconds while the upstream at STATS is slowed down (its
/degrade?factor=FACTOR), then RECOVERY seconds. Each second it samples the upstream's
requests in flight (/stats, reset each time).

Prints one JSON object: the run's figures (see scripts/bench-overload.sh).

usage: overload-client.py URL STATS RATE BASE DEGRADED RECOVERY FACTOR

Standard library only.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import urllib.parse

BODY = b'{"query":"{ hello }"}'
TIMEOUT_S = 30.0


class Pool:
    """Kept-alive HTTP/1.1 connections to one host, opened as needed."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        reader, writer = self.idle.pop() if self.idle else await asyncio.open_connection(self.host, self.port)
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        writer.write(head.encode() + body)
        await writer.drain()
        status_line, *lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        length = next((int(v) for n, _, v in (l.partition(":") for l in lines) if n.strip().lower() == "content-length"), 0)
        data = await reader.readexactly(length)
        closes = any(l.lower().startswith("connection:") and "close" in l.lower() for l in lines)
        if closes:
            writer.close()
        else:
            self.idle.append((reader, writer))
        return int(status_line.split()[1]), data


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


async def main(url: str, stats: str, rate: float, base: float, degraded: float, recovery: float, factor: float) -> None:
    target, control = urllib.parse.urlsplit(url), urllib.parse.urlsplit(stats)
    gateway = Pool(target.hostname or "127.0.0.1", target.port or 80)
    upstream = Pool(control.hostname or "127.0.0.1", control.port or 80)
    results: list[tuple[float, float, int]] = []  # sent at (s from start), latency (s), status (0: no answer)
    in_flight: list[tuple[float, int]] = []
    start = time.monotonic()
    total = base + degraded + recovery

    async def one(at: float) -> None:
        sent = time.monotonic()
        try:
            status, _ = await asyncio.wait_for(gateway.request("POST", target.path or "/", BODY), TIMEOUT_S)
        except (asyncio.TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
            status = 0
        results.append((at, time.monotonic() - sent, status))

    async def sample() -> None:
        await upstream.request("GET", "/stats?reset=1")
        second = 0
        while second < total:
            second += 1
            await asyncio.sleep(max(0.0, start + second - time.monotonic()))
            _, data = await upstream.request("GET", "/stats?reset=1")
            in_flight.append((second, json.loads(data)["max_in_flight"]))

    sampler = asyncio.create_task(sample())
    tasks = []
    degraded_sent = False
    n = 0
    while True:
        at = n / rate
        if at >= total:
            break
        if not degraded_sent and at >= base:
            await upstream.request("GET", f"/degrade?factor={factor}&seconds={degraded}")
            degraded_sent = True
        await asyncio.sleep(max(0.0, start + at - time.monotonic()))
        tasks.append(asyncio.create_task(one(at)))
        n += 1
    await asyncio.gather(*tasks)
    await sampler

    served = [r for r in results if r[2] == 200]
    base_p99 = percentile([r[1] for r in served if r[0] < base], 0.99)
    end = base + degraded
    recovered_at = None
    for second in range(int(end), int(total)):
        after = [r for r in results if r[0] >= second]
        if after and all(r[2] == 200 for r in after) and percentile([r[1] for r in after], 0.99) <= 2 * base_p99:
            recovered_at = second
            break
    print(json.dumps({
        "requests": len(results),
        "served": len(served),
        "shed_share": 1 - len(served) / max(1, len(results)),
        "statuses": {str(s): sum(1 for r in results if r[2] == s) for s in sorted({r[2] for r in results})},
        "p99_served_s": percentile([r[1] for r in served], 0.99),
        "p99_served_degraded_s": percentile([r[1] for r in served if base <= r[0] < end], 0.99),
        "p99_served_base_s": base_p99,
        "upstream_max_in_flight": max((v for _, v in in_flight), default=0),
        "recovery_s": None if recovered_at is None else recovered_at - end,
    }))


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit("usage: overload-client.py URL STATS RATE BASE DEGRADED RECOVERY FACTOR")
    asyncio.run(main(sys.argv[1], sys.argv[2], *map(float, sys.argv[3:8])))
