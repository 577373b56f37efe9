"""`ask`'s tools: what the flags chose, the servers started for one run, results given by hand,
and how a run of several model requests prints and reads as one `--json` object.

`ask` offers tools only when some are configured and `--no-tools` is not given; then the tool
loop (app/tools/loop.py) answers calls with `--tool-result NAME=JSON` values, or runs MCP tools
with `--tools auto --yes`. Without tools the run is one request, exactly as before.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TextIO

from app.display.sanitize import clean, literal
from app.settings.config import McpServerConfig, ToolConfig
from app.settings.redaction import scrub, scrub_cut
from app.tools.loop import LoopEnd, LoopOutcome
from app.tools.registry import Tool, ToolRegistry, UnknownTool, build_registry
from app.wire.tools import ResultOrigin, ToolResult
from app.wire.turn import ToolCall, TurnStatus

RESULT_SHOWN = 200  # characters of a result quoted on stderr


@dataclass(frozen=True, slots=True)
class GivenResult:
    """One `--tool-result NAME=JSON` (or `--tool-error`): the text the model gets back."""

    name: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class ToolSetup:
    local: tuple[ToolConfig, ...] = ()
    servers: tuple[McpServerConfig, ...] = ()
    use: tuple[str, ...] | None = None  # --use-tools; None: every tool
    run_mcp: bool = False  # --tools auto --yes
    given: tuple[GivenResult, ...] = ()
    rounds: int = 10
    timeout: float = 60.0

    @property
    def offered(self) -> bool:
        return bool(self.local or self.servers)


@asynccontextmanager
async def started_tools(
    setup: ToolSetup, stderr: TextIO
) -> AsyncIterator[tuple[Any, ToolRegistry]]:
    """The MCP servers (None when none is started) and the chosen registry; a server that
    failed to start is reported on stderr and skipped. Only the servers whose tools the request
    may offer are started (`wanted_servers`), all at once. Raises UnknownTool for a flag naming
    no tool."""
    servers = None
    wanted = wanted_servers(setup)
    if wanted:
        from app.tools.mcp_client import McpServers

        servers = await McpServers.start(wanted, setup.timeout)
    try:
        if servers is not None:
            for problem in servers.problems:
                stderr.write(f"triptych: {clean(problem)}; its tools are skipped\n")
            stderr.flush()
        registry = build_registry(setup.local, servers.listed if servers else ())
        if setup.use is not None:
            registry = registry.choose(setup.use)
        for given in setup.given:
            if registry.named(given.name) is None:
                offered = ", ".join(registry.names) or "none"
                raise UnknownTool(
                    f"--tool-result: no tool named {given.name!r}; offered: {offered}"
                )
        yield servers, registry
    finally:
        if servers is not None:
            await servers.aclose()


def wanted_servers(setup: ToolSetup) -> tuple[McpServerConfig, ...]:
    """The servers whose tools the request may offer: every one, unless `--use-tools` names
    only `[tools]` tools, servers (`kit`: all its tools) and servers' tools as `kit.tool`.
    A plain name of a server's tool may be any server's (and its name depends on what the
    others list): then every server is started to find it, as before."""
    if setup.use is None:
        return setup.servers
    names = {server.name for server in setup.servers}
    local = {tool.name for tool in setup.local}
    wanted: set[str] = set()
    for entry in setup.use:
        if entry in names:
            wanted.add(entry)
        elif entry in local:
            continue
        elif entry.partition(".")[0] in names:
            wanted.add(entry.partition(".")[0])
        else:
            return setup.servers
    return tuple(server for server in setup.servers if server.name in wanted)


class GivenResults:
    """`--tool-result` values per tool, used in the order given; the last one repeats."""

    def __init__(self, given: Sequence[GivenResult], registry: ToolRegistry) -> None:
        self._queues: dict[str, deque[GivenResult]] = defaultdict(deque)
        for item in given:
            tool = registry.named(item.name)
            if tool is not None:
                self._queues[tool.name].append(item)

    async def take(self, tool: Tool, call: ToolCall) -> ToolResult | None:
        queue = self._queues.get(tool.name)
        if not queue:
            return None
        item = queue.popleft() if len(queue) > 1 else queue[0]
        return ToolResult(item.content, item.is_error, ResultOrigin.MANUAL)


def result_line(call: ToolCall, result: ToolResult, secrets: Sequence[str]) -> str:
    """`tool result NAME ID (origin[, error], N chars): the start of it`: scrubbed before it
    is cut (a key across the cut leaves no start behind), then made literal."""
    kind = result.origin.value + (", error" if result.is_error else "")
    text = " ".join(scrub(result.content, secrets).split())
    shown = text[:RESULT_SHOWN] + ("…" if len(text) > RESULT_SHOWN else "")
    line = f"tool result {call.name} {call.id} ({kind}, {len(result.content)} chars): {shown}"
    return literal(scrub_cut(line, secrets))


def end_note(outcome: LoopOutcome, limit: int) -> str | None:
    """What stderr says when the loop stopped without the model's answer."""
    if outcome.end is LoopEnd.LIMIT:
        return (
            f"the model still called tools after {limit} requests (tool_rounds = {limit}); "
            "stopped without its answer"
        )
    if outcome.end is LoopEnd.STOPPED and outcome.last.status is TurnStatus.COMPLETE:
        return "stopped on Ctrl+C while a tool ran"
    if outcome.end is LoopEnd.UNANSWERED:
        names = ", ".join(
            dict.fromkeys(c.name for c in outcome.last.tool_calls if c.result is None)
        )
        return (
            f"no result for {names}: answer with --tool-result NAME=JSON, "
            "or run MCP tools with --tools auto --yes"
        )
    return None


