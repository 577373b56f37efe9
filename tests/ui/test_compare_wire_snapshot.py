"""SVG snapshots of the wire in a finished comparison: the timeline rows under the panes' headers
on one shared axis (F4), and the inspector beside the selected pane (F2). The comparison is the
scripted one of test_compare_snapshot (a fake clock, one time order for every pane); each pane's
exchange is built from its script, so every time on screen is the script's, not the machine's.
Update with `pytest --snapshot-update`, then look at them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.settings.config import ProviderConfig
from app.ui.screens.compare import CompareScreen
from app.wire.events import TextDelta
from app.wire.exchange import CapturedExchange, WireFrame, WireRead, WireRequest
from tests.ui.test_compare_snapshot import SCRIPTS, SIZE, Script, finished, scripted_compare

SnapCompare = Callable[..., bool]


def scripted_exchange(provider: ProviderConfig, script: Script) -> CapturedExchange:
    """What the wire would have carried for a pane's script: one frame per scripted step."""
    request = WireRequest(
        "POST",
        f"{provider.base_url}/chat/completions",
        {"content-type": "application/json", "authorization": "[redacted]"},
        {
            "model": provider.model,
            "stream": True,
            "messages": [{"role": "user", "content": "reverse the words"}],
        },
    )
    exchange = CapturedExchange(request, 200, {"content-type": "text/event-stream"}, 250.0)
    for at, events in script:
        data = json.dumps(
            {
                "events": [type(e).__name__ for e in events],
                "text": "".join(e.text for e in events if isinstance(e, TextDelta)),
            }
        )
        raw = f"data: {data}\n\n".encode()
        exchange.reads.append(WireRead(at * 1000, raw))
        read = len(exchange.reads) - 1
        exchange.frames.append(WireFrame(at * 1000, None, data, len(raw), read, events))
    exchange.outcome = "eof"
    exchange.ended_ms = script[-1][0] * 1000 + 5
    return exchange


def with_wire(conductor: Any, *keys: str) -> Callable[[Pilot[Any]], Any]:
    """The scripted comparison, finished; each pane given its exchange; then `keys`."""
    play = finished(conductor)

    async def run_before(pilot: Pilot[Any]) -> None:
        await play(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen)
        for pane in screen.panes:
            assert pane.turn is not None
            pane.turn.exchange = scripted_exchange(pane.provider, SCRIPTS[pane.provider.name])
        for key in keys:
            await pilot.press(key)
            await pilot.pause(0.4)  # a poll of the inspector and the rows
        await pilot.pause(0.2)

    return run_before


def test_timeline_rows_under_the_panes(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app, conductor = scripted_compare(tmp_path)
    assert snap_compare(app, terminal_size=SIZE, run_before=with_wire(conductor, "f4"))


def test_the_inspector_beside_the_selected_pane(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app, conductor = scripted_compare(tmp_path)
    run_before = with_wire(conductor, "f2", "f4", "home")
    assert snap_compare(app, terminal_size=(200, 50), run_before=run_before)
