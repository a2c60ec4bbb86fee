"""Upstream GraphQL API used by the integration tests.

A Strawberry schema served by uvicorn, plus a few plain routes that let a test
see what gqlgate sends upstream and control what the upstream answers:

* ``/graphql``        the GraphQL API (HTTP and WebSocket): books, Star Wars
                      reviews (``reviews(episode)``, ``createReview``, ``updateReview``), ``slow``, ``fail``,
                      Star Wars characters (``characters(first)``: an interface, ``Human.homePlanet``
                      deprecated; ``search(text)``: a union of books and characters; never changed)
* ``/status/{code}``  answers ``code`` with a fixed JSON body and ``X-Upstream-Marker: yes``
* ``/echo-headers``   answers ``{"data": {"headers": {...request headers...}}}``
* ``/hop-headers``    a GraphQL-shaped answer carrying hop-by-hop response headers
* ``/conn-close``     a GraphQL-shaped answer with ``Connection: close``
* ``/chunked``        a GraphQL-shaped answer sent with ``Transfer-Encoding: chunked``
* ``/raw-numbers``    ``{"data": {"stats": {...}}}`` whatever the query, with numbers written as no
                      JSON library writes them (``5.0``, ``1e400``, ``-0``…; ``RAW_NUMBERS``), and the
                      query's ``alias: __typename`` answered in ``stats``
* ``/large``          a GraphQL-shaped answer of about ``?bytes=N`` bytes (default 5 MB)
* ``/big-headers``    a GraphQL-shaped answer with ``?count=N`` end-to-end header fields
                      ``X-Big-1``… of ``?bytes=M`` bytes each (default 1 of 1000)
* ``/auth/graphql``  the GraphQL API behind bearer tokens from ``token_auth.py``: HTTP is 401
                      without one; a WebSocket's ``connection_init`` payload must carry one
                      (``{"Authorization": "Bearer ..."}``), else it is closed 4403
* ``/auth/revoke``   ``POST ?code=4401`` (or 4403): revokes the token of every WebSocket open
                      at ``/auth/graphql`` and closes it with that code; answers ``{"closed": n}``
* ``/auth/sockets``  ``{"open": n, "refused": n}``: WebSockets open at ``/auth/graphql`` with an
                      accepted token now, and closed 4403 at their ``connection_init`` so far
* ``/flaky/calls``   per-key request counts of the failure injection in ``flaky.py``
* ``/apq/graphql``    the same schema with automatic persisted queries (Strawberry has none of its own)
* ``/apq/seen``       what ``/apq/graphql`` was sent, in order: ``hash``, ``hash+query`` or ``query``
* ``/load/{key}``     ``{"in_flight": n, "max": n, "total": n}`` of the HTTP requests carrying
                      ``X-Load-Key: key``: in progress now, at most at once, in all
* ``/counters``       how many requests each path has received so far (requests
                      with an ``X-Test-Probe`` header, the tests' own, are not counted)
* ``/subscriptions``  ``{"active": n, "started": n, "connections": n}``: subscriptions
                      running now and started so far, WebSocket connections open now
* ``/defer/graphql``  a small schema with Strawberry's incremental execution on (``@defer``,
                      ``@stream``): ``hello``, ``books``, ``held(key)`` (answers ``"released <key>"``
                      once ``POST /defer/release?key=<key>`` came) and ``heldBooks(key)`` (streams
                      the three first books, holding after the first until that release); answers in
                      ``multipart/mixed`` parts whatever the ``Accept``
* ``/defer/held``     ``{"waiting": [keys]}``: the keys whose resolvers wait for their release now

Subscriptions: ``countdown(from)`` (finite), ``ticks(intervalMs)`` (endless),
``bookAdded`` (fed by ``addBook``), ``connectionParams`` (the ``connection_init``
payload as JSON text, once).

Run: ``python upstream_app.py --port 4001`` (binds 127.0.0.1); ``--ws-protocols graphql-ws``
serves only the legacy subprotocol.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import enum
import hashlib
import json
import re
import typing

import strawberry
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route, WebSocketRoute
from strawberry.asgi import GraphQL
from strawberry.schema.config import StrawberryConfig
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL

from flaky import FlakyRequests
from token_auth import RequireToken, revoke, socket_stats

# ---------------------------------------------------------------------------
# Schema


@strawberry.type
class Book:
    id: strawberry.ID
    title: str
    author: str


_INITIAL_BOOKS = [
    ("1", "The Left Hand of Darkness", "Ursula K. Le Guin"),
    ("2", "Dune", "Frank Herbert"),
    ("3", "Kindred", "Octavia E. Butler"),
]

BOOKS: list[Book] = [Book(id=strawberry.ID(i), title=t, author=a) for i, t, a in _INITIAL_BOOKS]


@strawberry.enum
class Episode(enum.Enum):
    NEWHOPE = "NEWHOPE"
    EMPIRE = "EMPIRE"
    JEDI = "JEDI"


@strawberry.type
class Review:
    id: strawberry.ID
    episode: Episode
    stars: int
    commentary: typing.Optional[str]


@strawberry.input
class ReviewInput:
    stars: int
    commentary: typing.Optional[str] = None


REVIEWS: list[Review] = [
    Review(id=strawberry.ID("1"), episode=Episode.NEWHOPE, stars=5, commentary="A classic"),
    Review(id=strawberry.ID("2"), episode=Episode.EMPIRE, stars=5, commentary="The best one"),
    Review(id=strawberry.ID("3"), episode=Episode.JEDI, stars=4, commentary="Ewoks!"),
]


@strawberry.type
class ReviewPayload:
    review: Review


@strawberry.interface
class Character:
    id: strawberry.ID
    name: str


@strawberry.type
class Human(Character):
    height: float
    home_planet: typing.Optional[str] = strawberry.field(default=None, deprecation_reason="Use the planets API")


@strawberry.type
class Droid(Character):
    primary_function: str


# Four characters, never changed (the books and reviews change with the tests' mutations).
CHARACTERS: tuple[Character, ...] = (
    Human(id=strawberry.ID("1000"), name="Luke Skywalker", height=1.72, home_planet="Tatooine"),
    Droid(id=strawberry.ID("2001"), name="R2-D2", primary_function="Astromech"),
    Human(id=strawberry.ID("1003"), name="Leia Organa", height=1.5, home_planet="Alderaan"),
    Droid(id=strawberry.ID("2000"), name="C-3PO", primary_function="Protocol"),
)

SearchResult = typing.Annotated[typing.Union[Book, Human, Droid], strawberry.union("SearchResult")]


@strawberry.type
class Query:
    @strawberry.field
    def hello(self, name: typing.Optional[str] = None) -> typing.Optional[str]:
        return f"Hello, {name if name is not None else 'world'}!"

    @strawberry.field
    def books(self) -> list[Book]:
        return list(BOOKS)

    @strawberry.field
    def book(self, id: strawberry.ID) -> typing.Optional[Book]:
        for b in BOOKS:
            if b.id == id:
                return b
        return None

    @strawberry.field
    def reviews(self, episode: Episode) -> list[Review]:
        return [r for r in REVIEWS if r.episode == episode]

    @strawberry.field
    def book_count(self) -> int:
        return len(BOOKS)

    @strawberry.field
    async def slow(self, seconds: float) -> typing.Optional[str]:
        await asyncio.sleep(seconds)
        return f"slept {seconds}"

    @strawberry.field
    def fail(self) -> typing.Optional[str]:
        raise ValueError("fail resolver always fails")

    @strawberry.field
    def characters(self, first: typing.Optional[int] = None) -> list[Character]:
        return list(CHARACTERS if first is None else CHARACTERS[: max(0, first)])

    @strawberry.field
    def search(self, text: str) -> list[SearchResult]:
        return [b for b in BOOKS if text in b.title] + [c for c in CHARACTERS if text in c.name]


class SubscriptionStats:
    """Subscriptions running now and started so far (``/subscriptions``)."""

    active = 0
    started = 0
    connections = 0

    @classmethod
    @contextlib.contextmanager
    def running(cls) -> typing.Iterator[None]:
        """Counts the subscription whose generator runs inside as active until it ends or is stopped."""
        cls.active += 1
        cls.started += 1
        try:
            yield
        finally:
            cls.active -= 1


class BookFeed:
    """Every ``bookAdded`` subscriber's queue; ``addBook`` puts the new book in each."""

    queues: set[asyncio.Queue[Book]] = set()

    @classmethod
    def publish(cls, book: Book) -> None:
        for queue in cls.queues:
            queue.put_nowait(book)


