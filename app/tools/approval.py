"""Who says an MCP call may run: the approval policy the loop asks before every run.

A UI passes an async `ask` callback (its approval row: Run · Always for this tool · Always for
this server · Deny · Edit arguments); the policy remembers the two "always" answers for as long
as it lives (one app session), so the row is not asked again for that tool or server. A tool is
remembered as what runs — its server and the server's own name for it — never by the name
shown, so no tool of another server can share its answer, whatever it calls itself.
Headless, `--tools auto --yes` is `ApprovalPolicy(run_all=True)`; with no callback and no
`run_all` nothing runs, and the call is left without a result.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum

from app.tools.registry import Tool
from app.wire.turn import ToolCall


class Choice(StrEnum):
    RUN = "run"
    ALWAYS_TOOL = "always_tool"
    ALWAYS_SERVER = "always_server"
    DENY = "deny"
    EDIT = "edit"  # run with `Approval.arguments` instead of the model's


@dataclass(frozen=True, slots=True)
class Approval:
    choice: Choice
    arguments: str | None = None  # EDIT: the JSON object to run with

    @property
    def runs(self) -> bool:
        return self.choice is not Choice.DENY


AskApproval = Callable[[Tool, ToolCall], Awaitable[Approval | None]]
ToolKey = tuple[str | None, str]  # (server, the server's own name); (None, name) for [tools]


def tool_key(tool: Tool) -> ToolKey:
    """What runs when this tool is called: the identity an "always" answer is kept under."""
    return (tool.server, tool.remote_name if tool.server is not None else tool.name)


@dataclass(slots=True)
class ApprovalPolicy:
    ask: AskApproval | None = None
    run_all: bool = False
    tools: set[ToolKey] = field(default_factory=set)  # always allowed
    servers: set[str] = field(default_factory=set)

    def remembered(self, tool: Tool) -> bool:
        return self.run_all or tool_key(tool) in self.tools or tool.server in self.servers

    async def approve(self, tool: Tool, call: ToolCall) -> Approval | None:
        """RUN when allowed already; else the callback's answer (remembered when "always");
        None: nobody decided (the call is not run and gets no result)."""
        if self.remembered(tool):
            return Approval(Choice.RUN)
        if self.ask is None:
            return None
        answer = await self.ask(tool, call)
        if answer is not None and answer.choice is Choice.ALWAYS_TOOL:
            self.tools.add(tool_key(tool))
        elif answer is not None and answer.choice is Choice.ALWAYS_SERVER and tool.server:
            self.servers.add(tool.server)
        return answer


__all__ = ["Approval", "ApprovalPolicy", "AskApproval", "Choice", "ToolKey", "tool_key"]
