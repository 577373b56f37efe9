"""Messages (Anthropic-shaped) events → events.

Dispatches on the payload's `type`, falling back to the `event:` name (some proxies send
data-only frames). Blocks are keyed by `index` and created on demand; `thinking` blocks carry a
signature that replaces, never appends; tool input is the raw joined `partial_json`; usage
counts are cumulative, so `message_delta` overwrites only the fields it carries.
"""

from __future__ import annotations

import json
from typing import Any

from app.wire._payload import int_or_none, malformed, sources_from
from app.wire.events import (
    END_OF_STREAM,
    KEEPALIVE,
    Event,
    Finish,
    ReasoningDelta,
    ReasoningSignature,
    RedactedReasoning,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from app.wire.sse import Frame

_TOOL_BLOCKS = frozenset({"tool_use", "mcp_tool_use"})


class MessagesDecoder:
    """Decodes one Messages stream. `decode` returns True when reading should stop."""

    def __init__(self) -> None:
        self._tools: dict[int, bool] = {}  # open tool block index → saw a non-empty delta
        self._seed_input: dict[int, Any] = {}

    def decode(self, frame: Frame, out: list[Event]) -> bool:
        data = frame.data
        if data.strip() == "[DONE]":
            return False  # OpenRouter appends one after message_stop; never fatal
        try:
            payload = json.loads(data)
        except ValueError:
            if frame.event == "error":
                out.append(StreamError(None, data))
                return True
            raise malformed("a data line is not JSON", data) from None
        if not isinstance(payload, dict):
            raise malformed("an event is not a JSON object", data)
        kind = payload.get("type") or frame.event
        if kind == "content_block_delta":
            self._delta(payload, out)
        elif kind == "content_block_start":
            self._start(payload, out)
        elif kind == "content_block_stop":
            index = payload.get("index", 0)
            if index in self._tools:
                self._close_tool(index, out)
        elif kind == "message_start":
            message = payload.get("message") or {}
            if message.get("usage"):
                out.append(_usage(message["usage"]))
        elif kind == "message_delta":
            delta = payload.get("delta") or {}
            if delta.get("stop_reason"):
                out.append(Finish(str(delta["stop_reason"])))
            usage = payload.get("usage") or delta.get("usage")
            if usage:
                out.append(_usage(usage))
        elif kind == "message_stop":
            for index in list(self._tools):
                self._close_tool(index, out)
            out.append(END_OF_STREAM)
            return True
        elif kind == "ping":
            out.append(KEEPALIVE)
        elif kind == "error":
            error = payload.get("error") or payload
            code = error.get("type") or error.get("code")
            out.append(StreamError(code and str(code), str(error.get("message") or data)))
            return True
        return False

    def close(self, out: list[Event]) -> None:
        for index in list(self._tools):
            self._close_tool(index, out)

    def _start(self, payload: dict[str, Any], out: list[Event]) -> None:
        index = payload.get("index", 0)
        block = payload.get("content_block") or {}
        kind = block.get("type")
        if kind == "text":
            if block.get("text"):
                out.append(TextDelta(block["text"]))
            if block.get("citations"):
                out.append(sources_from(block["citations"]))
        elif kind == "thinking":
            if block.get("thinking"):
                out.append(ReasoningDelta(block["thinking"]))
            if block.get("signature"):
                out.append(ReasoningSignature(block["signature"]))
        elif kind == "redacted_thinking":
            out.append(RedactedReasoning(str(block.get("data", ""))))
        elif kind in _TOOL_BLOCKS:
            self._tools[index] = False
            self._seed_input[index] = block.get("input")
            out.append(
                ToolCallStart(index, str(block.get("id") or ""), str(block.get("name") or ""))
            )

    def _delta(self, payload: dict[str, Any], out: list[Event]) -> None:
        index = payload.get("index", 0)
        delta = payload.get("delta") or {}
        kind = delta.get("type")
        if kind == "text_delta":
            if delta.get("text"):
                out.append(TextDelta(delta["text"]))
        elif kind == "thinking_delta":
            if delta.get("thinking"):
                out.append(ReasoningDelta(delta["thinking"]))
        elif kind == "input_json_delta":
            if index not in self._tools:  # a delta for a block never started
                self._tools[index] = False
                out.append(ToolCallStart(index, "", ""))
            fragment = delta.get("partial_json")
            if fragment:
                self._tools[index] = True
                out.append(ToolCallArgsDelta(index, str(fragment)))
        elif kind == "signature_delta":
            out.append(ReasoningSignature(str(delta.get("signature") or "")))
        elif kind == "citations_delta":
            out.append(sources_from(delta.get("citation")))

    def _close_tool(self, index: int, out: list[Event]) -> None:
        saw_delta = self._tools.pop(index)
        seed = self._seed_input.pop(index, None)
        if not saw_delta and seed:
            # No deltas: the input given at block start is the whole input.
            out.append(ToolCallEnd(index, json.dumps(seed, ensure_ascii=False)))
        else:
            out.append(ToolCallEnd(index))


def _usage(usage: dict[str, Any]) -> Usage:
    return Usage(
        int_or_none(usage.get("input_tokens")),
        int_or_none(usage.get("output_tokens")),
        int_or_none(usage.get("cache_read_input_tokens")),
    )


__all__ = ["MessagesDecoder"]
