"""A pane's tool rounds: the headless tool loop (app/tools/loop.py) driven with the pane's cards.

The pane's stream worker runs `PaneRounds.run` instead of one request when tools are on. The
loop is the same `ToolLoop` `triptych ask` uses; what differs is who answers: a `[tools]` call
gets the editor on its card, an MCP call the approval row (the session's ApprovalPolicy sets,
shared by every pane, remember "always"), a call that cannot run says why and offers to send
that back. Each later round is a new answer on screen (`ChatPane.start_round`), saved in the
history as its own turn; results are saved with their calls as they come.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from app.providers.errors import names_tools
from app.providers.timing import Timing
from app.store.session_records import TurnRecord
from app.tools.approval import Approval, ApprovalPolicy, Choice
from app.tools.loop import (
    LoopClient,
    LoopEnd,
    LoopHooks,
    LoopOutcome,
    Round,
    ToolLoop,
    ToolServers,
    edited_problem,
)
from app.tools.registry import Tool, ToolRegistry
from app.ui.widgets.tool_call import ToolCallCard
from app.wire.tools import ResultOrigin, ToolResult
from app.wire.turn import ToolCall, Turn

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel

    from app.providers.params import RequestParams
    from app.ui.widgets.assistant_turn import AssistantTurn
    from app.wire.conversation import Conversation


@dataclass(slots=True)
class ToolKit:
    """What one prompt offers and runs: the tools that are on, the servers, the session's
    approvals, and the round limit (`tool_rounds`)."""

    registry: ToolRegistry
    servers: ToolServers | None = None
    approvals: ApprovalPolicy = field(default_factory=ApprovalPolicy)
    limit: int = 10


class ToolsSource(Protocol):
    """The app's tools (app/ui/flows/tooling.py): None when none is on."""

    async def kit(self, waiting: Callable[[list[str]], None] | None = None) -> ToolKit | None:
        """`waiting` is told the servers the prompt waits for, as that changes, then none."""


class RoundsPane(Protocol):
    """What the loop needs of the pane it runs in (a ChatPane): a Protocol, so this module
    does not import the pane that imports it."""

    current: AssistantTurn | None
    params: RequestParams | None
    model: str
    conversation: Conversation

    def clock_now(self) -> float: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    def start_round(
        self, turn: Turn, timing: Timing, number: int
    ) -> tuple[AssistantTurn, TurnRecord]: ...


@dataclass(slots=True)
class _Shown:
    round: Round
    record: TurnRecord
    view: AssistantTurn


