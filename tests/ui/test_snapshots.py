"""SVG snapshots of the main states, driven by a script under a fake clock so every run draws
the same screen (no blinking cursor, fixed timings). Update with `pytest --snapshot-update`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from app.demo.server import with_demo_providers
from app.settings.config import Config
from app.ui.app import TriptychApp
from app.ui.screens.keys import KeysScreen
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.welcome import Welcome
from app.wire.events import (
    EndOfStream,
    Finish,
    ReasoningDelta,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from tests.ui.helpers import wait_until
from tests.ui.scripted import FakeClock, ScriptedStreamer, Step, scripted_app

SIZE = (100, 34)
SnapCompare = Callable[..., bool]

REASONING = (
    Step(0.4, (ReasoningDelta("The user wants a function that reverses words. "),)),
    Step(
        1.6,
        (
            ReasoningDelta("Split on whitespace, reverse the list, join with one space.\n\n"),
            ReasoningDelta("Edge cases: empty string, repeated spaces."),
        ),
    ),
)
ANSWER = (
    Step(
        2.0,
        (
            TextDelta("Here is a small function:\n\n```python\ndef reverse_words(text: str)"),
            TextDelta(' -> str:\n    return " ".join(reversed(text.split()))\n```\n\n'),
        ),
    ),
    Step(2.6, (TextDelta("It treats any run of whitespace as **one** separator."),)),
)
TOOL = (
    Step(3.0, (ToolCallStart(1, "call_01", "run_tests"),)),
    Step(3.2, (ToolCallArgsDelta(1, '{"path": "tests/test_words.py", '),)),
    Step(3.4, (ToolCallArgsDelta(1, '"verbose": true}'), ToolCallEnd(1))),
)
DONE = (Step(3.6, (Usage(212, 180, 64), Finish("tool_calls"), EndOfStream())),)


def runner(
    streamer: ScriptedStreamer, text: str, after: Callable[[Pilot[Any]], Awaitable[None]] | None
) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        prompt_input = pilot.app.screen.query_one(PromptInput)
        prompt_input.cursor_blink = False
        prompt_input.focus()
        await pilot.pause()
        await pilot.press(*text, "enter")
        await wait_until(pilot, streamer.played.is_set, what="the script")
        if after is not None:
            await after(pilot)
        await wait_until(pilot, lambda: not pilot.app.render_clock.live or streamer.hang)
        await pilot.pause(0.15)

    return run_before


def test_streaming_with_reasoning_open(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app, streamer = scripted_app(tmp_path, REASONING, hang=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=runner(streamer, "reverse words", None))


def test_finished_answer_with_a_tool_call(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app, streamer = scripted_app(tmp_path, REASONING + ANSWER + TOOL + DONE)
    assert snap_compare(app, terminal_size=SIZE, run_before=runner(streamer, "reverse words", None))


def test_finished_answer_in_the_light_theme(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app, streamer = scripted_app(tmp_path, ANSWER + DONE, theme="triptych-light")
    assert snap_compare(app, terminal_size=SIZE, run_before=runner(streamer, "reverse words", None))


def test_interrupted_turn(snap_compare: SnapCompare, tmp_path: Path) -> None:
    reason = "the connection broke before the stream finished (peer closed connection)"
    app, streamer = scripted_app(tmp_path, ANSWER, end_reason=reason)
    assert snap_compare(app, terminal_size=SIZE, run_before=runner(streamer, "reverse words", None))


def test_stopped_turn(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app, streamer = scripted_app(tmp_path, ANSWER[:1], hang=True)

    async def press_escape(pilot: Pilot[Any]) -> None:
        await pilot.press("escape")
        await wait_until(pilot, lambda: not pilot.app.render_clock.live)

    assert snap_compare(
        app, terminal_size=SIZE, run_before=runner(streamer, "reverse words", press_escape)
    )


def test_provider_error(snap_compare: SnapCompare, tmp_path: Path) -> None:
    error = Step(1.0, (StreamError("overloaded_error", "Overloaded [retry later]"),))
    app, streamer = scripted_app(tmp_path, (*ANSWER[:1], error))
    assert snap_compare(app, terminal_size=SIZE, run_before=runner(streamer, "reverse words", None))


def demo_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TriptychApp:
    """The offline demo with no config file yet, under a fixed config path and clock."""
    monkeypatch.setenv("XDG_CONFIG_HOME", "/home/you/.config")  # the path on screen is fixed
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    return TriptychApp(
        with_demo_providers(Config(path=None)),
        clock=FakeClock(),
        state_file=tmp_path / "state.toml",
        themes_dir=tmp_path / "themes",
    )


def test_welcome_card_on_the_demo(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first screen a new user sees: 80x24, the offline demo, no config file yet."""

    async def settle(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(PromptInput).cursor_blink = False
        await wait_until(pilot, lambda: pilot.app.screen.query(Welcome))
        await pilot.pause()

    app = demo_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=(80, 24), run_before=settle)


def test_key_sheet_over_the_chat(
    snap_compare: SnapCompare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F1 at 80x24: the chat's keys first, the note on `~` always in view."""

    async def open_sheet(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(PromptInput).cursor_blink = False
        await wait_until(pilot, lambda: pilot.app.screen.query(Welcome))
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, KeysScreen))
        await pilot.pause()

    app = demo_app(tmp_path, monkeypatch)
    assert snap_compare(app, terminal_size=(80, 24), run_before=open_sheet)
