"""A GraphQL API as teams run one beside gqlgate, for scripts/bench-sidecar.sh: Strawberry
on uvicorn, one worker, resolvers in Python.

`products(first)` lists products with a nested seller: the bench query asks for ten of
them (an answer of about 1 KiB). `/requests` answers how many GraphQL requests this process
has executed, so that the benchmark can tell how many reached the API.

Run: python -m uvicorn strawberry_upstream:app --app-dir scripts/bench --port PORT
"""

import strawberry
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from strawberry.asgi import GraphQL
from strawberry.extensions import SchemaExtension

EXECUTED = [0]


@strawberry.type
class Seller:
    id: strawberry.ID
    name: str
    rating: float


@strawberry.type
class Product:
    id: strawberry.ID
    name: str
    price: float
    in_stock: bool
    seller: Seller


SELLERS = [Seller(id=strawberry.ID(f"s{n}"), name=f"Seller {n}", rating=4.0 + n / 10) for n in range(5)]
PRODUCTS = [
    Product(id=strawberry.ID(f"p{n}"), name=f"Product {n}", price=9.99 + n, in_stock=n % 3 != 0, seller=SELLERS[n % 5])
    for n in range(100)
]


@strawberry.type
class Query:
    @strawberry.field
    def products(self, first: int = 10) -> list[Product]:
        return PRODUCTS[: max(0, min(first, len(PRODUCTS)))]


class CountExecutions(SchemaExtension):
    """Counts every operation Strawberry executes."""

    def on_execute(self):
        EXECUTED[0] += 1
        yield


async def executed(_request):
    return PlainTextResponse(f"{EXECUTED[0]}\n")


schema = strawberry.Schema(query=Query, extensions=[CountExecutions])
app = Starlette(routes=[Route("/requests", executed), Route("/graphql", GraphQL(schema))])
