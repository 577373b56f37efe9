"""Responses (OpenAI-shaped) events → events.

State is keyed by `output_index` (falling back to `item_id`) and created on demand, since
third-party servers skip `output_item.added` or `content_part.added`. Text and arguments come
from deltas; a `.done` event, a finished item or the final `response.output` only fill in what
no delta carried; each message item's text is its own paragraph (a `commentary` preamble, then
the final answer). `response.completed` (any status) and `response.incomplete` end the stream;
`response.failed` and `error` fail it. Items the provider runs itself (`web_search_call`,
`mcp_call`, `code_interpreter_call`, `custom_tool_call`, …) are not the client's tool calls: each
becomes one `ServerToolUse`, as Messages' `server_tool_use` and `mcp_tool_use` blocks do (their
input deltas are not decoded).
"""

from __future__ import annotations

from typing import Any

from app.wire._payload import (
    as_dict,
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
    ServerToolUse,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from app.wire.sse import Frame

_TOOL_ITEMS = frozenset({"function_call"})
# Run on the provider's side; computer, shell and apply_patch calls are the client's to run.
# A `custom_tool_call` is too: Triptych offers function tools only, and xAI sends its own search
# tools (x_keyword_search, …) as custom calls it runs itself; answering one would be a second
# request saying there is no such tool.
_SERVER_TOOL_ITEMS = frozenset(
    {
        "custom_tool_call",
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "tool_search_call",
    }
)
_TEXT_DELTAS = frozenset({"response.output_text.delta", "response.refusal.delta"})
_TEXT_DONE = frozenset({"response.output_text.done", "response.refusal.done"})
_ARGS_DELTAS = frozenset({"response.function_call_arguments.delta"})
_ARGS_DONE = frozenset({"response.function_call_arguments.done"})
_NO_SLOT = 1_000_000  # events that name neither an output_index nor a known item


class ResponsesDecoder:
    """Decodes one Responses stream. `decode` returns True when reading should stop."""

    def __init__(self) -> None:
        self._item_index: dict[str, int] = {}  # item_id → output_index
        self._calls: dict[int, bool] = {}  # output_index of a call → closed
        self._text_seen: set[tuple[int, int]] = set()  # (output_index, content_index)
        self._reasoning_kind = ""  # "summary" or "text": render one, never both
        self._reasoning_seen: set[tuple[int, int]] = set()
        self._last_summary: tuple[int, int] | None = None
        self._text_item: int | None = None  # output_index of the message text came from last

    def decode(self, frame: Frame, out: list[Event]) -> bool:
        data = frame.data
        if is_done(data):
            return False  # a proxy-added sentinel is not part of the format
        event = load_object(data)
        kind = event.get("type")
        if not kind or type(kind) is not str:
            kind = frame.event
        if kind in _TEXT_DELTAS:
            key = self._part_key(event)
            self._text_seen.add(key)
            delta = event.get("delta")
            if delta and type(delta) is str:
                self._text(key[0], delta, out)
        elif kind in _ARGS_DELTAS:
            index = self._index(event)
            self._ensure_call(index, event, out)
            delta = event.get("delta")
            if delta and type(delta) is str:
                out.append(ToolCallArgsDelta(index, delta))
        elif kind == "response.reasoning_summary_text.delta":
            self._reasoning(event, "summary", event.get("delta"), out)
        elif kind == "response.reasoning_text.delta":
            self._reasoning(event, "text", event.get("delta"), out)
        elif kind == "response.output_item.added":
            self._item_added(event, out)
        elif kind == "response.output_item.done":
            self._item_done(self._index(event), as_dict(event.get("item")), out)
        elif kind in _TEXT_DONE:
            self._text_once(self._part_key(event), event.get("text") or event.get("refusal"), out)
        elif kind == "response.content_part.done":
            part = as_dict(event.get("part"))
            if part.get("type") != "reasoning_text":  # a reasoning item's part is not answer text
                self._text_once(self._part_key(event), part.get("text") or part.get("refusal"), out)
        elif kind in _ARGS_DONE:
            index = self._index(event)
            self._ensure_call(index, event, out)
            self._close_call(index, event.get("arguments", event.get("input")), out)
        elif kind == "response.reasoning_summary_text.done":
            self._reasoning_done(event, "summary", out)
        elif kind == "response.reasoning_text.done":
            self._reasoning_done(event, "text", out)
        elif kind == "response.output_text.annotation.added":
            found = sources_from(event.get("annotation"))
            if found.items:
                out.append(found)
        elif kind in ("response.completed", "response.incomplete"):
            default = "incomplete" if kind == "response.incomplete" else "completed"
            self._finish(as_dict(event.get("response")), default, out)
            out.append(END_OF_STREAM)
            return True
        elif kind == "response.failed":
            response = as_dict(event.get("response"))
            usage = response.get("usage")
            if usage and type(usage) is dict:
                out.append(_usage(usage))
            out.append(Finish(as_str(response.get("status")) or "failed"))
            code, message = error_fields(response.get("error"), "the response failed")
            out.append(StreamError(code, message))
            return True
        elif kind == "error":
            nested = event.get("error")
            error = (
                nested if nested else {"code": event.get("code"), "message": event.get("message")}
            )
            code, message = error_fields(error, "the provider reported an error")
            out.append(StreamError(code, message))
            return True
        elif kind == "keepalive":
            out.append(KEEPALIVE)
        return False

    def close(self, out: list[Event]) -> None:
        for index, closed in list(self._calls.items()):
            if not closed:
                self._close_call(index, None, out)

    # -- items --------------------------------------------------------------------------------

    def _index(self, event: dict[str, Any]) -> int:
        index = event.get("output_index")
        item_id = event.get("item_id")
        if type(index) is int:
            if item_id and type(item_id) is str and item_id not in self._item_index:
                self._item_index[item_id] = index
            return index
        if item_id and type(item_id) is str and item_id in self._item_index:
            return self._item_index[item_id]
        return _NO_SLOT

    def _part_key(self, event: dict[str, Any]) -> tuple[int, int]:
        content = event.get("content_index")
        return self._index(event), content if type(content) is int else 0

    def _text_once(self, key: tuple[int, int], text: object, out: list[Event]) -> None:
        """Text from a `.done` event or a finished item, unless deltas already carried it."""
        if key not in self._text_seen and text and type(text) is str:
            self._text_seen.add(key)
            self._text(key[0], text, out)

    def _text(self, index: int, text: str, out: list[Event]) -> None:
        """Text of one message item; a new message (a preamble's answer) is a new paragraph."""
        if self._text_item != index:
            if self._text_item is not None:
                out.append(TextDelta("\n\n"))
            self._text_item = index
        out.append(TextDelta(text))

    def _item_added(self, event: dict[str, Any], out: list[Event]) -> None:
        item = as_dict(event.get("item"))
        index = self._index(event)
        item_id = item.get("id")
        if item_id and type(item_id) is str:
            self._item_index.setdefault(item_id, index)
        kind = item.get("type")
        if kind in _TOOL_ITEMS:
            self._ensure_call(index, event, out)
        elif kind in _SERVER_TOOL_ITEMS:
            out.append(_server_tool(item, kind))

    def _item_done(self, index: int, item: dict[str, Any], out: list[Event]) -> None:
        kind = item.get("type")
        if kind in _TOOL_ITEMS:
            self._ensure_call(index, {"item": item}, out)
            self._close_call(index, item.get("arguments", item.get("input")), out)
        elif kind in _SERVER_TOOL_ITEMS:
            out.append(_server_tool(item, kind))  # the turn keeps one per id
        elif kind == "message":
            content = item.get("content")
            for content_index, part in enumerate(content if type(content) is list else ()):
                part = as_dict(part)
                self._text_once(
                    (index, content_index), part.get("text") or part.get("refusal"), out
                )
                if part.get("annotations"):
                    found = sources_from(part["annotations"])
                    if found.items:
                        out.append(found)
        elif kind == "reasoning" and not self._reasoning_seen:
            summary = item.get("summary")
            reasoning_kind, parts = "summary", summary if type(summary) is list else []
            if not parts and type(item.get("content")) is list:
                reasoning_kind, parts = "text", item["content"]
            for number, part in enumerate(parts):
                text = as_dict(part).get("text")
                if text and type(text) is str:
                    where = {"output_index": index, "summary_index": number}
                    self._reasoning(where, reasoning_kind, text, out)

    def _ensure_call(self, index: int, event: dict[str, Any], out: list[Event]) -> None:
        item = as_dict(event.get("item"))
        call_id = as_str(item.get("call_id")) or as_str(item.get("id"))
        name = as_str(item.get("name")) or as_str(event.get("name"))
        if index not in self._calls:
            self._calls[index] = False
            out.append(ToolCallStart(index, call_id, name))
        elif call_id or name:
            out.append(ToolCallStart(index, call_id, name))  # fills what the start lacked

    def _close_call(self, index: int, arguments: object, out: list[Event]) -> None:
        if self._calls.get(index):
            return
        self._calls[index] = True
        out.append(ToolCallEnd(index, json_text(arguments)))

    # -- reasoning ----------------------------------------------------------------------------

    def _reasoning(self, event: dict[str, Any], kind: str, text: object, out: list[Event]) -> None:
        if self._reasoning_kind and self._reasoning_kind != kind:
            return  # a server that sends both kinds for the same thoughts: show one
        self._reasoning_kind = kind
        key = self._reasoning_key(event, kind)
        if key not in self._reasoning_seen:
            if self._last_summary is not None and self._last_summary != key:
                out.append(ReasoningDelta("\n\n"))  # a new summary paragraph or item
            self._reasoning_seen.add(key)
            self._last_summary = key
        if text and type(text) is str:
            out.append(ReasoningDelta(text))

    def _reasoning_done(self, event: dict[str, Any], kind: str, out: list[Event]) -> None:
        if self._reasoning_key(event, kind) not in self._reasoning_seen:
            self._reasoning(event, kind, event.get("text"), out)

    def _reasoning_key(self, event: dict[str, Any], kind: str) -> tuple[int, int]:
        # vLLM bumps content_index on every reasoning_text delta: key raw text by item only.
        number = event.get("summary_index") if kind == "summary" else 0
        return self._index(event), number if type(number) is int else 0

    # -- the end ------------------------------------------------------------------------------

    def _finish(self, response: dict[str, Any], default: str, out: list[Event]) -> None:
        self._fill_from_output(response.get("output"), out)
        self.close(out)
        usage = response.get("usage")
        if usage and type(usage) is dict:
            out.append(_usage(usage))
        reason = as_dict(response.get("incomplete_details")).get("reason")
        out.append(Finish(as_str(response.get("status")) or default, as_str(reason)))

    def _fill_from_output(self, output: object, out: list[Event]) -> None:
        """The final output fills in items no event streamed (minimal third-party servers).

        Items are matched by id; by position only when nothing was streamed at all, since
        output_index may have gaps.
        """
        if not output or type(output) is not list:
            return
        streamed = bool(self._item_index or self._text_seen or self._calls or self._reasoning_seen)
        for position, item in enumerate(output):
            item = as_dict(item)
            item_id = item.get("id")
            index = self._item_index.get(item_id) if type(item_id) is str else None
            if index is None and not streamed:
                index = position
            if index is not None:
                self._item_done(index, item, out)


def _server_tool(item: dict[str, Any], kind: str) -> ServerToolUse:
    """An MCP call names its tool and server; the built-in tools are named by their type."""
    name = as_str(item.get("name")) or kind.removesuffix("_call")
    return ServerToolUse(as_str(item.get("id")), name, as_str(item.get("server_label")))


def _usage(usage: dict[str, Any]) -> Usage:
    return Usage(
        int_or_none(usage.get("input_tokens")),
        int_or_none(usage.get("output_tokens")),
        int_or_none(as_dict(usage.get("input_tokens_details")).get("cached_tokens")),
    )


__all__ = ["ResponsesDecoder"]
