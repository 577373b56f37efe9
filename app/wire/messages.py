"""Messages (Anthropic-shaped) events → events.

Dispatches on the payload's `type`, falling back to the `event:` name (some proxies send
data-only frames). Blocks are keyed by `index` and created on demand; `thinking` blocks carry a
signature that replaces, never appends; tool input is the raw joined `partial_json`; usage
counts are cumulative, so `message_delta` overwrites only the fields it carries. Server-side
tool blocks (`server_tool_use`, `mcp_tool_use`) are not the client's tool calls: each becomes one
`ServerToolUse` (a status line, reference case 70), its input is not surfaced, and a
`*_tool_result`'s search results become sources.
"""

from __future__ import annotations

from typing import Any

from app.wire._payload import (
    as_dict,
    as_index,
    as_str,
    error_fields,
    int_or_none,
    is_done,
    json_text,
    load_object,
    sources_from,
)
from app.wire.events import (
    END_OF_STREAM,
    KEEPALIVE,
    Event,
    Finish,
    ReasoningDelta,
    ReasoningSignature,
    RedactedReasoning,
    ServerToolUse,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from app.wire.sse import Frame

# The client's calls only: `server_tool_use` and `mcp_tool_use` (the MCP connector) run on the
# provider's side, answered by a `*_tool_result` block in the same message.
_TOOL_BLOCKS = frozenset({"tool_use"})
_SERVER_TOOL_BLOCKS = frozenset({"server_tool_use", "mcp_tool_use"})


class MessagesDecoder:
    """Decodes one Messages stream. `decode` returns True when reading should stop."""

    def __init__(self) -> None:
        self._kinds: dict[int, str] = {}  # block index → block type, as started
        self._tools: dict[int, bool] = {}  # open tool block index → saw a non-empty delta
        self._seed_input: dict[int, Any] = {}

    def decode(self, frame: Frame, out: list[Event]) -> bool:
        data = frame.data
        if is_done(data):
            return False  # OpenRouter appends one after message_stop; never fatal
        try:
            payload = load_object(data)
        except ValueError:
            if frame.event == "error":  # an error event whose data is plain text
                out.append(StreamError(None, data))
                return True
            raise
        kind = payload.get("type")
        if not kind or type(kind) is not str:
            kind = frame.event
        if kind == "content_block_delta":
            self._delta(payload, out)
        elif kind == "content_block_start":
            self._start(payload, out)
        elif kind == "content_block_stop":
            index = as_index(payload.get("index"))
            if index in self._tools:
                self._close_tool(index, out)
        elif kind == "message_start":
            usage = as_dict(payload.get("message")).get("usage")
            if usage and type(usage) is dict:
                out.append(_usage(usage))
        elif kind == "message_delta":
            delta = as_dict(payload.get("delta"))
            reason = delta.get("stop_reason")
            if reason and type(reason) is str:
                out.append(Finish(reason))
            usage = payload.get("usage") or delta.get("usage")  # early docs nested it
            if usage and type(usage) is dict:
                out.append(_usage(usage))
        elif kind == "message_stop":
            self.close(out)
            out.append(END_OF_STREAM)
            return True
        elif kind == "ping":
            out.append(KEEPALIVE)
        elif kind == "error":
            error = payload.get("error") or payload
            code, message = error_fields(error, "the provider reported an error")
            out.append(StreamError(code, message))
            return True
        return False

    def close(self, out: list[Event]) -> None:
        for index in list(self._tools):
            self._close_tool(index, out)

    def _start(self, payload: dict[str, Any], out: list[Event]) -> None:
        index = as_index(payload.get("index"))
        block = as_dict(payload.get("content_block"))
        kind = as_str(block.get("type"))
        self._kinds[index] = kind
        if kind == "text":
            text = block.get("text")
            if text and type(text) is str:
                out.append(TextDelta(text))
            if block.get("citations"):
                out.append(sources_from(block["citations"]))
        elif kind == "thinking":
            thinking = block.get("thinking")
            if thinking and type(thinking) is str:
                out.append(ReasoningDelta(thinking))
            signature = block.get("signature")
            if signature and type(signature) is str:
                out.append(ReasoningSignature(signature))
        elif kind == "redacted_thinking":
            out.append(RedactedReasoning(as_str(block.get("data"))))
        elif kind in _TOOL_BLOCKS:
            self._tools[index] = False
            self._seed_input[index] = block.get("input")
            out.append(ToolCallStart(index, as_str(block.get("id")), as_str(block.get("name"))))
        elif kind in _SERVER_TOOL_BLOCKS:
            name, server = as_str(block.get("name")), as_str(block.get("server_name"))
            out.append(ServerToolUse(as_str(block.get("id")), name, server))
        elif kind.endswith("_tool_result"):
            content = block.get("content")
            if type(content) is list:  # web search results carry url and title
                found = sources_from(content)
                if found.items:
                    out.append(found)

    def _delta(self, payload: dict[str, Any], out: list[Event]) -> None:
        index = as_index(payload.get("index"))
        delta = as_dict(payload.get("delta"))
        kind = delta.get("type")
        if kind == "text_delta":
            text = delta.get("text")
            if text and type(text) is str:
                out.append(TextDelta(text))
        elif kind == "thinking_delta":
            thinking = delta.get("thinking")
            if thinking and type(thinking) is str:
                out.append(ReasoningDelta(thinking))
        elif kind == "input_json_delta":
            if index not in self._tools:
                if index in self._kinds:
                    return  # a server tool's input, or a block already closed
                # A delta for a block never started: open it, typed by the delta.
                self._kinds[index] = "tool_use"
                self._tools[index] = False
                out.append(ToolCallStart(index, "", ""))
            fragment = delta.get("partial_json")
            if fragment and type(fragment) is str:
                self._tools[index] = True
                out.append(ToolCallArgsDelta(index, fragment))
        elif kind == "signature_delta":
            out.append(ReasoningSignature(as_str(delta.get("signature"))))
        elif kind == "citations_delta":
            found = sources_from(delta.get("citation"))
            if found.items:
                out.append(found)

    def _close_tool(self, index: int, out: list[Event]) -> None:
        saw_delta = self._tools.pop(index)
        seed = self._seed_input.pop(index, None)
        if not saw_delta and seed:
            # No deltas: the input given at block start is the whole input.
            out.append(ToolCallEnd(index, json_text(seed)))
        else:
            out.append(ToolCallEnd(index))


def _usage(usage: dict[str, Any]) -> Usage:
    return Usage(
        int_or_none(usage.get("input_tokens")),
        int_or_none(usage.get("output_tokens")),
        int_or_none(usage.get("cache_read_input_tokens")),
        int_or_none(usage.get("cache_creation_input_tokens")),
        input_excludes_cached=True,
    )


__all__ = ["MessagesDecoder"]