@strawberry.type
class Mutation:
    @strawberry.mutation
    def add_book(self, title: str, author: str) -> Book:
        book = Book(id=strawberry.ID(str(len(BOOKS) + 1)), title=title, author=author)
        BOOKS.append(book)
        BookFeed.publish(book)
        return book

    @strawberry.mutation
    def create_review(self, episode: Episode, review: ReviewInput) -> Review:
        created = Review(
            id=strawberry.ID(str(len(REVIEWS) + 1)), episode=episode, stars=review.stars, commentary=review.commentary
        )
        REVIEWS.append(created)
        return created

    @strawberry.mutation
    def update_review(self, id: strawberry.ID, stars: int) -> ReviewPayload:
        review = next(r for r in REVIEWS if r.id == id)
        review.stars = stars
        return ReviewPayload(review=review)


@strawberry.type
class Subscription:
    @strawberry.subscription
    async def countdown(
        self, from_: typing.Annotated[int, strawberry.argument(name="from")]
    ) -> typing.AsyncGenerator[int, None]:
        with SubscriptionStats.running():
            for i in range(from_, -1, -1):
                yield i
                await asyncio.sleep(0.05)

    @strawberry.subscription
    async def ticks(self, interval_ms: int = 100) -> typing.AsyncGenerator[int, None]:
        with SubscriptionStats.running():
            n = 0
            while True:
                yield n
                n += 1
                await asyncio.sleep(interval_ms / 1000)

    @strawberry.subscription
    async def book_added(self) -> typing.AsyncGenerator[Book, None]:
        queue: asyncio.Queue[Book] = asyncio.Queue()
        BookFeed.queues.add(queue)
        try:
            with SubscriptionStats.running():
                while True:
                    yield await queue.get()
        finally:
            BookFeed.queues.discard(queue)

    @strawberry.subscription
    async def connection_params(self, info: strawberry.Info) -> typing.AsyncGenerator[str, None]:
        yield json.dumps(info.context.get("connection_params"), sort_keys=True)


