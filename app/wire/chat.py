"""Chat Completions chunks → events.

The rules come from the kenari, Antara and Kimi documents and the wild-stream cases in the
reference: reasoning under `reasoning_content` and/or `reasoning` (one source per stream, never
both), tool-call fragments merged by `index` (id, type and name once, arguments appended), usage on
the finish chunk, inside `choices[0]` (Kimi) or in a final chunk with empty `choices`, an error
chunk at the top level or inside a choice, and `[DONE]` as the only completion marker.
"""

from __future__ import annotations

import json
from typing import Any

from app.wire._payload import int_or_none, malformed, sources_from
from app.wire.events import (
    END_OF_STREAM,
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


class ChatDecoder:
    """Decodes one Chat Completions stream. `decode` returns True when reading should stop."""

    def __init__(self) -> None:
        self._reasoning_field: str | None = None
        self._slots: dict[int, int] = {}  # wire index → our call slot
        self._slot_ids: dict[int, str] = {}  # our slot → its id, to split index-0 reuse
        self._open: list[int] = []
        self._next_slot = 0

    def decode(self, frame: Frame, out: list[Event]) -> bool:
        data = frame.data
        if data.strip() == "[DONE]":
            self.close(out)
            out.append(END_OF_STREAM)
            return True
        try:
            chunk = json.loads(data)
        except ValueError:
            raise malformed("a data line is not JSON", data) from None
        if not isinstance(chunk, dict):
            raise malformed("a chunk is not a JSON object", data)
        if frame.event == "error":
            out.append(_error(chunk.get("error") or chunk))
            return True
        error = chunk.get("error")
        if error:
            out.append(_error(error))
            return True
        choices = chunk.get("choices") or ()
        usage = chunk.get("usage")
        stop = False
        for choice in choices:
            if choice.get("index", 0) != 0:
                continue  # the app shows choice 0 only
            usage = usage or choice.get("usage")
            if self._choice(choice, out):
                stop = True
        if not usage:
            groq = chunk.get("x_groq")
            usage = groq.get("usage") if isinstance(groq, dict) else None
        if usage:
            out.append(_usage(usage))
        return stop

    def close(self, out: list[Event]) -> None:
        """Close calls still open: a chat call has no end event of its own."""
        for slot in self._open:
            out.append(ToolCallEnd(slot))
        self._open = []

    def _choice(self, choice: dict[str, Any], out: list[Event]) -> bool:
        delta = choice.get("delta") or {}
        if delta:
            self._reasoning(delta, out)
            content = delta.get("content")
            if content:
                if isinstance(content, str):
                    out.append(TextDelta(content))
                else:
                    _content_parts(content, out)
            refusal = delta.get("refusal")
            if refusal:
                out.append(TextDelta(refusal))
            calls = delta.get("tool_calls")
            if calls:
                for call in calls:
                    self._tool_call(call, out)
            sources = delta.get("sources")
            if sources:
                out.append(sources_from(sources))
        finish = choice.get("finish_reason")
        error = choice.get("error")
        if finish:
            self.close(out)
            out.append(Finish(str(finish)))
        if error or finish == "error":
            out.append(
                _error(error or {"code": "error", "message": "the provider ended with an error"})
            )
            return True
        return False

    def _reasoning(self, delta: dict[str, Any], out: list[Event]) -> None:
        name = self._reasoning_field
        if name is None:
            if delta.get("reasoning_content"):
                name = self._reasoning_field = "reasoning_content"
            elif delta.get("reasoning"):
                name = self._reasoning_field = "reasoning"
            elif delta.get("reasoning_details"):
                name = self._reasoning_field = "reasoning_details"
            else:
                return
        value = delta.get(name)
        if not value:
            return
        if isinstance(value, str):
            out.append(ReasoningDelta(value))
        elif isinstance(value, list):
            for detail in value:
                if isinstance(detail, dict):
                    text = detail.get("text") or detail.get("summary")
                    if isinstance(text, str) and text:
                        out.append(ReasoningDelta(text))

    def _tool_call(self, call: dict[str, Any], out: list[Event]) -> None:
        fn = call.get("function") or {}
        call_id = call.get("id") or ""
        name = fn.get("name") or ""
        wire = call.get("index")
        slot = self._slot_for(wire, call_id)
        if call_id or name or slot not in self._open:
            if slot not in self._open:
                self._open.append(slot)
            if call_id:
                self._slot_ids.setdefault(slot, call_id)
            out.append(ToolCallStart(slot, call_id, name))
        args = fn.get("arguments")
        if args:
            if not isinstance(args, str):
                args = json.dumps(args, ensure_ascii=False)
            out.append(ToolCallArgsDelta(slot, args))

    def _slot_for(self, wire: object, call_id: str) -> int:
        if not isinstance(wire, int):
            # No index: find the call by id, else continue the call that is open now.
            for slot, known in self._slot_ids.items():
                if call_id and known == call_id:
                    return slot
            if not call_id and self._open:
                return self._open[-1]
            return self._new_slot(None)
        existing = self._slots.get(wire)
        if existing is None:
            return self._new_slot(wire)
        previous = self._slot_ids.get(existing)
        if call_id and previous and call_id != previous:
            # A new id at an occupied index is a new call (Ollama sends parallel calls at 0).
            return self._new_slot(wire)
        return existing

    def _new_slot(self, wire: int | None) -> int:
        slot = self._next_slot
        self._next_slot += 1
        if wire is not None:
            self._slots[wire] = slot
        return slot


def _content_parts(parts: object, out: list[Event]) -> None:
    """Mistral sends content as a list of typed parts: thinking goes to reasoning."""
    if not isinstance(parts, list):
        raise TypeError("delta.content is neither text nor a list of parts")
    for part in parts:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "thinking":
            inner = part.get("thinking")
            if isinstance(inner, list):
                for piece in inner:
                    if isinstance(piece, dict) and piece.get("text"):
                        out.append(ReasoningDelta(str(piece["text"])))
            elif isinstance(inner, str) and inner:
                out.append(ReasoningDelta(inner))
        elif part.get("text"):
            out.append(TextDelta(str(part["text"])))


def _usage(usage: dict[str, Any]) -> Usage:
    details = usage.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if cached is None:
        cached = usage.get("prompt_cache_hit_tokens")  # DeepSeek
    return Usage(
        int_or_none(usage.get("prompt_tokens")),
        int_or_none(usage.get("completion_tokens")),
        int_or_none(cached),
    )


def _error(error: object) -> StreamError:
    if isinstance(error, dict):
        code = error.get("code") or error.get("type")
        message = error.get("message") or json.dumps(error, ensure_ascii=False)
        return StreamError(str(code) if code is not None else None, str(message))
    return StreamError(None, str(error))


__all__ = ["ChatDecoder"]
