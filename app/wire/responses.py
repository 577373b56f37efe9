"""Responses (OpenAI-shaped) events → events.

State is keyed by `output_index` (falling back to `item_id`) and created on demand, since
third-party servers skip `output_item.added` or `content_part.added`. Text and arguments come
from deltas; a `.done` event only fills in what no delta carried. `response.completed` (any
status) and `response.incomplete` end the stream; `response.failed` and `error` fail it.
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
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from app.wire.sse import Frame

_TOOL_ITEMS = frozenset({"function_call", "custom_tool_call"})
_ARGUMENTS_DONE = frozenset(
    {"response.function_call_arguments.done", "response.custom_tool_call_input.done"}
)


class ResponsesDecoder:
    """Decodes one Responses stream. `decode` returns True when reading should stop."""

    def __init__(self) -> None:
        self._item_index: dict[str, int] = {}  # item_id → output_index
        self._calls: dict[int, bool] = {}  # output_index of a call → closed
        self._call_args: set[int] = set()  # calls that received argument deltas
        self._text_seen: set[tuple[int, int]] = set()  # (output_index, content_index)
        self._reasoning_kind = ""  # "summary" or "text": render one, never both
        self._reasoning_seen: set[tuple[int, int]] = set()
        self._last_summary: tuple[int, int] | None = None

    def decode(self, frame: Frame, out: list[Event]) -> bool:
        data = frame.data
        if data.strip() == "[DONE]":
            return False  # a proxy-added sentinel is not part of the format
        try:
            event = json.loads(data)
        except ValueError:
            raise malformed("a data line is not JSON", data) from None
        if not isinstance(event, dict):
            raise malformed("an event is not a JSON object", data)
        kind = event.get("type") or frame.event
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            self._text_seen.add(self._part_key(event))
            if event.get("delta"):
                out.append(TextDelta(event["delta"]))
        elif kind == "response.function_call_arguments.delta" or (
            kind == "response.custom_tool_call_input.delta"
        ):
            index = self._index(event)
            self._ensure_call(index, event, out)
            self._call_args.add(index)
            if event.get("delta"):
                out.append(ToolCallArgsDelta(index, str(event["delta"])))
        elif kind == "response.reasoning_summary_text.delta":
            self._reasoning(event, "summary", str(event.get("delta") or ""), out)
        elif kind == "response.reasoning_text.delta":
            self._reasoning(event, "text", str(event.get("delta") or ""), out)
        elif kind == "response.output_item.added":
            self._item_added(event, out)
        elif kind == "response.output_item.done":
            self._item_done(event, out)
        elif kind in ("response.output_text.done", "response.refusal.done"):
            key = self._part_key(event)
            text = event.get("text") or event.get("refusal")
            if key not in self._text_seen and text:
                self._text_seen.add(key)
                out.append(TextDelta(str(text)))
        elif kind in (
            "response.function_call_arguments.done",
            "response.custom_tool_call_input.done",
        ):
            index = self._index(event)
            self._ensure_call(index, event, out)
            self._close_call(index, event.get("arguments", event.get("input")), out)
        elif kind == "response.reasoning_summary_text.done":
            self._reasoning_done(event, "summary", out)
        elif kind == "response.reasoning_text.done":
            self._reasoning_done(event, "text", out)
        elif kind == "response.output_text.annotation.added":
            out.append(sources_from(event.get("annotation")))
        elif kind in ("response.completed", "response.incomplete"):
            default = "incomplete" if kind == "response.incomplete" else "completed"
            self._finish(event.get("response") or {}, default, out)
            out.append(END_OF_STREAM)
            return True
        elif kind == "response.failed":
            response = event.get("response") or {}
            if response.get("usage"):
                out.append(_usage(response["usage"]))
            out.append(Finish(str(response.get("status") or "failed")))
            error = response.get("error") or {}
            out.append(_error(error, "the response failed"))
            return True
        elif kind == "error":
            out.append(_error(event.get("error") or event, "the provider reported an error"))
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
        if isinstance(index, int):
            if isinstance(item_id, str):
                self._item_index.setdefault(item_id, index)
            return index
        if isinstance(item_id, str) and item_id in self._item_index:
            return self._item_index[item_id]
        return len(self._item_index) + 1_000_000  # unknown: a slot of its own

    def _part_key(self, event: dict[str, Any]) -> tuple[int, int]:
        content = event.get("content_index")
        return self._index(event), content if isinstance(content, int) else 0

    def _item_added(self, event: dict[str, Any], out: list[Event]) -> None:
        item = event.get("item") or {}
        index = self._index(event)
        if isinstance(item.get("id"), str):
            self._item_index.setdefault(item["id"], index)
        if item.get("type") in _TOOL_ITEMS:
            self._ensure_call(index, event, out)

    def _item_done(self, event: dict[str, Any], out: list[Event]) -> None:
        item = event.get("item") or {}
        index = self._index(event)
        kind = item.get("type")
        if kind in _TOOL_ITEMS:
            self._ensure_call(index, event, out)
            self._close_call(index, item.get("arguments", item.get("input")), out)
        elif kind == "message":
            for content_index, part in enumerate(item.get("content") or ()):
                if not isinstance(part, dict):
                    continue
                key = (index, content_index)
                text = part.get("text") or part.get("refusal")
                if key not in self._text_seen and text:
                    self._text_seen.add(key)
                    out.append(TextDelta(str(text)))
                if part.get("annotations"):
                    out.append(sources_from(part["annotations"]))
        elif kind == "reasoning" and not self._reasoning_seen:
            for number, part in enumerate(item.get("summary") or ()):
                if isinstance(part, dict) and part.get("text"):
                    self._reasoning(
                        {"output_index": index, "summary_index": number},
                        "summary",
                        str(part["text"]),
                        out,
                    )

    def _ensure_call(self, index: int, event: dict[str, Any], out: list[Event]) -> None:
        item = event.get("item") or {}
        call_id = str(item.get("call_id") or item.get("id") or "")
        name = str(item.get("name") or event.get("name") or "")
        if index not in self._calls:
            self._calls[index] = False
            out.append(ToolCallStart(index, call_id, name))
        elif call_id or name:
            out.append(ToolCallStart(index, call_id, name))  # fills what the start lacked

    def _close_call(self, index: int, arguments: object, out: list[Event]) -> None:
        if self._calls.get(index):
            return
        self._calls[index] = True
        if arguments is not None and not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        out.append(ToolCallEnd(index, arguments if isinstance(arguments, str) else None))

    # -- reasoning ----------------------------------------------------------------------------

    def _reasoning(self, event: dict[str, Any], kind: str, text: str, out: list[Event]) -> None:
        if self._reasoning_kind and self._reasoning_kind != kind:
            return
        self._reasoning_kind = kind
        index = self._index(event)
        number = event.get("summary_index" if kind == "summary" else "content_index")
        # vLLM bumps content_index on every reasoning_text delta: key raw text by item only.
        key = (index, number if kind == "summary" and isinstance(number, int) else 0)
        if key not in self._reasoning_seen:
            if self._last_summary is not None and self._last_summary != key:
                out.append(ReasoningDelta("\n\n"))
            self._reasoning_seen.add(key)
            self._last_summary = key
        if text:
            out.append(ReasoningDelta(text))

    def _reasoning_done(self, event: dict[str, Any], kind: str, out: list[Event]) -> None:
        index = self._index(event)
        number = event.get("summary_index" if kind == "summary" else "content_index")
        key = (index, number if kind == "summary" and isinstance(number, int) else 0)
        if key not in self._reasoning_seen and event.get("text"):
            self._reasoning(event, kind, str(event["text"]), out)

    # -- the end ------------------------------------------------------------------------------

    def _finish(self, response: dict[str, Any], default: str, out: list[Event]) -> None:
        self.close(out)
        if response.get("usage"):
            out.append(_usage(response["usage"]))
        details = response.get("incomplete_details") or {}
        reason = details.get("reason") if isinstance(details, dict) else None
        out.append(Finish(str(response.get("status") or default), str(reason or "")))


def _usage(usage: dict[str, Any]) -> Usage:
    details = usage.get("input_tokens_details") or {}
    return Usage(
        int_or_none(usage.get("input_tokens")),
        int_or_none(usage.get("output_tokens")),
        int_or_none(details.get("cached_tokens") if isinstance(details, dict) else None),
    )


def _error(error: object, fallback: str) -> StreamError:
    if isinstance(error, dict):
        code = error.get("code") or error.get("type")
        return StreamError(code and str(code), str(error.get("message") or fallback))
    return StreamError(None, str(error) or fallback)


__all__ = ["ResponsesDecoder"]
