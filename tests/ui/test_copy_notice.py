"""Copy says where the text went, never "Copied" when it went nowhere.

Inside tmux ($TMUX set) the text is handed to tmux's paste buffer; a tmux of our own (its own
socket) stands in for the user's. The real app in a real tmux is in test_tmux_e2e.py.
"""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot

from app.demo.frames import Answer
from app.ui.app import TriptychApp
from app.ui.clipboard import TMUX_SETTING, terminal_notice, tmux_notice
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, send, wait_drawn, wait_until

CODE = "def f(x):\n    if x:\n        return 1\n\treturn 2"
ANSWER = Answer(text=("Here:\n\n```python\n", CODE, "\n```\n\nDone."))


class Tmux:
    """A tmux server on a socket of its own; `env` is what $TMUX holds inside it."""

    def __init__(self) -> None:
        assert shutil.which("tmux"), "tmux is required (.ci/run installs it)"
        self.name = f"triptych-copy-{uuid.uuid4().hex[:8]}"
        self.run("new-session", "-d", "-s", "s")
        self.run("set-option", "-g", "set-clipboard", "external")  # tmux's default
        socket = self.run("display-message", "-p", "#{socket_path}").strip()
        self.env = f"{socket},1,0"

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.name, *args], capture_output=True, text=True, timeout=10
        ).stdout


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    server = Tmux()
    yield server
    server.run("kill-server")


def notices(app: TriptychApp) -> list[tuple[str, str]]:
    return [(str(n.message), n.severity) for n in app._notifications]


async def copy_code_block(pilot: Pilot[object], app: TriptychApp) -> None:
    await send(pilot, "code please")
    await wait_drawn(pilot)
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*"copy code block 1")
    await pilot.pause(0.4)  # the palette searches in the background
    await pilot.press("enter")
    await wait_until(pilot, lambda: bool(notices(app)), what="a notice")


async def test_inside_tmux_the_code_goes_to_its_paste_buffer(
    fake_provider: FakeProvider, tmp_path: Path, tmux: Tmux, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMUX", tmux.env)
    fake_provider.push(fake.stream(Api.CHAT, ANSWER))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await copy_code_block(pilot, app)
        [(message, severity)] = notices(app)
        assert message.startswith(f"Copied {len(CODE)} characters into tmux's paste buffer")
        assert severity == "information"
        assert tmux.run("show-buffer") == CODE
        assert app.clipboard == CODE  # OSC 52 was sent as well


async def test_when_tmux_cannot_take_it_the_notice_says_what_to_set(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMUX", f"{tmp_path / 'no-such-socket'},1,0")
    fake_provider.push(fake.stream(Api.CHAT, ANSWER))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await copy_code_block(pilot, app)
        [(message, severity)] = notices(app)
        assert message.startswith("Nothing was copied")
        assert TMUX_SETTING in message
        assert severity == "error"


async def test_outside_tmux_the_notice_says_osc_52_was_sent(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    fake_provider.push(fake.stream(Api.CHAT, ANSWER))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await copy_code_block(pilot, app)
        [(message, _)] = notices(app)
        assert message.startswith(f"Sent {len(CODE)} characters to the terminal's clipboard")
        assert "Shift+drag" in message
        assert app.clipboard == CODE


def test_each_outcome_names_where_the_text_is() -> None:
    assert "paste buffer" in tmux_notice("5 characters", None, "external").text
    off = tmux_notice("5 characters", None, "off")
    assert "paste buffer" in off.text
    assert TMUX_SETTING in off.text
    forwarded = tmux_notice("5 characters", "no server", "on")
    assert forwarded.text.startswith("Sent 5 characters")
    assert forwarded.severity != "error"
    for setting in ("external", "off", None):
        failed = tmux_notice("5 characters", "no server", setting)
        assert failed.severity == "error"
        assert "Nothing was copied" in failed.text
        assert "no server" in failed.text
    assert "OSC 52" in terminal_notice("5 characters").text


async def test_a_mouse_selection_in_an_answer_copies_its_text(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TMUX", raising=False)
    fake_provider.push(fake.stream(Api.CHAT, ANSWER))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await send(pilot, "code please")
        await wait_drawn(pilot)
        [segment] = app.pane.current.answer.segments if app.pane.current else []
        rows = [strip.text for strip in segment.lines_at(segment.content_size.width)]
        y = next(i for i, row in enumerate(rows) if "return 1" in row)
        x = rows[y].index("return")
        start = rows[y - 1].index("if")
        end = x + len("return") - 1  # the last cell dragged over is selected
        # The code as written: without the column of padding the block is drawn with.
        expected = "if x:\n        return"
        # Drag from "if x:" to the end of "return", as a mouse does (offsets count the widget's
        # column of padding).
        await pilot.mouse_down(segment, offset=(start + 1, y - 1))
        await pilot.hover(segment, offset=(end + 1, y))
        await pilot.mouse_up(segment, offset=(end + 1, y))
        assert app.screen.get_selected_text() == expected
        await pilot.press("ctrl+c")
        assert app.clipboard == expected


WHOLE = "Some prose first.\n\n```python\nif x:\n    return 1\n\nprint(2)\n```\n\nAnd after."


async def test_a_mouse_selection_over_a_whole_answer_copies_it_without_the_padding(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The code block's one-column margin and its blank rows above and below are drawing, not
    text: they are left out, and the blank line inside the code is kept."""
    monkeypatch.delenv("TMUX", raising=False)
    fake_provider.push(fake.stream(Api.CHAT, Answer(text=(WHOLE,))))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await send(pilot, "code please")
        await wait_drawn(pilot)
        [segment] = app.pane.current.answer.segments if app.pane.current else []
        rows = [strip.text for strip in segment.lines_at(segment.content_size.width)]
        last = len(rows) - 1
        await pilot.mouse_down(segment, offset=(1, 0))
        await pilot.hover(segment, offset=(len(rows[last].rstrip()), last))
        await pilot.mouse_up(segment, offset=(len(rows[last].rstrip()), last))
        expected = "Some prose first.\n\nif x:\n    return 1\n\nprint(2)\n\nAnd after."
        assert app.screen.get_selected_text() == expected