def loop_error(
    outcome: LoopOutcome, limit: int, secrets: Sequence[str] = ()
) -> tuple[str, str] | None:
    """(code, message) when the prompt got no answer because of the tools: the round limit,
    or a tool that failed before the model could answer (its result scrubbed, then cut)."""
    if outcome.end is LoopEnd.LIMIT:
        return "tool_round_limit", end_note(outcome, limit) or ""
    if outcome.end is LoopEnd.UNANSWERED and outcome.tool_failed:
        failed = [c for c in outcome.calls if c.result is not None and c.result.is_error]
        content = scrub(failed[-1].result.content, secrets)  # type: ignore[union-attr]
        return "tool_failed", f"{failed[-1].name}: {content[:300]}"
    return None


def loop_json(
    document: dict[str, Any], outcome: LoopOutcome, limit: int, secrets: Sequence[str] = ()
) -> dict[str, Any]:
    """The `--json` object of a run of several requests, from the last turn's object: every
    round's text and reasoning (joined by a blank line), every call with its result and round,
    usage summed, times from the first request's start, and `rounds`."""
    turns = [r.turn for r in outcome.rounds]
    document = dict(document)
    document["text"] = _joined(t.text for t in turns)
    document["reasoning"] = _joined(t.reasoning for t in turns)
    document["tool_calls"] = [
        {**call_json(call), "round": number}
        for number, turn in enumerate(turns, 1)
        for call in turn.tool_calls
    ]
    document["rounds"] = len(turns)
    usages = [t.usage for t in turns if t.usage is not None]
    if usages:
        document["usage"] = {
            name: None
            if all(getattr(u, name) is None for u in usages)
            else sum(getattr(u, name) or 0 for u in usages)
            for name in ("input_tokens", "output_tokens", "cached_tokens")
        }
    first, last = outcome.rounds[0].timing, outcome.rounds[-1].timing
    document["ttft_ms"] = first.ttft_ms
    if last.ended is not None:
        document["duration_ms"] = round((last.ended - first.started) * 1000)
    if outcome.end is LoopEnd.STOPPED:
        document["status"] = TurnStatus.STOPPED.value  # Ctrl+C, perhaps during a tool call
    error = loop_error(outcome, limit, secrets)
    if error is not None and document["error"] is None:
        document["status"] = TurnStatus.FAILED.value
        document["error"] = {"code": error[0], "message": error[1]}
    return document


def call_json(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "name": call.name,
        "arguments": call.arguments,
        "result": None if call.result is None else call.result.to_json(),
    }


def _joined(texts: Any) -> str:
    return "\n\n".join(text for text in texts if text)


__all__ = [
    "GivenResult",
    "GivenResults",
    "ToolSetup",
    "call_json",
    "end_note",
    "loop_error",
    "loop_json",
    "result_line",
    "started_tools",
    "wanted_servers",
]
