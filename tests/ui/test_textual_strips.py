"""Lines the compositor draws are freed by reference counts (app/ui/textual_strips.py)."""

from __future__ import annotations

import gc
from typing import Any

from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widgets import Static

from app.ui import textual_strips

FRAMES = 20
FEW, MANY = 10, 40  # rows on screen


class Lines(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("", id="text")


async def _left_for_the_collector(rows: int) -> int:
    """Objects only a collection frees after FRAMES frames that each replace every line."""
    app = Lines()
    async with app.run_test(size=(60, rows)) as pilot:
        await pilot.pause()
        text = app.query_one("#text", Static)
        gc.collect()
        gc.disable()
        try:
            for frame in range(FRAMES):
                text.update("\n".join(f"frame {frame} line {n}" for n in range(rows)))
                await pilot.pause()
            left = gc.collect()
        finally:
            gc.enable()
    return left


async def _left_per_line() -> float:
    """What 30 more lines on screen leave to the collector, per line and frame: Textual's own
    cycles per frame (its compositor's map) do not depend on the lines, a cycle per line does."""
    more = await _left_for_the_collector(MANY) - await _left_for_the_collector(FEW)
    return more / ((MANY - FEW) * FRAMES)


async def test_textual_leaves_each_line_drawn_to_the_collector(monkeypatch: Any) -> None:
    """The premise: stock Textual's divide keeps `[self]` in the strip, one cycle per line."""
    monkeypatch.setattr(Strip, "divide", textual_strips._textual_divide)
    assert await _left_per_line() >= 1


async def test_once_installed_the_lines_go_with_their_frames(monkeypatch: Any) -> None:
    monkeypatch.setattr(Strip, "divide", textual_strips._textual_divide)
    textual_strips.install()
    textual_strips.install()  # harmless twice
    assert textual_strips.installed()
    assert await _left_per_line() < 0.25


def test_divide_still_cuts() -> None:
    textual_strips.install()
    strip = Strip.join([Strip.blank(3), Strip.blank(4)])
    assert [s.cell_length for s in strip.divide([3, 7])] == [3, 4]
    assert strip.divide([7]) == [strip]
    assert strip.divide([7])[0] is strip
    assert [s.cell_length for s in strip.divide([2, 9])] == [2]  # past the end: dropped
