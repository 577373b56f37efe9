"""SVG snapshot of a comparison pane's branch marker: a reopened comparison whose first pane
edited its second prompt on its own, that prompt selected in the first pane (`‹ 2/2 ›  [ ] switch
branch` above it), the second pane on its original branch with no marker. Built from a history
file written beforehand under a fixed clock, so every run draws the same screen. Update with
`pytest --snapshot-update`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.demo.server import with_demo_providers
from app.settings.config import Config
from app.store import Store
from app.ui.app import TriptychApp
from app.ui.widgets.branch_marker import BranchMarker
from app.ui.widgets.prompt import PromptInput
from app.wire.events import END_OF_STREAM, TextDelta
from app.wire.turn import Turn
from tests.ui.helpers import wait_until
from tests.ui.scripted import FakeClock

SnapCompare = Callable[..., bool]
PANES = (("demo", "chat"), ("demo-messages", "messages"))


def branched_comparison(path: Path) -> None:
    store = Store.open(path, clock=lambda: 1_700_000_000.0)
    conv = store.create_conversation(kind="compare")

    def answer(pane: int, text: str) -> int:
        provider, api = PANES[pane]
        turn_id = store.start_turn(conv, provider=provider, model="demo", api=api, pane=pane)
        turn = Turn()
        turn.apply_all([TextDelta(text), END_OF_STREAM])
        turn.end()
        store.save_turn(turn_id, turn, ttft_ms=300, duration_ms=900, final=True)
        return turn_id

    store.add_user_message(conv, "Name a colour.")
    first = answer(0, "Teal.")
    answer(1, "Amber.")
    store.add_user_message(conv, "Shorter, plaese")
    answer(0, "Red.")
    answer(1, "Tan.")
    store.add_user_message(conv, "Another one, please.", parent=first, pane=0)
    answer(0, "Blue.")
    store.close()


def test_a_compare_panes_branch_marker(snap_compare: SnapCompare, tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    branched_comparison(db)
    app = TriptychApp(
        with_demo_providers(Config(path=None)),
        clock=FakeClock(),
        state_file=tmp_path / "state.toml",
        themes_dir=tmp_path / "themes",
        history_file=db,
        continue_last=True,
    )

    async def select(pilot: Pilot[Any]) -> None:
        await wait_until(pilot, lambda: pilot.app.screen.query(BranchMarker), what="the marker")
        pilot.app.screen.query_one(PromptInput).cursor_blink = False
        await pilot.press("alt+up", "alt+up")
        await pilot.pause(0.15)
        settled = None  # the selection scrolls its pane: wait until every scroll stands still
        for _ in range(30):
            scrolls = [(w.scroll_x, w.scroll_y) for w in pilot.app.screen.query("*")]
            if scrolls == settled:
                break
            settled = scrolls
            await pilot.pause(0.1)

    assert snap_compare(
        app, terminal_size=(100, 40), run_before=select
    )  # all of it fits: no scroll to race
