"""The endpoint goes into the base URL's path, before any query; a fragment is dropped
(`…/v1?api-version=1` became `…/v1?api-version=1/chat/completions`)."""

from __future__ import annotations

import asyncio

import pytest

from app.providers.client import ProviderClient
from app.providers.requests import endpoint_url
from app.settings.config import ProviderConfig
from app.wire.conversation import Conversation
from app.wire.engine import Api
from app.wire.turn import Turn
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider


def provider(base_url: str, api: Api = Api.CHAT) -> ProviderConfig:
    return ProviderConfig(name="p", api=api, base_url=base_url, model="m")


@pytest.mark.parametrize(
    ("base_url", "url"),
    [
        ("https://x.test/v1", "https://x.test/v1/chat/completions"),
        ("https://x.test/v1/", "https://x.test/v1/chat/completions"),
        (
            "https://x.test/v1?api-version=2024-10",
            "https://x.test/v1/chat/completions?api-version=2024-10",
        ),
        ("https://x.test/v1/?key=abc&x=1", "https://x.test/v1/chat/completions?key=abc&x=1"),
        ("https://x.test/v1#docs", "https://x.test/v1/chat/completions"),
        ("https://x.test/v1/?a=1#frag", "https://x.test/v1/chat/completions?a=1"),
        ("https://x.test/v1?", "https://x.test/v1/chat/completions"),
        ("https://x.test", "https://x.test/chat/completions"),
        ("https://x.test?a=1", "https://x.test/chat/completions?a=1"),
        ("http://127.0.0.1:8080/v1?q=%2F", "http://127.0.0.1:8080/v1/chat/completions?q=%2F"),
    ],
)
def test_the_endpoint_goes_before_the_query_and_the_fragment_is_dropped(
    base_url: str, url: str
) -> None:
    assert endpoint_url(provider(base_url)) == url


def test_models_listing_keeps_the_query_too() -> None:
    assert (
        endpoint_url(provider("https://x.test/v1?k=v"), "/models") == "https://x.test/v1/models?k=v"
    )


@pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])
def test_a_request_over_loopback_reaches_the_endpoint_with_the_query(api: Api) -> None:
    with FakeProvider() as server:
        server.push(fake.stream(api))
        config = server.provider(api, base_url=server.url + "?api-version=7#ignored")
        conversation = Conversation()
        conversation.add_user("hi")

        async def go() -> Turn:
            async with ProviderClient(config, None) as client:
                return await client.stream(conversation, Turn())

        turn = asyncio.run(go())
        seen = server.last_request()
    assert turn.status.value == "complete"
    path = {Api.CHAT: "/chat/completions", Api.MESSAGES: "/messages", Api.RESPONSES: "/responses"}
    assert seen.path == f"/v1{path[api]}?api-version=7"
