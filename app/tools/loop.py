"""The tool loop: stream a turn; when it ends with tool calls, answer each, send the results
back with the assistant's turn, stream the next, until the model answers without tools.

Each call is answered in order: Triptych's own error when the call cannot run (no such tool,
arguments that are not JSON or do not fit the schema; `on_problem` decides whether that error
goes back to the model), else a result given by hand (`manual`), else — for an MCP tool the
`ApprovalPolicy` lets run — what the server answers. A call left without a result ends the
loop there (nothing is sent that the provider would reject). The loop stops at `limit` model
requests. Results live on the calls (`ToolCall.result`), so the conversation, the history and
exports carry them. A UI drives the same loop with its own callbacks and hooks.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from app.providers.params import RequestParams
from app.providers.timing import Timing
from app.tools.approval import ApprovalPolicy, Choice
from app.tools.registry import Tool, ToolRegistry
from app.tools.schema_check import schema_problems
from app.wire.conversation import Conversation
from app.wire.events import Event
from app.wire.tools import ResultOrigin, ToolResult, ToolSpec
from app.wire.turn import ToolCall, Turn, TurnStatus

Manual = Callable[[Tool, ToolCall], Awaitable[ToolResult | None]]
OnProblem = Callable[[ToolCall, Tool | None, str], Awaitable[bool]]
CANCELLED = "the call was cancelled before it answered"
_OWN = ResultOrigin.TRIPTYCH


class LoopEnd(StrEnum):
    ANSWERED = "answered"  # the last turn completed without tool calls
    UNANSWERED = "unanswered"  # a call got no result (nobody gave one, or nothing may run)
    LIMIT = "limit"  # the model still called tools at the last request allowed
    ENDED = "ended"  # the last turn did not complete: failed, interrupted or stopped
    STOPPED = "stopped"  # the caller cancelled the loop (Ctrl+C, Esc) while a tool ran


@dataclass(slots=True)
class Round:
    turn: Turn
    timing: Timing


@dataclass(slots=True)
class LoopOutcome:
    rounds: list[Round]
    end: LoopEnd

    @property
    def last(self) -> Turn:
        return self.rounds[-1].turn

    @property
    def calls(self) -> list[ToolCall]:
        return [call for r in self.rounds for call in r.turn.tool_calls]

    @property
    def tool_failed(self) -> bool:
        return any(c.result is not None and c.result.is_error for c in self.calls)

    @property
    def answered(self) -> bool:
        return self.end is LoopEnd.ANSWERED


async def _no_manual(tool: Tool, call: ToolCall) -> ToolResult | None:
    return None


async def _send_problem(call: ToolCall, tool: Tool | None, problem: str) -> bool:
    return True


class LoopClient(Protocol):
    """What streams each request: `ProviderClient` (or a test's scripted stand-in)."""

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
        on_response: Callable[[int, Mapping[str, str]], None] | None = None,
    ) -> Turn: ...


class ToolServers(Protocol):
    """What runs a server's tool: `McpServers`, or a UI's wrapper that shows the call running."""

    async def call(self, tool: Tool, arguments: dict[str, Any]) -> ToolResult: ...


@dataclass(slots=True)
class LoopHooks:
    """What a caller sees as the loop goes: each event, each new turn, each result."""

    on_event: Callable[[Event], None] | None = None
    on_turn: Callable[[Turn, Timing], None] | None = None
    on_result: Callable[[ToolCall, ToolResult], None] | None = None


