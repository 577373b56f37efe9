"""Switching provider and wire format in the middle of a conversation, in the app, over the fake
server: each request carries the earlier turns (text, tool calls and their results, thinking
only where it can be sent back) in its own format's shape, and so does a conversation reopened
from the history file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from app.providers.requests import TOOL_NOT_RUN
from app.settings.config import Config, UiSettings
from app.ui.app import TriptychApp
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, make_app, send, wait_drawn, wait_until

NAMES = {Api.CHAT: "demo", Api.MESSAGES: "demo-messages", Api.RESPONSES: "demo-responses"}
TOOL_INPUT = {"city": "Paris"}
ARGUMENTS = '{"city": "Paris"}'


def three_formats(fake_provider: FakeProvider) -> Config:
    providers = {
        name: fake_provider.provider(api, name=name, model=f"{api.value}-model")
        for api, name in NAMES.items()
    }
    return Config(path=None, default="demo", providers=providers, ui=UiSettings())


async def switch(app: TriptychApp, api: Api) -> None:
    provider = app.config.providers[NAMES[api]]
    await app.use_provider(provider, provider.model)
    assert app.pane.provider.api is api


def chat_turn(text: str) -> list[dict[str, Any]]:
    call = {"id": "call_1", "type": "function", "function": {"name": "get_weather"}}
    call["function"]["arguments"] = ARGUMENTS
    return [
        {"role": "user", "content": text},
        {
            "role": "assistant",
            "content": "Hello, world.",
            "reasoning_content": "Thinking briefly.",
            "tool_calls": [call],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": TOOL_NOT_RUN},
    ]


async def test_chat_then_messages_then_responses_then_reopened_as_chat(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    config = three_formats(fake_provider)
    fake_provider.push(
        fake.stream(Api.CHAT),
        fake.stream(Api.MESSAGES),
        fake.stream(Api.RESPONSES),
        fake.stream(Api.CHAT),
    )
    app = make_app(config, tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "q1")
        await wait_drawn(pilot)
        await switch(app, Api.MESSAGES)
        await send(pilot, "q2")
        await wait_drawn(pilot)
        await switch(app, Api.RESPONSES)
        await send(pilot, "q3")
        await wait_drawn(pilot)

    first, second, third = (r for r in fake_provider.requests)
    assert first.path.endswith("/chat/completions")
    assert second.path.endswith("/messages")
    assert third.path.endswith("/responses")

    # Messages: the chat turn's text and tool call as blocks; its reasoning had no signature,
    # so no thinking block; the tool result opens the next user message.
    assert second.json["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "q1"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Hello, world."},
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": TOOL_INPUT},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": TOOL_NOT_RUN},
                {"type": "text", "text": "q2"},
            ],
        },
    ]

    # Responses: both earlier turns as input items.
    answer = {"type": "message", "role": "assistant", "content": "Hello, world."}
    call = {"type": "function_call", "call_id": "call_1", "name": "get_weather"}
    call["arguments"] = ARGUMENTS
    result = {"type": "function_call_output", "call_id": "call_1", "output": TOOL_NOT_RUN}
    user = [{"type": "message", "role": "user", "content": q} for q in ("q1", "q2", "q3")]
    assert third.json["input"] == [
        user[0], answer, call, result, user[1], answer, call, result, user[2]
    ]  # fmt: skip

    # Reopened from the file (it continues with the provider that answered last), then chat.
    again = make_app(config, tmp_path, history_file=db, continue_last=True)
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: again.pane.history.record.conv_id is not None)
        assert again.pane.provider.name == "demo-responses"
        await switch(again, Api.CHAT)
        await send(pilot, "q4")
        await wait_drawn(pilot)
    fourth = fake_provider.requests[-1].json
    assert fourth["messages"] == [
        *chat_turn("q1"),
        *chat_turn("q2"),
        *chat_turn("q3"),
        {"role": "user", "content": "q4"},
    ]
    with sqlite3.connect(db) as conn:
        saved = list(conn.execute("SELECT provider, api FROM messages WHERE role = 'assistant'"))
    assert saved == [
        ("demo", "chat"),
        ("demo-messages", "messages"),
        ("demo-responses", "responses"),
        ("demo", "chat"),
    ]
