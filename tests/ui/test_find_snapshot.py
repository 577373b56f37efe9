"""SVG snapshot of the find bar: a reopened chat, Ctrl+F and a word found in a prompt, in
prose, in a list and in code, Enter having made the second match the current one (its own
colour; the others shaded), and the count `2 of 5` in the bar. Built from a history written
beforehand under a fixed clock, so every run draws the same screen. Update with
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
from app.ui.widgets.find_bar import FindBar
from app.ui.widgets.prompt import PromptInput
from app.wire.events import END_OF_STREAM, TextDelta
from app.wire.turn import Turn
from tests.ui.helpers import screen_text, wait_until
from tests.ui.scripted import FakeClock

SnapCompare = Callable[..., bool]
ANSWER = """The **river** runs past the mill.

- a list item about the River bank
- another item

```python
river = "Thames"
print(river)
```
"""


def history(path: Path) -> None:
    store = Store.open(path, clock=lambda: 1_700_000_000.0)
    conv = store.create_conversation()
    store.add_user_message(conv, "Tell me about the river.")
    turn_id = store.start_turn(conv, provider="demo", model="demo", api="chat")
    turn = Turn()
    turn.apply_all([TextDelta(ANSWER), END_OF_STREAM])
    turn.end()
    store.save_turn(turn_id, turn, ttft_ms=300, duration_ms=900, final=True)
    store.close()


def test_the_find_bar_with_its_matches_and_count(snap_compare: SnapCompare, tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    history(db)
    app = TriptychApp(
        with_demo_providers(Config(path=None)),
        clock=FakeClock(),
        state_file=tmp_path / "state.toml",
        themes_dir=tmp_path / "themes",
        history_file=db,
        continue_last=True,
    )

    async def find(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one(PromptInput).cursor_blink = False
        await wait_until(pilot, lambda: "Thames" in screen_text(pilot.app), what="the answer")
        await pilot.press("ctrl+f")
        bar = pilot.app.screen.query_one(FindBar)
        bar.query_input.cursor_blink = False
        await pilot.press(*"river", "enter")
        await wait_until(pilot, lambda: str(bar.count.content) == "2 of 5", what="2 of 5")
        await pilot.pause(0.15)

    assert snap_compare(app, terminal_size=(80, 24), run_before=find)