@dataclass(slots=True)
class ToolLoop:
    client: LoopClient
    registry: ToolRegistry
    servers: ToolServers | None = None
    approvals: ApprovalPolicy = field(default_factory=ApprovalPolicy)
    manual: Manual = _no_manual
    on_problem: OnProblem = _send_problem
    limit: int = 10
    hooks: LoopHooks = field(default_factory=LoopHooks)
    params: RequestParams | None = None  # sent with every request of the loop
    model: str | None = None  # the provider's configured model unless set (a UI's choice)
    clock: Callable[[], float] = time.monotonic  # a later round's start (a UI's own clock)

    async def run(self, conversation: Conversation, first: Round | None = None) -> LoopOutcome:
        """Answer the conversation's last prompt; the turns are added to `conversation`.
        `first`: the turn (and timing) the first request streams into, one a UI already
        shows; later rounds' turns are new (`on_turn` tells of each)."""
        rounds: list[Round] = []
        specs = self.registry.specs()
        while True:
            turn, timing = (first.turn, first.timing) if first else (Turn(), Timing(self.clock()))
            first = None
            rounds.append(Round(turn, timing))
            conversation.add_assistant(turn)
            if self.hooks.on_turn is not None:
                self.hooks.on_turn(turn, timing)
            await self.client.stream(
                conversation,
                turn,
                timing,
                self.hooks.on_event,
                model=self.model,
                params=self.params,
                tools=specs,
            )
            calls = [c for c in turn.tool_calls if c.name]
            if turn.status is not TurnStatus.COMPLETE:
                return LoopOutcome(rounds, LoopEnd.ENDED)
            if not calls:
                return LoopOutcome(rounds, LoopEnd.ANSWERED)
            if not self.registry:  # nothing was offered (every server failed): answer nothing
                return LoopOutcome(rounds, LoopEnd.UNANSWERED)
            if len(rounds) >= self.limit:
                return LoopOutcome(rounds, LoopEnd.LIMIT)
            if not await self.answer_all(calls):
                return LoopOutcome(rounds, LoopEnd.UNANSWERED)

    async def answer_all(self, calls: Sequence[ToolCall]) -> bool:
        """Give every call its result, in order; False when one is left without."""
        for call in calls:
            if call.result is None:
                try:
                    call.result = await self.answer(call)
                except asyncio.CancelledError:
                    call.result = ToolResult(CANCELLED, True, ResultOrigin.TRIPTYCH)
                    raise
                if call.result is not None and self.hooks.on_result is not None:
                    self.hooks.on_result(call, call.result)
        return all(call.result is not None for call in calls)

    async def answer(self, call: ToolCall) -> ToolResult | None:
        tool = self.registry.called(call.name)
        problem = call_problem(self.registry, tool, call)
        if problem is not None:
            if await self.on_problem(call, tool, problem):
                return ToolResult(problem, True, ResultOrigin.TRIPTYCH)
            return None
        assert tool is not None  # a call without its tool is a problem above
        manual = await self.manual(tool, call)
        if manual is not None:
            return manual
        if tool.server is None or self.servers is None:
            return None
        approval = await self.approvals.approve(tool, call)
        if approval is None:
            return None
        if not approval.runs:
            return ToolResult("the user denied this call", True, ResultOrigin.TRIPTYCH)
        arguments = call.value if isinstance(call.value, dict) else {}
        if approval.choice is Choice.EDIT and approval.arguments is not None:
            problem = edited_problem(approval.arguments)
            if problem is not None:  # the UI asks again; another ApprovalPolicy may not
                return ToolResult(problem, True, _OWN)
            arguments = json.loads(approval.arguments)
        result = await self.servers.call(tool, arguments)
        if approval.choice is Choice.EDIT:
            result = ToolResult(
                result.content, result.is_error, result.origin, result.size, approval.arguments
            )
        return result


def edited_problem(arguments: str) -> str | None:
    """Why arguments the user edited cannot run (not a JSON object), or None."""
    try:
        edited = json.loads(arguments)
    except ValueError as exc:
        return f"the edited arguments are not JSON: {exc}"
    if not isinstance(edited, dict):
        return "the edited arguments are not a JSON object"
    return None


def call_problem(registry: ToolRegistry, tool: Tool | None, call: ToolCall) -> str | None:
    """Why this call cannot run as the model wrote it, or None."""
    if tool is None:
        offered = ", ".join(t.wire_name for t in registry.tools) or "none"
        return f"there is no tool named {call.name!r} (offered: {offered})"
    if call.invalid_json:
        shown = call.arguments[:200] + ("…" if len(call.arguments) > 200 else "")
        return f"the arguments are not valid JSON: {shown}"
    if not isinstance(call.value, dict):
        return "the arguments must be a JSON object"
    problems = schema_problems(call.value, tool.parameters)
    if problems:
        return "the arguments do not match the tool's schema: " + "; ".join(problems)
    return None


__all__ = [
    "CANCELLED",
    "LoopClient",
    "LoopEnd",
    "LoopHooks",
    "LoopOutcome",
    "Round",
    "ToolLoop",
    "ToolServers",
    "call_problem",
    "edited_problem",
]
