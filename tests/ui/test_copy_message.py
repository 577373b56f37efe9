"""Copying any message, not only the last answer: with a message selected (Alt+Up), `c` copies
it as written (an answer's Markdown source, a prompt as typed) and `y` offers its code blocks;
the palette lists the code blocks of every answer, the newest answer's first."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot

from app.demo.frames import Answer
from app.demo.samples import pieces
from app.ui.app import TriptychApp
from app.ui.screens.finding import NO_CODE, code_block_choices
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, send, wait_drawn, wait_until

FIRST = "# First\n\nSome **bold** text, a [link](https://example.com).\n\n```python\nx = 1\n```\n"
SECOND = "Plain words, no code."
THIRD = "Two blocks:\n\n```sh\nls -la\n```\n\nand\n\n~~~js\nlet y = 2;\nlet z = 3;\n~~~\n"


def notices(app: TriptychApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def conversation(pilot: Pilot[object], fake_provider: FakeProvider) -> None:
    for prompt, text in (("one  two", FIRST), ("second", SECOND), ("third", THIRD)):
        fake_provider.push(fake.stream(Api.CHAT, Answer(text=pieces(text))))
        await send(pilot, prompt)
        await wait_drawn(pilot)


@pytest.fixture(autouse=True)
def outside_tmux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMUX", raising=False)


async def test_c_copies_an_earlier_answer_as_its_markdown_source(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await conversation(pilot, fake_provider)
        # Up from the prompt: the third answer, its prompt, the second answer, its prompt,
        # the first answer.
        await pilot.press(*["alt+up"] * 5)
        await pilot.pause()
        await pilot.press("c")
        await wait_until(pilot, lambda: bool(notices(app)), what="a notice")
        assert app.clipboard == FIRST
        assert f"the answer ({len(FIRST)} characters)" in notices(app)[-1]
        await pilot.press("alt+up", "c")  # its prompt, as typed (both spaces)
        await wait_until(pilot, lambda: app.clipboard == "one  two", what="the prompt")


async def test_y_offers_the_selected_answers_code_blocks(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await conversation(pilot, fake_provider)
        await pilot.press("alt+up", "y")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"js")
        await pilot.pause(0.4)  # the palette searches in the background
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.clipboard == "let y = 2;\nlet z = 3;")
        # The second answer has none: it says so, nothing is copied.
        await wait_until(pilot, lambda: not isinstance(app.screen, CommandPalette))
        app.pane.transcript.focus()
        await pilot.press("alt+up", "alt+up", "y")
        await wait_until(pilot, lambda: NO_CODE in notices(app), what="no code blocks")
        assert not isinstance(app.screen, CommandPalette)


async def test_the_palette_lists_every_answers_code_blocks_newest_first(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await conversation(pilot, fake_provider)
        names = [choice.name for choice in code_block_choices(app, app.pane)]
        assert names == [
            "Copy code block 1 (sh, 1 lines)",
            "Copy code block 2 (js, 2 lines)",
            "Copy code block 1 of answer 1 (python, 1 lines)",
        ]
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"code block 1 of answer 1")
        await pilot.pause(0.4)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.clipboard == "x = 1", what="the first answer's code")
