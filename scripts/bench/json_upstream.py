"""The HTTP side of the bench's fake upstreams: HTTP/1.1 requests on kept-alive
connections with Content-Length bodies (what libcurl sends), each answered 200 with
the JSON body a callback makes from its method and path. Standard library only."""

from __future__ import annotations

import asyncio
import typing

Respond = typing.Callable[[str, str], typing.Awaitable[bytes]]


async def serve_json(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, respond: Respond) -> None:
    """Answers every request on one connection with `await respond(method, path)`, until the client leaves."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            request_line, *header_lines = head.decode("latin-1").split("\r\n")
            method, _, rest = request_line.partition(" ")
            path = rest.partition(" ")[0]
            length = 0
            for line in header_lines:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length:
                await reader.readexactly(length)
            body = await respond(method, path)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()
