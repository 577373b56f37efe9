"""At 80 columns the chat's status bar stays one line: the cached count, the speed's
decimal and a normal `finish stop` give way before it wraps; a wider terminal shows them all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.ui.widgets.prompt import PromptInput
from app.wire.events import EndOfStream, Finish, TextDelta, Usage
from tests.ui.helpers import send, wait_until
from tests.ui.scripted import Step, scripted_app

ANSWER = (
    Step(0.5, (TextDelta("Split on whitespace, "),)),
    Step(1.5, (TextDelta("then join the words in reverse order."),)),
    Step(1.6, (Usage(1100, 165, cached_tokens=1024), Finish("stop"), EndOfStream())),
)


async def answered(pilot: Pilot[Any]) -> None:
    pilot.app.screen.query_one(PromptInput).cursor_blink = False
    await send(pilot, "reverse words")
    await wait_until(pilot, lambda: not pilot.app.render_clock.live, what="the answer")
    await pilot.pause()


async def test_the_status_bar_is_one_line_at_80_columns_and_whole_when_wider(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path, ANSWER)
    async with app.run_test(size=(80, 24)) as pilot:
        await answered(pilot)
        bar = app.pane.status_bar
        assert bar.size.height == 1
        assert bar.plain == (
            "acme · acme-large · complete · TTFT 500 ms · 165 tok/s · in 1100 out 165"
        )
        assert len(bar.plain) <= bar.size.width == 78  # inside the bar's padding
        await pilot.resize_terminal(140, 24)
        await wait_until(pilot, lambda: "finish stop" in bar.plain, what="the whole line")
        assert bar.plain.endswith("in 1100 out 165 cached 1024 · cache 93% · finish stop")
        assert bar.size.height == 1


def test_snapshot_of_the_status_bar_at_80_columns(snap_compare: Any, tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path, ANSWER)
    assert snap_compare(app, terminal_size=(80, 24), run_before=answered)
