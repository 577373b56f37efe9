"""SVG snapshots of an MCP tool's card: waiting for its approval, and answered (with the
model's next turn below it). Scripted turns under a fake clock, the tests' own MCP server over
stdio. Update with `pytest --snapshot-update`, and look at the result."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.providers.client import Timing
from app.providers.params import RequestParams
from app.ui.app import TriptychApp
from app.ui.widgets.prompt import PromptInput
from app.wire.conversation import Conversation
from app.wire.events import (
    EndOfStream,
    Event,
    Finish,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from app.wire.tools import ToolSpec
from app.wire.turn import Turn
from tests.ui.helpers import wait_until
from tests.ui.scripted import ScriptedStreamer, Step, scripted_app
from tests.ui.tool_helpers import ApprovalRow, cards, server

SIZE = (100, 30)
SnapCompare = Callable[..., bool]
OFFERED = ["get_weather", "fail", "big", "hang", "die", "echo_env"]  # the fake server's tools
CALLING = (
    Step(0.5, (TextDelta("Let me look that up."),)),
    Step(0.8, (ToolCallStart(0, "call_01", "get_weather"), ToolCallArgsDelta(0, '{"city": '))),
    Step(1.0, (ToolCallArgsDelta(0, '"Paris"}'), ToolCallEnd(0))),
    Step(1.1, (Usage(120, 24, 0), Finish("tool_calls"), EndOfStream())),
)
ANSWERING = (
    Step(3.5, (TextDelta("It is 21 °C in Paris right now: *mild*."),)),
    Step(3.8, (Usage(160, 12, 0), Finish("stop"), EndOfStream())),
)


@dataclass(slots=True)
class RoundsStreamer:
    """One script per request, as the tool loop sends them."""

    inner: ScriptedStreamer
    scripts: list[tuple[Step, ...]]
    offered: list[list[str]] = field(default_factory=list)

    async def stream(
        self,
        conversation: Conversation,
        turn: Turn,
        timing: Timing | None = None,
        on_event: Callable[[Event], None] | None = None,
        *,
        model: str | None = None,
        params: RequestParams | None = None,
        tools: Sequence[ToolSpec] = (),
        **_: Any,
    ) -> Turn:
        self.offered.append([t.name for t in tools])
        self.inner.steps = self.scripts.pop(0)
        return await self.inner.stream(conversation, turn, timing, model=model)

    async def list_models(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None


def tool_app(tmp_path: Path) -> tuple[TriptychApp, RoundsStreamer]:
    app, inner = scripted_app(tmp_path, ())
    streamer = RoundsStreamer(inner, [CALLING, ANSWERING])
    app.config = replace(app.config, mcp={"weather": server("weather")})
    app.tools.config = app.config
    app.connect = lambda _provider: streamer
    app.pane._connect = app.connect
    return app, streamer


async def ask(pilot: Pilot[Any]) -> None:
    prompt = pilot.app.screen.query_one(PromptInput)
    prompt.cursor_blink = False
    prompt.focus()
    await pilot.pause()
    await pilot.press(*"weather in Paris?", "enter")
    await wait_until(pilot, lambda: pilot.app.screen.query(ApprovalRow), 20, "the approval row")
    await pilot.pause(0.15)


def test_a_card_waiting_for_approval(snap_compare: SnapCompare, tmp_path: Path) -> None:
    app, streamer = tool_app(tmp_path)
    assert snap_compare(app, terminal_size=SIZE, run_before=ask)
    assert streamer.offered == [OFFERED]


def test_a_card_with_its_result_and_the_next_turn(
    snap_compare: SnapCompare, tmp_path: Path
) -> None:
    app, streamer = tool_app(tmp_path)

    async def run_it(pilot: Pilot[Any]) -> None:
        await ask(pilot)
        await pilot.press("alt+r")
        await wait_until(pilot, lambda: not app.pane.streaming, 20, "the next turn")
        await wait_until(pilot, lambda: not app.render_clock.live)
        await pilot.pause(0.15)
        (card,) = cards(app)
        results.append(card.outcome.result_text)

    results: list[str] = []
    assert snap_compare(app, terminal_size=SIZE, run_before=run_it)
    assert results == ['{"city": "Paris", "temp": 21}']
    assert streamer.offered == [OFFERED, OFFERED]