class QuietSchema(strawberry.Schema):
    """Field errors are part of the tests; keep them out of the server log."""

    def process_errors(self, errors: typing.Any, execution_context: typing.Any = None) -> None:
        return None


schema = QuietSchema(query=Query, mutation=Mutation, subscription=Subscription)

class Releases:
    """The events ``held`` and ``heldBooks`` wait for, by key, and the keys waited for now."""

    events: dict[str, asyncio.Event] = {}
    waiting: collections.Counter[str] = collections.Counter()

    @classmethod
    async def wait(cls, key: str) -> None:
        cls.waiting[key] += 1
        try:
            await cls.events.setdefault(key, asyncio.Event()).wait()
        finally:
            cls.waiting[key] -= 1

    @classmethod
    def release(cls, key: str) -> None:
        cls.events.setdefault(key, asyncio.Event()).set()


@strawberry.type
class DeferQuery:
    @strawberry.field
    def hello(self) -> str:
        return "Hello, world!"

    @strawberry.field
    def books(self) -> list[Book]:
        return list(BOOKS)

    @strawberry.field
    async def held(self, key: str) -> str:
        await Releases.wait(key)
        return f"released {key}"

    @strawberry.field(graphql_type=list[Book])
    def held_books(self, key: str) -> typing.AsyncIterator[Book]:
        async def books() -> typing.AsyncIterator[Book]:
            # The first three books, whatever other tests added since.
            for index, book in enumerate(BOOKS[: len(_INITIAL_BOOKS)]):
                if index == 1:
                    await Releases.wait(key)
                yield book

        return books()


defer_schema = QuietSchema(query=DeferQuery, config=StrawberryConfig(enable_experimental_incremental_execution=True))
defer_app = GraphQL(defer_schema, graphql_ide=None)

SUBSCRIPTION_PROTOCOLS = {"graphql-transport-ws": GRAPHQL_TRANSPORT_WS_PROTOCOL, "graphql-ws": GRAPHQL_WS_PROTOCOL}


def make_graphql_app(protocols: typing.Sequence[str] = tuple(SUBSCRIPTION_PROTOCOLS)) -> GraphQL:
    return GraphQL(schema, graphql_ide=None, subscription_protocols=[SUBSCRIPTION_PROTOCOLS[p] for p in protocols])


graphql_app = make_graphql_app()

# ---------------------------------------------------------------------------
# Plain routes

COUNTERS: collections.Counter[str] = collections.Counter()

STATUS_BODY_TEMPLATE = '{"errors":[{"message":"upstream answered %d","extensions":{"code":"UPSTREAM_TEST_STATUS"}}]}'


def status_body(code: int) -> bytes:
    return (STATUS_BODY_TEMPLATE % code).encode()


async def status_route(request: Request) -> Response:
    code = int(request.path_params["code"])
    await request.body()
    return Response(
        status_body(code),
        status_code=code,
        media_type="application/json",
        headers={"X-Upstream-Marker": "yes"},
    )


