"""The real app streams from the fake provider over loopback: answer, reasoning, tool calls,
and model output that must stay literal."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.demo.frames import Answer, ToolUse, sse
from app.ui.widgets.tool_call import INVALID_FLAG
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_drawn, wait_until

APIS = pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])


@APIS
async def test_an_answer_appears_with_its_status(
    fake_provider: FakeProvider, tmp_path: Path, api: Api
) -> None:
    fake_provider.push(fake.stream(api, replace(ANSWER, reasoning=(), tool=None)))
    app = make_app(fake_config(fake_provider, api), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hi there")
        await wait_drawn(pilot)
        view = app.pane.current
        assert view is not None
        assert view.answer.source == "Hello, world."
        status = app.pane.status_bar.plain
        assert "fake · m-1 · complete" in status
        assert "in 11 out" in status
        screen = screen_text(app)
        assert "Hello, world." in screen
        assert "hi there" in screen
        assert len(fake_provider.requests) == 1


async def test_reasoning_streams_live_then_collapses(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    answer = replace(ANSWER, reasoning=("Thinking", " step one.", " step two."), tool=None)
    fake_provider.push(fake.stream(Api.CHAT, answer, delay=0.15))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "think")
        await wait_until(pilot, lambda: app.pane.current and app.pane.current.reasoning.chars)
        view = app.pane.current
        assert view is not None
        pane = view.reasoning
        await wait_until(pilot, lambda: "Thinking" in pane.body_text, what="reasoning body")
        assert not pane.collapsed  # open while it streams
        assert pane.title.startswith("Reasoning…")
        assert view.answer.source == ""
        await wait_drawn(pilot)
        assert pane.collapsed  # closed itself when the answer started
        assert "Thinking step one. step two." in pane.body_text
        assert pane.title.startswith("Reasoning · 28 chars · ")
        assert "step two." in screen_text(app)  # the one-line tail of the collapsed pane


async def test_reasoning_stays_open_with_the_setting(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.MESSAGES, replace(ANSWER, tool=None)))
    app = make_app(fake_config(fake_provider, Api.MESSAGES, reasoning_open=True), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "think")
        await wait_drawn(pilot)
        view = app.pane.current
        assert view is not None
        assert not view.reasoning.collapsed
        assert view.reasoning.body_text == "Thinking briefly."
        await pilot.press("ctrl+r")  # the key toggles every reasoning pane
        assert view.reasoning.collapsed


@APIS
async def test_a_tool_call_card_builds_live_then_shows_json(
    fake_provider: FakeProvider, tmp_path: Path, api: Api
) -> None:
    tool = ToolUse("get_weather", ('{"city"', ': "Par', 'is", "unit": "c"}'), id="call_7")
    fake_provider.push(fake.stream(api, replace(ANSWER, reasoning=(), tool=tool), delay=0.08))
    app = make_app(fake_config(fake_provider, api), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "weather")
        await wait_until(pilot, lambda: app.pane.current and app.pane.current.cards)
        view = app.pane.current
        assert view is not None
        card = next(iter(view.cards.values()))
        await wait_until(pilot, lambda: card.shown.startswith('{"city"'), what="partial args")
        assert not card.call.closed
        assert "get_weather" in screen_text(app)
        await wait_drawn(pilot)
        assert card.shown == '{\n  "city": "Paris",\n  "unit": "c"\n}'
        assert not card.has_class("-invalid")
        assert '"city": "Paris",' in screen_text(app)


async def test_invalid_tool_arguments_are_flagged(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    tool = ToolUse("run", ('{"cmd": "ls', " -la"), id="call_8")
    fake_provider.push(fake.stream(Api.CHAT, replace(ANSWER, reasoning=(), tool=tool)))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "run it")
        await wait_drawn(pilot)
        view = app.pane.current
        assert view is not None
        card = next(iter(view.cards.values()))
        assert card.call.invalid_json
        assert card.has_class("-invalid")
        assert card.shown == '{"cmd": "ls -la'
        assert INVALID_FLAG in screen_text(app)


async def test_model_output_is_shown_literally(fake_provider: FakeProvider, tmp_path: Path) -> None:
    hostile = (
        "[bold red]x[/] and [link=https://evil.example]click[/link] orphan [/] ",
        "\x1b[31mred\x1b[0m \x1b]0;title\x07 done",
    )
    tool = ToolUse("[bold]tool[/]", ('{"a": "\\u001b[2J"}',), id="[red]id")
    answer = Answer(text=hostile, reasoning=("[italic]think[/]",), tool=tool)
    fake_provider.push(fake.stream(Api.CHAT, answer))
    app = make_app(fake_config(fake_provider, reasoning_open=True), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "[b]prompt[/b]")
        await wait_drawn(pilot)
        assert app.pane.turn is not None
        assert app.pane.turn.status is TurnStatus.COMPLETE
        screen = screen_text(app)
        assert "[bold red]x[/] and [link=https://evil.example]click[/link] orphan [/]" in screen
        assert "␛[31mred␛[0m ␛]0;title␇ done" in screen
        assert "[italic]think[/]" in screen
        assert "⚙ [bold]tool[/]  [red]id" in screen
        assert '"a": "\\u001b[2J"' in screen  # json.dumps escapes it; shown as text
        assert "[b]prompt[/b]" in screen
        assert "\x1b" not in screen
        assert "\x07" not in screen


async def test_sources_are_listed_under_the_answer(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return sse({"id": "c1", "object": "chat.completion.chunk", "choices": [choice]})

    source = {"url": "https://example.com/a", "title": "Example [bold]A[/]"}
    fake_provider.push(
        fake.scripted(
            [
                (0.0, chunk({"role": "assistant", "content": "See the docs."})),
                (0.0, chunk({"sources": [source]})),
                (0.0, chunk({}, "stop")),
                (0.0, b"data: [DONE]\n\n"),
            ]
        )
    )
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "cite")
        await wait_drawn(pilot)
        screen = screen_text(app)
        assert "Sources:" in screen
        assert "1. Example [bold]A[/] — https://example.com/a" in screen
