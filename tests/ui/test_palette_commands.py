"""What the command palette offers on the chat, comparison and history screens, read from the
palette's own option list with nothing typed: pinned before the palette's commands move onto
each screen, so the move changes no command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.command import Command, CommandList, CommandPalette
from textual.pilot import Pilot

from app.ui.screens.chat import ChatScreen
from app.ui.screens.history import HistoryScreen
from app.wire.engine import Api
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import compare_screen, config_for
from tests.ui.helpers import SIZE, fake_config, make_app, wait_until

CHAT = [
    "Switch provider…",
    "Switch model…",
    "Set a key until you quit…",
    "New chat",
    "Compare with…",
    "Toggle reasoning panes",
    "Choose tools…",
    "System prompt…",
    "Attach file…",
    "Parameters…",
    "Inspect the wire",
    "Record the session",
    "Copy last answer",
    "Find in the conversation",
    "Change theme…",
    "History…",
    "Leaderboard",
    "Export conversation as Markdown",
    "Export conversation as JSON",
    "Keys and help",
]
SYSTEM = ["Quit", "Screenshot"]  # Textual's own, less the ones ours replace
COMPARE = [
    "Switch model…",
    "Add pane…",
    "Remove selected pane",
    "Stop selected pane",
    "Continue with selected pane alone",
    "New comparison",
    "Toggle reasoning panes",
    "Choose tools…",
    "Copy selected pane's answer",
    "Find in the conversation",
    "Export comparison as Markdown",
    "Export comparison as JSON",
    "Change theme…",
    "Inspect the wire",
    "Toggle timelines",
    "Record the session",
    "Parameters…",
    "System prompt…",
    "Attach file…",
    "Leaderboard",
    "Blind comparison",
    "Keys and help",
]


async def offered(pilot: Pilot[Any]) -> tuple[list[str], list[str]]:
    """Opens the palette over the screen on top, reads every command it lists once it has
    gathered them all, and closes it again: ours in the order listed, then Textual's system
    commands sorted (which provider's commands come first varies from run to run: the app's
    COMMANDS is a set)."""
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette), what="palette")
    palette = pilot.app.screen
    await wait_until(pilot, lambda: palette.has_class("-ready"), what="the palette's list")
    listed = palette.query_one(CommandList)
    names = []
    for index in range(listed.option_count):
        option = listed.get_option_at_index(index)
        assert isinstance(option, Command)
        names.append(option.hit.text)
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(pilot.app.screen, CommandPalette))
    ours = [name for name in names if name not in SYSTEM]
    return ours, sorted(name for name in names if name in SYSTEM)


async def test_chat_palette_offers_the_chat_commands(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path, history_file=tmp_path / "h.sqlite3")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ChatScreen)
        assert await offered(pilot) == (CHAT, SYSTEM)


async def test_compare_palette_offers_the_comparison_commands(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = make_app(config_for(fakes), tmp_path, compare=["cc", "am", "rs"])
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        compare_screen(app)
        assert await offered(pilot) == (COMPARE, SYSTEM)


async def test_history_palette_offers_the_chat_commands_for_now(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """The history screen offers the chat's commands today (it has no commands of its own, so
    the palette falls back to the chat's). This is pinned on purpose, not endorsed: what
    the history screen should offer is undecided; change this list when it is."""
    app = make_app(fake_config(fake_provider), tmp_path, history_file=tmp_path / "h.sqlite3")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), what="history")
        await pilot.pause()
        assert await offered(pilot) == (CHAT, SYSTEM)
        assert isinstance(app.screen, HistoryScreen)