async def echo_headers(request: Request) -> Response:
    await request.body()
    headers: dict[str, str] = {}
    for name, value in request.headers.items():
        name = name.lower()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    body = {"data": {"headers": headers, "method": request.method}}
    return Response(json.dumps(body), media_type="application/json")


HOP_BODY = b'{"data":{"hop":"ok"}}'


async def hop_headers(request: Request) -> Response:
    await request.body()
    return Response(
        HOP_BODY,
        media_type="application/json",
        headers={
            "Connection": "X-Hop-Custom",
            "X-Hop-Custom": "must-not-pass",
            "Keep-Alive": "timeout=30, max=7",
            "Proxy-Authenticate": "Basic realm=upstream",
            "X-Upstream-Marker": "yes",
        },
    )


CLOSE_BODY = b'{"data":{"close":"ok"}}'


async def conn_close(request: Request) -> Response:
    await request.body()
    return Response(
        CLOSE_BODY,
        media_type="application/json",
        headers={"Connection": "close", "X-Upstream-Marker": "yes"},
    )


CHUNKED_PARTS = [b'{"data":{"chunks":[', b'"a",', b'"b",', b'"c"', b"]}}"]


async def chunked(request: Request) -> Response:
    await request.body()

    async def parts() -> typing.AsyncIterator[bytes]:
        for p in CHUNKED_PARTS:
            yield p
            await asyncio.sleep(0.01)

    return StreamingResponse(parts(), media_type="application/json", headers={"X-Upstream-Marker": "yes"})


RAW_NUMBERS = (
    '"ratio": 5.0, "huge": 1e400, "negativeZero": -0, "big": 12345678901234567890, "exponent": 1.5E+3, '
    '"list": [5.0, -0.0, 1E-7]'
)


async def raw_numbers(request: Request) -> Response:
    query = (await request.json()).get("query") or ""
    typenames = "".join(f'"{alias}": "Stats", ' for alias in re.findall(r"(\w+)\s*:\s*__typename", query))
    return Response(f'{{"data": {{"stats": {{{typenames}{RAW_NUMBERS}}}}}}}'.encode(), media_type="application/json")


async def large(request: Request) -> Response:
    await request.body()
    size = int(request.query_params.get("bytes", "5000000"))
    return Response(b'{"data":{"blob":"' + b"x" * size + b'"}}', media_type="application/json")


BIG_HEADERS_BODY = b'{"data":{"big":"headers"}}'


async def big_headers(request: Request) -> Response:
    await request.body()
    count = int(request.query_params.get("count", "1"))
    size = int(request.query_params.get("bytes", "1000"))
    headers = {f"X-Big-{i}": "h" * size for i in range(1, count + 1)}
    return Response(BIG_HEADERS_BODY, media_type="application/json", headers=headers)


PERSISTED: dict[str, str] = {}
APQ_SEEN: list[str] = []
APQ_NOT_FOUND = {"errors": [{"message": "PersistedQueryNotFound", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}]}


async def apq_graphql(request: Request) -> Response:
    """APQ as Apollo Server does it: a known hash runs its query, an unknown one is 200 PERSISTED_QUERY_NOT_FOUND."""
    body = await request.json()
    persisted = (body.get("extensions") or {}).get("persistedQuery")
    query = body.get("query")
    APQ_SEEN.append(("hash+query" if query is not None else "hash") if persisted else "query")
    if persisted:
        sha = persisted["sha256Hash"]
        if query is None:
            if sha not in PERSISTED:
                return Response(json.dumps(APQ_NOT_FOUND), media_type="application/json")
            query = PERSISTED[sha]
        elif hashlib.sha256(query.encode()).hexdigest() != sha:
            return Response(status_body(400), status_code=400, media_type="application/json")
        else:
            PERSISTED[sha] = query
    result = await schema.execute(query, variable_values=body.get("variables"), operation_name=body.get("operationName"))
    answer: dict[str, typing.Any] = {"data": result.data}
    if result.errors:
        answer["errors"] = [error.formatted for error in result.errors]
    return Response(json.dumps(answer), media_type="application/json")


async def apq_seen(request: Request) -> Response:
    return Response(json.dumps(APQ_SEEN), media_type="application/json")


async def revoke_tokens(request: Request) -> Response:
    closed = revoke(int(request.query_params.get("code", "4401")))
    return Response(json.dumps({"closed": closed}), media_type="application/json")


async def token_sockets(request: Request) -> Response:
    return Response(json.dumps(socket_stats()), media_type="application/json")


