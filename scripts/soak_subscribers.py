"""Long-lived subscribers for scripts/soak.sh.

Opens SOAK_SUBSCRIBERS (default 50) graphql-transport-ws connections to
GQLGATE_URL, each subscribed to the test upstream's endless `ticks`
subscription, for SOAK_DURATION seconds. gqlgate reconnects to the upstream
when the soak restarts it, so every subscriber must keep its stream: the
script fails when a subscriber's connection ends early or when it received
nothing in its last SOAK_STALL_LIMIT seconds (default 15).
Prints one summary line per check and exits 0 when all passed.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

from websockets.asyncio.client import connect

URL = os.environ["GQLGATE_URL"].replace("http://", "ws://", 1)
DURATION = float(os.environ.get("SOAK_DURATION", "600"))
SUBSCRIBERS = int(os.environ.get("SOAK_SUBSCRIBERS", "50"))
STALL_LIMIT = float(os.environ.get("SOAK_STALL_LIMIT", "15"))


async def subscriber(number: int, deadline: float) -> tuple[int, float, str]:
    """Events received, the longest gap between two, and how it ended."""
    events, longest_gap, last = 0, 0.0, time.monotonic()
    async with connect(URL, subprotocols=["graphql-transport-ws"], max_queue=None) as ws:
        await ws.send(json.dumps({"type": "connection_init"}))
        ack = json.loads(await ws.recv())
        if ack.get("type") != "connection_ack":
            return events, longest_gap, f"no ack: {ack}"
        await ws.send(json.dumps({"id": str(number), "type": "subscribe",
                                  "payload": {"query": "subscription { ticks(intervalMs: 200) }"}}))
        while time.monotonic() < deadline:
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=deadline - time.monotonic()))
            except asyncio.TimeoutError:
                break
            if message.get("type") == "next":
                now = time.monotonic()
                longest_gap = max(longest_gap, now - last)
                last, events = now, events + 1
            elif message.get("type") in ("complete", "error"):
                return events, longest_gap, f"ended early: {message}"
    longest_gap = max(longest_gap, time.monotonic() - last)
    return events, longest_gap, "ok"


async def main() -> int:
    deadline = time.monotonic() + DURATION
    results = await asyncio.gather(*(subscriber(i, deadline) for i in range(SUBSCRIBERS)), return_exceptions=True)
    failed = [r for r in results if isinstance(r, BaseException) or r[2] != "ok" or r[1] > STALL_LIMIT]
    events = sum(r[0] for r in results if not isinstance(r, BaseException))
    gaps = [r[1] for r in results if not isinstance(r, BaseException)]
    print(f"subscribers       {SUBSCRIBERS}, events received {events}, longest gap {max(gaps, default=0):.1f} s")
    for r in failed[:5]:
        print(f"FAIL: subscriber {r!r}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