class PaneRounds:
    """One prompt's tool loop in one pane: its rounds (each a turn, its record and its view)
    and the callbacks that answer each call on its card."""

    def __init__(self, pane: RoundsPane, kit: ToolKit) -> None:
        self.pane = pane
        self.kit = kit
        self.rounds: list[_Shown] = []
        self.outcome: LoopOutcome | None = None

    async def run(self, client: LoopClient, first: Round, record: TurnRecord) -> None:
        kit, pane = self.kit, self.pane
        assert pane.current is not None
        self.rounds.append(_Shown(first, record, pane.current))
        shared = kit.approvals  # one session's "always" answers, for every pane
        policy = ApprovalPolicy(self._ask, shared.run_all, shared.tools, shared.servers)
        loop = ToolLoop(
            client,
            kit.registry,
            None if kit.servers is None else _ShownServers(self, kit.servers),
            policy,
            manual=self._manual,
            on_problem=self._problem,
            limit=kit.limit,
            hooks=LoopHooks(on_turn=self._on_turn, on_result=self._on_result),
            params=pane.params,
            model=pane.model,
            clock=pane.clock_now,
        )
        self.outcome = await loop.run(pane.conversation, first)
        await self._say_end(self.outcome)
        if len(self.outcome.rounds) == 1 and names_tools(self.outcome.last.error):
            offered = ", ".join(kit.registry.names)
            pane.notify(
                f"The request offered tools ({offered}): if the provider rejected one's "
                "schema, turn it off with 'Choose tools…' in the palette.",
                severity="warning",
                timeout=10,
                markup=False,
            )

    # -- the loop's callbacks ------------------------------------------------------------------

    def _on_turn(self, turn: Turn, timing: Timing) -> None:
        if turn is self.rounds[0].round.turn:
            return
        self._save(self.rounds[-1])
        view, record = self.pane.start_round(turn, timing, len(self.rounds) + 1)
        self.rounds.append(_Shown(Round(turn, timing), record, view))

    def _on_result(self, call: ToolCall, result: ToolResult) -> None:
        shown = self._round_of(call)
        if shown is not None:
            self._save(shown)
            card = self._card_now(shown, call)
            if card is not None:
                card.show_result(result)

    async def _manual(self, tool: Tool, call: ToolCall) -> ToolResult | None:
        if tool.server is not None:
            return None
        card = await self.card_for(call)
        if card is None:
            return None
        typed = await card.outcome.manual_result()
        return ToolResult(typed.text, typed.is_error, ResultOrigin.MANUAL)

    async def _ask(self, tool: Tool, call: ToolCall) -> Approval | None:
        card = await self.card_for(call)
        if card is None:
            return None
        choice = await card.outcome.approval()
        if choice is not Choice.EDIT:
            return Approval(choice)
        text = json.dumps(call.value, indent=2, ensure_ascii=False) if call.value else "{}"
        problem: str | None = None
        while True:  # until it is a JSON object: a typo is fixed, not sent back as an error
            text = await card.outcome.edited_arguments(text, problem)
            problem = edited_problem(text)
            if problem is None:
                return Approval(Choice.EDIT, text)

    async def _problem(self, call: ToolCall, tool: Tool | None, problem: str) -> bool:
        card = await self.card_for(call)
        return card is not None and await card.outcome.problem(problem)

    # -- cards ---------------------------------------------------------------------------------

    def _round_of(self, call: ToolCall) -> _Shown | None:
        return next(
            (s for s in self.rounds if any(c is call for c in s.round.turn.tool_calls)), None
        )

    def _card_now(self, shown: _Shown, call: ToolCall) -> ToolCallCard | None:
        return next((c for c in shown.view.cards.values() if c.call is call), None)

    async def card_for(self, call: ToolCall) -> ToolCallCard | None:
        """The call's card, once its turn is completely on screen."""
        shown = self._round_of(call)
        if shown is None:
            return None
        await shown.view.drawn_event.wait()
        return self._card_now(shown, call)

    def _save(self, shown: _Shown) -> None:
        shown.record.finish(shown.round.turn, shown.round.timing)  # once, if not yet
        shown.record.save_results(shown.round.turn)

    async def _say_end(self, outcome: LoopOutcome) -> None:
        """A call the loop left without a result says why on its card."""
        if outcome.end is LoopEnd.LIMIT:
            why = f"not run: the round limit (tool_rounds = {self.kit.limit}) was reached"
        elif outcome.end is LoopEnd.UNANSWERED:
            why = "left unanswered: nothing more is sent until your next prompt"
        else:
            return
        for call in self.rounds[-1].round.turn.tool_calls:
            card = await self.card_for(call)
            if call.result is None and card is not None:
                card.outcome.note(why)

    def close(self) -> None:
        """However the loop ended (Esc included): every result on its card and saved."""
        for shown in self.rounds:
            self._save(shown)
            for call in shown.round.turn.tool_calls:
                card = self._card_now(shown, call)
                if call.result is not None and card is not None and not card.outcome.answered:
                    card.show_result(call.result)


@dataclass(slots=True)
class _ShownServers:
    """The servers, with the call's card showing it run (spinner, time) meanwhile."""

    rounds: PaneRounds
    servers: ToolServers

    async def call(self, tool: Tool, arguments: dict[str, Any]) -> ToolResult:
        """Run it once its card is on screen (the loop answers calls in order: the first of
        the last round without a result is this one)."""
        card = None
        shown = self.rounds.rounds[-1]
        call = next(
            (
                c
                for c in shown.round.turn.tool_calls
                if c.result is None and c.name == tool.wire_name
            ),
            None,
        )
        if call is not None:
            card = await self.rounds.card_for(call)
        if card is not None:
            card.outcome.running(f"running on {tool.server}…")
        try:
            return await self.servers.call(tool, arguments)
        finally:
            if card is not None:
                card.outcome.stopped_running()


__all__ = ["PaneRounds", "ToolKit", "ToolsSource"]
