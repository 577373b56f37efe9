"""SVG snapshot of the branch marker: a reopened chat whose second prompt was edited, with that
prompt selected (`‹ 2/2 ›  [ ] switch branch` above it, the footer offering e, r, [ and ]).
Built from a history file written beforehand under a fixed clock, so every run draws the same
screen. Update with `pytest --snapshot-update`."""

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


def branched_history(path: Path) -> None:
    store = Store.open(path, clock=lambda: 1_700_000_000.0)
    conv = store.create_conversation()

    def answer(text: str) -> int:
        turn_id = store.start_turn(conv, provider="demo", model="demo", api="chat")
        turn = Turn()
        turn.apply_all([TextDelta(text), END_OF_STREAM])
        turn.end()
        store.save_turn(turn_id, turn, ttft_ms=300, duration_ms=900, final=True)
        return turn_id

    store.add_user_message(conv, "Name a colour.")
    first = answer("Teal.")
    store.add_user_message(conv, "Shorter, plaese")
    answer("Red.")
    store.add_user_message(conv, "Another one, please.", parent=first)
    answer("Blue.")
    store.close()


def test_the_branch_marker_on_a_selected_prompt(snap_compare: SnapCompare, tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    branched_history(db)
    app = TriptychApp(
        with_demo_providers(Config(path=None)),
        clock=FakeClock(),
        state_file=tmp_path / "state.toml",
        themes_dir=tmp_path / "themes",
        history_file=db,
        continue_last=True,
    )

    async def select(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(PromptInput).cursor_blink = False
        await wait_until(pilot, lambda: pilot.app.screen.query(BranchMarker), what="the marker")
        await pilot.press("alt+up", "alt+up")
        await pilot.pause(0.15)

    assert snap_compare(app, terminal_size=(80, 24), run_before=select)
