"""The key sheet: F1 (or `?` in an empty prompt, or "help"/"keys" in the palette) lists every
binding of the screen it was opened over, read from the bindings themselves; Esc closes it.
The palette keeps no Textual command that duplicates one of ours."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandPalette

from app.ui.app import TriptychApp
from app.ui.screens.chat import ChatScreen
from app.ui.screens.compare import CompareScreen
from app.ui.screens.keys import KeysScreen, key_name
from app.ui.widgets.prompt import PromptInput
from app.wire.engine import Api
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import config_for
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, wait_until
from tests.ui.scripted import FakeClock


def sheet(app: TriptychApp) -> KeysScreen:
    screen = app.screen
    assert isinstance(screen, KeysScreen)
    return screen


def descriptions(screen: object) -> list[str]:
    """What the screen's own class declares, the way Textual merges it."""
    return [b.description for _key, b in type(screen)._merged_bindings or () if b.description]


async def test_f1_lists_every_binding_of_the_chat_and_esc_closes_it(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen), what="the sheet")
        text = sheet(app).plain
        for description in descriptions(app.screen_stack[0]):  # the chat screen's
            assert description in text, description
        for description in ("quit", "palette", "send", "newline", "keys"):
            assert description in text, description
        for key in (
            "Esc",
            "Ctrl+T",
            "Ctrl+R",
            "Ctrl+N",
            "Ctrl+O",
            "Ctrl+Q",
            "Ctrl+P",
            "Enter",
            "F1",
        ):
            assert key in text, key
        assert "~ before a number" in text
        assert "estimate" in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="closed")


async def test_a_binding_added_later_shows_up(fake_provider: FakeProvider, tmp_path: Path) -> None:
    """Not a hand-kept list: whatever is bound is listed."""
    app = make_app(fake_config(fake_provider), tmp_path, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        app.bind("f9", "bell", description="ring the terminal bell")
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        assert "ring the terminal bell" in sheet(app).plain
        assert "F9" in sheet(app).plain


async def test_question_mark_opens_it_only_from_an_empty_prompt(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.screen.query_one(PromptInput)
        prompt.focus()
        await pilot.press("w", "h", "y", "question_mark")
        await pilot.pause()
        assert prompt.text == "why?"
        assert isinstance(app.screen, ChatScreen)
        prompt.clear()
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen), what="the sheet")
        assert prompt.text == ""
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen))
        assert prompt.text == ""


@pytest.mark.parametrize("query", ["help", "keys"])
async def test_the_palette_finds_it(
    fake_provider: FakeProvider, tmp_path: Path, query: str
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*query)
        await pilot.pause(0.4)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen), what="the sheet")
        assert "send" in sheet(app).plain  # the chat's prompt keys, not the palette's


async def test_in_a_comparison_it_lists_the_comparison_keys(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = make_app(config_for(fakes), tmp_path, clock=FakeClock(), compare=["cc", "am"])
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen))
        compare = app.screen
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        text = sheet(app).plain
        for description in descriptions(compare):
            assert description in text, description
        assert "Ctrl+S" in text


async def test_textual_commands_that_duplicate_ours_leave_the_palette(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        names = [command.title for command in app.get_system_commands(app.screen)]
        assert "Theme" not in names  # ours: "Change theme…"
        assert "Keys" not in names  # ours: the key sheet
        assert "Quit" in names
        assert "Screenshot" in names
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"theme")
        await pilot.pause(0.4)
        shown = screen_text(app)
        assert shown.count("theme") + shown.count("Theme") == 2, shown  # the query and ours


@pytest.mark.parametrize(
    ("key", "shown"),
    [
        ("ctrl+shift+left", "Ctrl+Shift+Left"),
        ("question_mark", "?"),
        ("slash", "/"),
        ("escape", "Esc"),
        ("f1", "F1"),
        ("pageup", "PageUp"),
        ("ctrl+p", "Ctrl+P"),
        ("up", "Up"),
    ],
)
def test_key_names_read_as_on_the_keyboard(key: str, shown: str) -> None:
    assert key_name(key) == shown
