"""An SVG snapshot of a finished comparison: three formats, one with reasoning, one with a tool
call, one failing mid-stream, priced, ranked. A conductor plays every pane's script in one time
order under a fake clock, so the figures on screen are the script's, not the machine's.
Update with `pytest --snapshot-update`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.providers.client import Timing
from app.settings.config import Config, ProviderConfig
from app.ui.app import TriptychApp
from app.ui.screens.compare import CompareScreen
from app.ui.widgets.prompt import PromptInput
from app.wire.conversation import Conversation
from app.wire.engine import Api
from app.wire.events import (
    EndOfStream,
    Event,
    Finish,
    ReasoningDelta,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from app.wire.turn import Turn
from tests.ui.helpers import wait_until
from tests.ui.scripted import FakeClock

SIZE = (150, 40)
SMALL = (80, 24)
SnapCompare = Callable[..., bool]
_TOKENS = (TextDelta, ReasoningDelta, ToolCallStart, ToolCallArgsDelta)
Script = tuple[tuple[float, tuple[Event, ...]], ...]

SCRIPTS: dict[str, Script] = {
    "swift": (
        (0.31, (TextDelta("Use `str.split` and `reversed`:\n\n```python\n"),)),
        (
            0.9,
            (
                TextDelta("def reverse_words(s: str) -> str:\n"),
                TextDelta('    return " ".join(reversed(s.split()))\n```\n'),
            ),
        ),
        (1.4, (TextDelta("\nRuns of spaces count as one separator."),)),
        (1.62, (Usage(24, 41, 8), Finish("stop"), EndOfStream())),
    ),
    "careful": (
        (0.55, (ReasoningDelta("Split, reverse, join. Edge case: empty input."),)),
        (1.5, (TextDelta("Reverse the word list:\n\n"),)),
        (2.2, (TextDelta('`" ".join(s.split()[::-1])`'),)),
        (2.5, (ToolCallStart(0, "toolu_01", "run_tests"),)),
        (2.7, (ToolCallArgsDelta(0, '{"path": "test_words.py"}'), ToolCallEnd(0))),
        (3.05, (Usage(31, 96, 0), Finish("tool_use"), EndOfStream())),
    ),
    "flaky": (
        (0.42, (TextDelta("A one-liner does it: "),)),
        (1.1, (TextDelta("`' '.join(reversed("),)),
        (1.3, (StreamError("server_error", "The server had an error while processing."),)),
    ),
}
APIS = {"swift": Api.CHAT, "careful": Api.MESSAGES, "flaky": Api.RESPONSES}


@dataclass
class Conductor:
    """Plays every pane's script in one global time order once all panes have asked."""

    clock: FakeClock
    ticks: Callable[[], int] = lambda: 0
    live: Callable[[], bool] = lambda: True
    waiting: dict[str, tuple[Turn, Timing | None]] = field(default_factory=dict)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    _all_in: asyncio.Event = field(default_factory=asyncio.Event)

    def streamer(self, name: str) -> _PaneStreamer:
        return _PaneStreamer(self, name)

    async def join(self, name: str, turn: Turn, timing: Timing | None) -> None:
        self.waiting[name] = (turn, timing)
        if len(self.waiting) == len(SCRIPTS):
            self._all_in.set()
            await self._play()
        else:
            await self.finished.wait()

    async def _play(self) -> None:
        steps = sorted(
            ((at, name, events) for name, script in SCRIPTS.items() for at, events in script),
            key=lambda step: step[0],
        )
        for at, name, events in steps:
            self.clock.now = at
            turn, timing = self.waiting[name]
            tokens = any(isinstance(e, _TOKENS) for e in events)
            if timing is not None and timing.first_token is None and tokens:
                timing.first_token = at
            turn.apply_all(list(events))
            if turn.error is not None or turn.terminal_seen:
                turn.end()
            await self._drawn()
        self.finished.set()

    async def _drawn(self) -> None:
        start = self.ticks()
        while self.ticks() < start + 2 and self.live():
            await asyncio.sleep(0.01)


@dataclass
class _PaneStreamer:
    conductor: Conductor
    name: str

    async def stream(
        self,
        conversation: Conversation,
        turn: Turn,
        timing: Timing | None = None,
        *,
        model: str | None = None,
        params: object = None,
    ) -> Turn:
        await self.conductor.join(self.name, turn, timing)
        return turn

    async def list_models(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None


def providers() -> dict[str, ProviderConfig]:
    prices = {
        "swift": (0.15, 0.6, 0.075),
        "careful": (3.0, 15.0, 0.3),
        "flaky": (1.25, 10.0, None),
    }
    found: dict[str, ProviderConfig] = {}
    for name, api in APIS.items():
        price_in, price_out, price_cached = prices[name]
        found[name] = ProviderConfig(
            name=name,
            api=api,
            base_url="http://127.0.0.1:9/v1",
            model=f"{name}-1",
            price_in=price_in,
            price_out=price_out,
            price_cached=price_cached,
        )
    return found


def scripted_compare(tmp_path: Path) -> tuple[TriptychApp, Conductor]:
    clock = FakeClock()
    conductor = Conductor(clock)
    config = Config(path=None, default="swift", providers=providers())
    app = TriptychApp(
        config,
        clock=clock,
        connect=lambda provider: conductor.streamer(provider.name),
        state_file=tmp_path / "state.toml",
        themes_dir=tmp_path / "themes",
        compare=list(SCRIPTS),
    )
    conductor.ticks = lambda: app.render_clock.ticks
    conductor.live = lambda: app.render_clock.live
    return app, conductor


def finished(conductor: Conductor) -> Callable[[Pilot[Any]], Any]:
    """Ask, let the conductor play every script, and wait for the ranking and the last tick."""

    async def run_before(pilot: Pilot[Any]) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen)
        prompt_input = screen.query_one(PromptInput)
        prompt_input.cursor_blink = False
        prompt_input.focus()
        await pilot.pause()
        await pilot.press(*"reverse the words", "enter")
        # Each step waits for two render ticks (at most 15 a second): on a loaded machine the
        # whole play takes longer than wait_until's default 5 s, which is not what is tested.
        await wait_until(pilot, conductor.finished.is_set, timeout=30, what="the scripts")
        await wait_until(pilot, lambda: screen.ranking.display, what="the ranking")
        await wait_until(pilot, lambda: not pilot.app.render_clock.live)  # type: ignore[attr-defined]
        await pilot.pause(0.15)

    return run_before


def test_a_finished_comparison(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app, conductor = scripted_compare(tmp_path)
    assert snap_compare(app, terminal_size=SIZE, run_before=finished(conductor))


def test_a_finished_comparison_at_80x24(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """Too narrow for three panes side by side: the first pane whole under the tab row, the
    ranking in its one-line form."""
    app, conductor = scripted_compare(tmp_path)
    assert snap_compare(app, terminal_size=SMALL, run_before=finished(conductor))
