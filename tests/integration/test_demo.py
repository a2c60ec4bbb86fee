"""`gqlgate demo`: the embedded Star Wars reviews API with gqlgate in front of it."""

from __future__ import annotations

import uuid

from harness import NotReady, post_graphql, wait_until

HERO = "query Hero($episode: Episode) { hero(episode: $episode) { id name friends { id name } } }"
REVIEWS = "query Reviews($episode: Episode!) { reviews(episode: $episode) { stars commentary } }"
CREATE_REVIEW = (
    "mutation Create($episode: Episode!, $review: ReviewInput!) "
    "{ createReview(episode: $episode, review: $review) { stars commentary } }"
)


def data_of(r) -> dict:
    assert r.status == 200, str(r)
    body = r.json()
    assert not body.get("errors"), str(r)
    return body["data"]


def test_hero_through_gateway(demo):
    hero = data_of(post_graphql(demo.url, HERO))["hero"]
    assert isinstance(hero["id"], str) and hero["id"]
    assert isinstance(hero["name"], str) and hero["name"]
    assert isinstance(hero["friends"], list) and hero["friends"]
    assert all(f["name"] for f in hero["friends"])


def test_hero_by_episode_matches_the_demo_api(demo):
    for episode in ("NEWHOPE", "EMPIRE", "JEDI"):
        via = post_graphql(demo.url, HERO, {"episode": episode})
        direct = post_graphql(demo.api_url, HERO, {"episode": episode})
        assert data_of(via)["hero"]["name"]
        assert via.body == direct.body, f"via gqlgate: {via}\ndirect: {direct}"


def test_reviews_inline_argument(demo):
    reviews = data_of(post_graphql(demo.url, "{ reviews(episode: JEDI) { stars commentary } }"))["reviews"]
    assert isinstance(reviews, list)


def test_create_review_then_list_it(demo):
    commentary = f"x {uuid.uuid4()}"
    created = data_of(
        post_graphql(demo.url, CREATE_REVIEW, {"episode": "JEDI", "review": {"stars": 5, "commentary": commentary}})
    )["createReview"]
    assert created == {"stars": 5, "commentary": commentary}
    reviews = data_of(post_graphql(demo.url, REVIEWS, {"episode": "JEDI"}))["reviews"]
    assert reviews.count({"stars": 5, "commentary": commentary}) == 1, reviews
    other = data_of(post_graphql(demo.url, REVIEWS, {"episode": "EMPIRE"}))["reviews"]
    assert {"stars": 5, "commentary": commentary} not in other


def test_create_review_inline_arguments(demo):
    commentary = f"inline {uuid.uuid4()}"
    q = 'mutation { createReview(episode: JEDI, review: {stars: 5, commentary: "%s"}) { stars commentary } }'
    created = data_of(post_graphql(demo.url, q % commentary))["createReview"]
    assert created == {"stars": 5, "commentary": commentary}
    reviews = data_of(post_graphql(demo.url, "{ reviews(episode: JEDI) { stars commentary } }"))["reviews"]
    assert {"stars": 5, "commentary": commentary} in reviews


def test_demo_prints_curl_lines(demo):
    address = f"127.0.0.1:{demo.port}"

    def printed() -> bool:
        out = demo.proc.stdout() + demo.proc.stderr()
        return "curl" in out and address in out

    try:
        wait_until(printed, timeout=5, what="curl lines naming " + address)
    except NotReady:
        raise AssertionError(
            f"within 5s, `gqlgate demo` with its output going to a file printed no curl line naming {address} "
            "(a line printed but not flushed counts as not printed)"
        ) from None
