"""The turn: one assistant answer, folded from events, with an honest status.

A `Turn` is plain data plus `apply`, so the same object serves `triptych ask`, the TUI (which
renders from its growing part lists) and the history store. Text and reasoning are kept as lists
of parts: appending is O(1), and a renderer can take only the parts it has not drawn yet.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from app.wire.events import (
    EndOfStream,
    Event,
    Finish,
    Keepalive,
    ReasoningDelta,
    ReasoningSignature,
    RedactedReasoning,
    ServerToolUse,
    Source,
    Sources,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from app.wire.exchange import CapturedExchange
from app.wire.tools import ToolResult
from app.wire.turn_status import TurnStatus


@dataclass(slots=True)
class ToolCall:
    index: int
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    closed: bool = False
    value: Any = None
    invalid_json: bool = False
    result: ToolResult | None = None  # what was sent back for it; None: nothing yet

    @property
    def arguments(self) -> str:
        """The raw joined argument string, exactly as the provider sent it."""
        return "".join(self.parts)

    def close(self, authoritative: str | None = None) -> None:
        if authoritative is not None and authoritative != self.arguments:
            self.parts[:] = [authoritative]
        self.closed = True
        raw = self.arguments
        if not raw.strip():
            self.value, self.invalid_json = {}, False
            return
        try:
            self.value, self.invalid_json = json.loads(raw), False
        except (ValueError, RecursionError):  # model output: anything may arrive here
            self.value, self.invalid_json = None, True


@dataclass(slots=True)
class Turn:
    status: TurnStatus = TurnStatus.STREAMING
    text_parts: list[str] = field(default_factory=list)
    reasoning_parts: list[str] = field(default_factory=list)
    reasoning_signature: str | None = None
    redacted_reasoning: list[str] = field(default_factory=list)
    calls: dict[int, ToolCall] = field(default_factory=dict)
    server_tools: list[ServerToolUse] = field(default_factory=list)  # run by the provider
    sources: list[Source] = field(default_factory=list)
    usage: Usage | None = None
    finish_reason: str | None = None
    finish_detail: str = ""
    error: StreamError | None = None
    terminal_seen: bool = False
    # No terminal event, but the provider ends its streams at finish_reason (`stream_end`) and
    # this one ended cleanly after every choice's: complete all the same.
    ended_at_finish: bool = False
    keepalives: int = 0
    interruption: str = ""  # why a stream ended early, when the transport said
    notices: list[str] = field(default_factory=list)  # what the client did on its own, once
    # The request's parameters as sent (its body less the conversation), set by the client
    # before sending: stored with the answer, shown with it.
    params: dict[str, Any] = field(default_factory=dict)
    # The request and every frame as it arrived (the inspector's data), filled as it streams.
    exchange: CapturedExchange | None = field(default=None, repr=False, compare=False)

    # -- reading ------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def reasoning(self) -> str:
        return "".join(self.reasoning_parts)

    @property
    def tool_calls(self) -> list[ToolCall]:
        return list(self.calls.values())

    @property
    def done(self) -> bool:
        return self.status is not TurnStatus.STREAMING

    # -- folding ------------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        _HANDLERS[type(event)](self, event)

    def apply_all(self, events: list[Event]) -> None:
        handlers = _HANDLERS
        for event in events:
            handlers[type(event)](self, event)

    def fail(self, code: str | None, message: str) -> None:
        """Record an error that did not come through the stream (HTTP, network)."""
        if self.error is None:
            self.error = StreamError(code, message)

    def end(self, *, stopped: bool = False, reason: str = "") -> TurnStatus:
        """Settle the status once the stream is over, however it ended."""
        if self.done:
            return self.status
        for call in self.calls.values():
            if not call.closed:
                call.close()
        if reason and not self.interruption:
            self.interruption = reason
        if stopped:
            self.status = TurnStatus.STOPPED
        elif self.error is not None:
            self.status = TurnStatus.FAILED
        elif self.terminal_seen or self.ended_at_finish:
            self.status = TurnStatus.COMPLETE
        else:
            self.status = TurnStatus.INTERRUPTED
        return self.status

    def _text(self, ev: TextDelta) -> None:
        self.text_parts.append(ev.text)

    def _reasoning(self, ev: ReasoningDelta) -> None:
        self.reasoning_parts.append(ev.text)

    def _signature(self, ev: ReasoningSignature) -> None:
        self.reasoning_signature = ev.signature

    def _redacted(self, ev: RedactedReasoning) -> None:
        self.redacted_reasoning.append(ev.data)

    def _call_start(self, ev: ToolCallStart) -> None:
        call = self.calls.get(ev.index)
        if call is None:
            self.calls[ev.index] = ToolCall(ev.index, ev.id, ev.name)
            return
        # id and name are taken once; later repeats never concatenate or overwrite.
        if not call.id:
            call.id = ev.id
        if not call.name:
            call.name = ev.name

    def _call_args(self, ev: ToolCallArgsDelta) -> None:
        call = self.calls.get(ev.index)
        if call is None:
            call = self.calls[ev.index] = ToolCall(ev.index)
        call.parts.append(ev.fragment)

    def _call_end(self, ev: ToolCallEnd) -> None:
        call = self.calls.get(ev.index)
        if call is None:
            call = self.calls[ev.index] = ToolCall(ev.index)
        if not call.closed:
            call.close(ev.arguments)

    def _server_tool(self, ev: ServerToolUse) -> None:
        # Announced once per id (a start, then the finished item): keep the first, fill a name.
        for position, known in enumerate(self.server_tools):
            if ev.id and known.id == ev.id:
                if not known.name and ev.name:
                    self.server_tools[position] = ev
                return
        self.server_tools.append(ev)

    def _sources(self, ev: Sources) -> None:
        known = {s.url for s in self.sources}
        self.sources.extend(s for s in ev.items if s.url not in known)

    def _usage(self, ev: Usage) -> None:
        old = self.usage
        if old is None:
            self.usage = ev
            return
        # Counts are cumulative: replace field by field; a later null never erases a count.
        self.usage = Usage(
            ev.input_tokens if ev.input_tokens is not None else old.input_tokens,
            ev.output_tokens if ev.output_tokens is not None else old.output_tokens,
            ev.cached_tokens if ev.cached_tokens is not None else old.cached_tokens,
            ev.cache_write_tokens if ev.cache_write_tokens is not None else old.cache_write_tokens,
            ev.input_excludes_cached or old.input_excludes_cached,
        )

    def _finish(self, ev: Finish) -> None:
        self.finish_reason = ev.reason
        if ev.detail:
            self.finish_detail = ev.detail

    def _error(self, ev: StreamError) -> None:
        if self.error is None:
            self.error = ev

    def _keepalive(self, ev: Keepalive) -> None:
        self.keepalives += 1

    def _end_of_stream(self, ev: EndOfStream) -> None:
        self.terminal_seen = True


_HANDLERS: dict[type, Callable[[Turn, Any], None]] = {
    TextDelta: Turn._text,
    ReasoningDelta: Turn._reasoning,
    ReasoningSignature: Turn._signature,
    RedactedReasoning: Turn._redacted,
    ToolCallStart: Turn._call_start,
    ToolCallArgsDelta: Turn._call_args,
    ToolCallEnd: Turn._call_end,
    ServerToolUse: Turn._server_tool,
    Sources: Turn._sources,
    Usage: Turn._usage,
    Finish: Turn._finish,
    StreamError: Turn._error,
    Keepalive: Turn._keepalive,
    EndOfStream: Turn._end_of_stream,
}

__all__ = ["ToolCall", "Turn", "TurnStatus"]
