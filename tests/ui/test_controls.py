"""Keys, the command palette and themes, against the real app."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

from textual.command import CommandPalette

from app.demo.frames import Answer
from app.ui.themes import DEFAULT_THEME
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.welcome import Welcome
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.helpers import (
    SIZE,
    fake_config,
    make_app,
    screen_text,
    send,
    wait_drawn,
    wait_until,
)

PLAIN = replace(ANSWER, reasoning=(), tool=None)
CODE_ANSWER = Answer(text=("Run this:\n\n```python\n", "print('hi')\n", "```\n\nDone."))


async def test_enter_sends_ctrl_j_breaks_the_line_and_up_recalls(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, PLAIN), fake.stream(Api.CHAT, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.screen.query_one(PromptInput)
        await pilot.press("a", "ctrl+j", "b")
        assert prompt.text == "a\nb"
        assert fake_provider.requests == []
        await pilot.press("enter")
        await wait_drawn(pilot)
        assert prompt.text == ""
        sent = fake_provider.last_request().json["messages"][-1]["content"]
        assert sent == "a\nb"
        await send(pilot, "second")
        await wait_drawn(pilot)
        await pilot.press("up")
        assert prompt.text == "second"
        await pilot.press("up")
        assert prompt.text == "a\nb"
        await pilot.press("down", "down")  # the cursor is on the last line: newer, then draft
        assert prompt.text == ""


async def test_palette_copies_the_last_answer_and_a_code_block(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, CODE_ANSWER))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "code please")
        await wait_drawn(pilot)
        for query, expected in (
            ("copy last answer", "Run this:\n\n```python\nprint('hi')\n```\n\nDone."),
            ("copy code block 1", "print('hi')"),
        ):
            await pilot.press("ctrl+p")
            await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
            await pilot.press(*query)
            await pilot.pause(0.4)  # the palette searches in the background
            await pilot.press("enter")
            await wait_until(pilot, lambda want=expected: app.clipboard == want, what=query)


async def test_switching_model_asks_models_only_when_chosen(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    config = fake_config(fake_provider)
    provider = replace(config.providers["fake"], models=("m-2",))
    config = replace(config, providers={"fake": provider})
    fake_provider.push(fake.json_answer({"data": [{"id": "m-3"}, {"id": "m-1"}]}))
    fake_provider.push(fake.stream(Api.CHAT, PLAIN))
    app = make_app(config, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"switch model")
        await pilot.pause(0.4)
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(fake_provider.requests) == 1, what="GET /models")
        assert fake_provider.requests[0].method == "GET"
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"m-3")
        await pilot.pause(0.4)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.pane.model == "m-3")
        assert app.sub_title == "fake · m-3"
        await send(pilot, "hi")
        await wait_drawn(pilot)
        assert fake_provider.last_request().json["model"] == "m-3"
        assert "fake · m-3 · complete" in app.pane.status_bar.plain
    state = tomllib.loads((tmp_path / "state.toml").read_text())
    assert (state["provider"], state["model"]) == ("fake", "m-3")


async def test_themes_register_and_the_choice_is_remembered(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    themes = tmp_path / "themes"
    themes.mkdir()
    (themes / "mine.toml").write_text('name = "mine"\nprimary = "#ff0000"\ndark = false\n')
    (themes / "broken.toml").write_text('name = "broken"\nprimary = 3\n')
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == DEFAULT_THEME
        names = set(app.available_themes)
        assert {"triptych-dark", "triptych-light", "triptych-high-contrast", "mine"} <= names
        assert "broken" not in names
        assert any("broken.toml" in problem for problem in app.theme_problems)
        app.theme = "triptych-high-contrast"
        await pilot.pause()
    state = tomllib.loads((tmp_path / "state.toml").read_text())
    assert state["theme"] == "triptych-high-contrast"
    again = make_app(fake_config(fake_provider), tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.theme == "triptych-high-contrast"


async def test_an_answer_shows_in_every_theme_textual_offers(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """Answers take their colours from the theme, including Textual's ANSI themes and ones
    with transparent colours; none may stop an answer from showing."""
    markdown = "# Head\n\nSome *text* and `code`.\n\n```python\nx = 1\n```\n\n> quoted\n"
    fake_provider.push(fake.stream(Api.CHAT, replace(PLAIN, text=(markdown,))))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_drawn(pilot)
        for theme in sorted(app.available_themes):
            app.theme = theme
            await pilot.pause()
            shown = screen_text(app)
            assert "Some text and code." in shown, theme
            assert "x = 1" in shown, theme


async def test_new_chat_clears_the_conversation(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, PLAIN), fake.stream(Api.CHAT, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first")
        await wait_drawn(pilot)
        assert len(app.pane.conversation.messages) == 2
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not app.pane.conversation.messages)
        assert [type(c) for c in app.pane.transcript.children] == [Welcome]  # only the card
        await send(pilot, "fresh")
        await wait_drawn(pilot)
        assert len(fake_provider.last_request().json["messages"]) == 1
