"""A turn that is already over (a reopened conversation) is drawn in one go, like a streamed one
would end up, without re-timing it."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from app.display.turn_watch import TurnWatch
from app.ui.widgets.assistant_turn import AssistantTurn
from app.wire.events import (
    ReasoningDelta,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from app.wire.turn import Turn
from tests.ui.helpers import screen_text


class ShowsATurn(App[None]):
    def __init__(self, view: AssistantTurn) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        yield self.view

    async def on_mount(self) -> None:
        await self.view.show_settled()


async def test_a_settled_turn_is_drawn_at_once_with_its_saved_timings() -> None:
    turn = Turn()
    turn.apply_all(
        [
            ReasoningDelta("Think [b]first[/b]."),
            TextDelta("Partial **answer** with `code`"),
            ToolCallStart(0, "call_9", "lookup"),
            ToolCallArgsDelta(0, '{"q": "x"}'),
            ToolCallEnd(0),
            StreamError("overloaded_error", "Overloaded"),
        ]
    )
    turn.end()
    watch = TurnWatch(started=0.0, first_token_at=0.5, last_token_at=2.0, ended_at=2.0)
    view = AssistantTurn(turn, watch, keep_reasoning_open=False)
    app = ShowsATurn(view)
    async with app.run_test(size=(90, 30)) as pilot:
        await pilot.pause()
        assert view.drawn
        assert view.answer.source == "Partial **answer** with `code`"
        assert view.reasoning.collapsed
        assert view.reasoning.title == "Reasoning · 19 chars"  # no duration was saved
        assert view.cards[0].shown == '{\n  "q": "x"\n}'
        screen = screen_text(app)
        assert "Think [b]first[/b]." in screen  # the collapsed pane's tail, literal
        assert "✖ failed — Overloaded (overloaded_error)" in screen
    assert (watch.first_token_at, watch.last_token_at, watch.ended_at) == (0.5, 2.0, 2.0)


class HostsTurns(App[None]):
    def compose(self) -> ComposeResult:
        yield from ()


async def test_a_view_flushed_before_it_is_mounted_waits_and_keeps_its_text() -> None:
    # The tool loop mounts a round's view without waiting for it, and the render clock can
    # reach it first (the whole answer already in): drawn then, the text had nowhere to go.
    turn = Turn()
    turn.apply_all([TextDelta("It is 21 °C.")])
    turn.end()
    view = AssistantTurn(turn, TurnWatch(started=0.0), keep_reasoning_open=False)
    app = HostsTurns()
    async with app.run_test(size=(90, 30)) as pilot:
        app.screen.mount(view)  # not awaited, as ChatPane.start_round does
        assert not await view.flush(0.1)
        assert not view.drawn
        await pilot.pause()
        assert await view.flush(0.2)
        await pilot.pause()
        assert view.answer.source == "It is 21 °C."
        assert "It is 21 °C." in screen_text(app)


async def test_calls_that_arrive_while_a_card_mounts_are_drawn_on_the_next_tick() -> None:
    turn = Turn()
    turn.apply_all([ToolCallStart(0, "call_1", "lookup")])
    view = AssistantTurn(turn, TurnWatch(started=0.0), keep_reasoning_open=False)
    app = HostsTurns()
    async with app.run_test(size=(90, 30)) as pilot:
        await app.screen.mount(view)
        original = view._calls.mount

        async def mount_while_a_call_arrives(*widgets: Any) -> Any:
            if len(turn.calls) == 1:
                turn.apply_all([ToolCallStart(1, "call_2", "lookup")])
            return await original(*widgets)

        view._calls.mount = mount_while_a_call_arrives  # type: ignore[method-assign]
        await view.flush(0.1)
        await view.flush(0.2)
        await pilot.pause()
        assert sorted(view.cards) == [0, 1]
