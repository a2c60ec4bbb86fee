#!/usr/bin/env python3
"""Hold N graphql-transport-ws subscriptions and measure event fan-out latency.

For scripts/bench-subscriptions.sh. Opens N WebSocket connections to URL (spread
over --processes worker processes, so the client's own parsing is not one core's
queue), sends connection_init and one subscription on each, and once every one
is subscribed records, for the next --events events, each delivery's latency:
receive time minus the event's `emittedAt` (Unix seconds, set by the upstream,
same machine). Prints one machine-readable line:

    SUBS subscribers=N connected=N events=E deliveries=D missing=M p50_ms=.. p99_ms=.. max_ms=..

`missing` counts (subscriber, event) pairs that never arrived. The latency includes
the client's own time to read its share of the sockets: run it against the
upstream alone for the floor.

usage: subscribers.py URL --subscribers N [--events E] [--processes P] [--timeout S]

Needs the `websockets` package (requirements-test.txt).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import sys
import time

from websockets.asyncio.client import ClientConnection, connect

PROTOCOL = "graphql-transport-ws"
QUERY = "subscription Ticks { ticks { seq emittedAt } }"
HANDSHAKES_AT_ONCE = 100


async def subscribe(url: str, handshakes: asyncio.Semaphore) -> ClientConnection:
    async with handshakes:
        ws = await connect(url, subprotocols=[PROTOCOL], compression=None, max_queue=None,
                           ping_interval=None, open_timeout=30)
        await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        while json.loads(await ws.recv()).get("type") != "connection_ack":
            pass
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": QUERY}}))
        return ws


async def record(ws: ClientConnection, start: float, events: int, latencies: list[float],
                 seen: set[int], first_seq: list[int]) -> None:
    """Latencies of the events emitted after `start`, until `events` of them arrived."""
    async for raw in ws:
        received = time.time()
        message = json.loads(raw)
        if message.get("type") == "ping":
            await ws.send(json.dumps({"type": "pong"}))
            continue
        if message.get("type") != "next":
            continue
        tick = message["payload"]["data"]["ticks"]
        if tick["emittedAt"] <= start:
            continue
        if not first_seq:
            first_seq.append(tick["seq"])
        latencies.append(received - tick["emittedAt"])
        seen.add(tick["seq"])
        if tick["seq"] >= first_seq[0] + events - 1:
            return


async def worker_main(url: str, count: int, events: int, timeout: float, ready, go, results) -> None:
    handshakes = asyncio.Semaphore(HANDSHAKES_AT_ONCE)
    opened = await asyncio.gather(*(subscribe(url, handshakes) for _ in range(count)), return_exceptions=True)
    sockets = [ws for ws in opened if not isinstance(ws, BaseException)]
    errors = [str(e) or repr(e) for e in opened if isinstance(e, BaseException)]
    ready.put((len(sockets), errors[:3]))
    start = await asyncio.to_thread(go.get)
    first_seq: list[int] = []  # the first measured event's seq, shared by this process's connections
    latencies: list[float] = []
    seen_per_socket: list[set[int]] = [set() for _ in sockets]
    tasks = [record(ws, start, events, latencies, seen, first_seq) for ws, seen in zip(sockets, seen_per_socket)]
    try:
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), timeout)
    except TimeoutError:
        pass
    expected = set(range(first_seq[0], first_seq[0] + events)) if first_seq else set()
    missing = sum(len(expected - seen) for seen in seen_per_socket) + (count - len(sockets)) * events
    results.put((latencies, missing))
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)


def worker(url: str, count: int, events: int, timeout: float, ready, go, results) -> None:
    asyncio.run(worker_main(url, count, events, timeout, ready, go, results))


def percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * p / 100))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("url", help="ws:// URL of gqlgate or the upstream")
    ap.add_argument("--subscribers", type=int, default=1000)
    ap.add_argument("--events", type=int, default=10, help="events measured once all are subscribed")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for the events")
    args = ap.parse_args()

    processes = max(1, min(args.processes, args.subscribers))
    shares = [args.subscribers // processes + (1 if i < args.subscribers % processes else 0) for i in range(processes)]
    ready, results = multiprocessing.Queue(), multiprocessing.Queue()
    gos = [multiprocessing.Queue() for _ in shares]
    workers = [
        multiprocessing.Process(target=worker, args=(args.url, n, args.events, args.timeout, ready, go, results))
        for n, go in zip(shares, gos)
    ]
    for w in workers:
        w.start()
    connected = 0
    for _ in workers:
        n, errors = ready.get()
        connected += n
        for e in errors:
            print(f"subscribers: connection failed: {e}", file=sys.stderr)
    print(f"subscribers: {connected}/{args.subscribers} subscribed", file=sys.stderr)
    start = time.time()
    for go in gos:
        go.put(start)
    latencies: list[float] = []
    missing = 0
    for _ in workers:
        part, part_missing = results.get()
        latencies += part
        missing += part_missing
    for w in workers:
        w.join()

    latencies.sort()
    ms = [v * 1000 for v in latencies]
    print(
        f"SUBS subscribers={args.subscribers} connected={connected} events={args.events} "
        f"deliveries={len(ms)} missing={missing} "
        f"p50_ms={percentile(ms, 50):.2f} p99_ms={percentile(ms, 99):.2f} "
        f"max_ms={(ms[-1] if ms else float('nan')):.2f} mean_ms={(statistics.fmean(ms) if ms else float('nan')):.2f}"
    )
    return 0 if connected == args.subscribers and missing == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