async def defer_release(request: Request) -> Response:
    Releases.release(request.query_params["key"])
    return Response(b"{}", media_type="application/json")


async def defer_held(request: Request) -> Response:
    waiting = sorted(key for key, count in Releases.waiting.items() if count > 0)
    return Response(json.dumps({"waiting": waiting}), media_type="application/json")


async def counters(request: Request) -> Response:
    return Response(json.dumps(dict(COUNTERS)), media_type="application/json")


async def subscription_stats(request: Request) -> Response:
    stats = SubscriptionStats
    body = {"active": stats.active, "started": stats.started, "connections": stats.connections}
    return Response(json.dumps(body), media_type="application/json")


class LoadStats:
    """Requests of each ``X-Load-Key`` in progress now, at most at once, and in all (``/load/{key}``)."""

    in_flight: collections.Counter[str] = collections.Counter()
    most: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()


async def load_stats(request: Request) -> Response:
    key = request.path_params["key"]
    body = {"in_flight": LoadStats.in_flight[key], "max": LoadStats.most[key], "total": LoadStats.total[key]}
    return Response(json.dumps(body), media_type="application/json")


class CountRequests:
    """Counts every HTTP request and WebSocket connection by path, the WebSockets open now,
    and the HTTP requests of each ``X-Load-Key`` in progress (``LoadStats``)."""

    def __init__(self, app: typing.Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: typing.Any, send: typing.Any) -> None:
        probe = any(k == b"x-test-probe" for k, _ in scope.get("headers", []))
        if scope["type"] in ("http", "websocket") and scope["path"] not in ("/counters", "/subscriptions") and not probe:
            COUNTERS[scope["path"]] += 1
        load_key = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"x-load-key"), None)
        if scope["type"] == "http" and load_key is not None:
            LoadStats.total[load_key] += 1
            LoadStats.in_flight[load_key] += 1
            LoadStats.most[load_key] = max(LoadStats.most[load_key], LoadStats.in_flight[load_key])
            try:
                await self.app(scope, receive, send)
            finally:
                LoadStats.in_flight[load_key] -= 1
            return
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        SubscriptionStats.connections += 1
        try:
            await self.app(scope, receive, send)
        finally:
            SubscriptionStats.connections -= 1


def make_routes(ws_app: GraphQL) -> list[typing.Any]:
    return [
        Route("/graphql", graphql_app),
        Route("/auth/graphql", RequireToken(graphql_app), methods=["GET", "POST"]),
        WebSocketRoute("/graphql", ws_app),
        WebSocketRoute("/auth/graphql", RequireToken(ws_app)),
        Route("/auth/revoke", revoke_tokens, methods=["POST"]),
        Route("/auth/sockets", token_sockets, methods=["GET"]),
        Route("/status/{code:int}", status_route, methods=["GET", "POST", "PUT", "DELETE", "PATCH"]),
        Route("/echo-headers", echo_headers, methods=["GET", "POST"]),
        Route("/hop-headers", hop_headers, methods=["GET", "POST"]),
        Route("/conn-close", conn_close, methods=["GET", "POST"]),
        Route("/chunked", chunked, methods=["GET", "POST"]),
        Route("/raw-numbers", raw_numbers, methods=["POST"]),
        Route("/large", large, methods=["GET", "POST"]),
        Route("/big-headers", big_headers, methods=["GET", "POST"]),
        Route("/apq/graphql", apq_graphql, methods=["POST"]),
        Route("/apq/seen", apq_seen, methods=["GET"]),
        Route("/defer/graphql", defer_app, methods=["GET", "POST"]),
        Route("/defer/release", defer_release, methods=["POST"]),
        Route("/defer/held", defer_held, methods=["GET"]),
        Route("/counters", counters, methods=["GET"]),
        Route("/load/{key}", load_stats, methods=["GET"]),
        Route("/subscriptions", subscription_stats, methods=["GET"]),
    ]


def make_app(ws_protocols: typing.Sequence[str] = tuple(SUBSCRIPTION_PROTOCOLS)) -> typing.Any:
    return CountRequests(FlakyRequests(Starlette(routes=make_routes(make_graphql_app(ws_protocols)))))


app = make_app()


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument(
        "--ws-protocols", default=",".join(SUBSCRIPTION_PROTOCOLS), help="comma-separated WebSocket subprotocols to serve"
    )
    args = parser.parse_args()
    uvicorn.run(
        make_app(args.ws_protocols.split(",")),
        host=args.host,
        port=args.port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        ws="websockets-sansio",
    )


if __name__ == "__main__":
    main()
