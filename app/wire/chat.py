"""Chat Completions chunks → events.

The rules come from the kenari, Antara and Kimi documents and the wild-stream cases in the
reference: reasoning under `reasoning_content` and/or `reasoning` (one source per stream, never
both), tool-call fragments merged by `index` (id, type and name once, arguments appended), usage on
the finish chunk, inside `choices[0]` (Kimi) or in a final chunk with empty `choices`, an error
chunk at the top level or inside a choice, and `[DONE]` as the completion marker (a provider set to
`stream_end = "finish_reason"` may end cleanly after every choice's finish_reason instead; the
client decides that, from `all_finished`). Citations
come as kenari's `delta.sources`, OpenAI/OpenRouter `delta.annotations` (url_citation) or
Perplexity's top-level `citations`; all become sources.
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

_REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_details")


class ChatDecoder:
    """Decodes one Chat Completions stream. `decode` returns True when reading should stop."""

    def __init__(self) -> None:
        self._reasoning_field: str | None = None
        self._slots: dict[int, int] = {}  # wire index → our call slot
        self._slot_ids: dict[int, str] = {}  # our slot → its id, to split index-0 reuse
        self._open: list[int] = []
        self._next_slot = 0
        self._finished: dict[int, bool] = {}  # each choice seen → whether its finish_reason came

    @property
    def all_finished(self) -> bool:
        """Every choice the stream carried has had its finish_reason (what a server that never
        sends [DONE] ends on; see `stream_end`)."""
        return bool(self._finished) and all(self._finished.values())

    def decode(self, frame: Frame, out: list[Event]) -> bool:
        data = frame.data
        if is_done(data):
            self.close(out)
            out.append(END_OF_STREAM)
            return True
        chunk = load_object(data)
        if frame.event == "error":  # a proxy's `event: error` frame (reference case 17)
            out.append(_error(chunk.get("error") or chunk))
            return True
        usage = chunk.get("usage")
        error = chunk.get("error")
        if error:
            if usage and type(usage) is dict:  # OpenRouter counts what the failed call used
                out.append(_usage(usage))
            out.append(_error(error))
            return True
        stop = False
        choices = chunk.get("choices")
        if choices and type(choices) is list:
            for choice in choices:
                if type(choice) is not dict:
                    continue
                index = choice.get("index", 0)
                if choice.get("finish_reason"):
                    self._finished[index] = True
                else:
                    self._finished.setdefault(index, False)
                if index != 0:
                    continue  # the app shows choice 0 only
                if not usage:
                    usage = choice.get("usage")  # Kimi puts it inside the choice
                if self._choice(choice, out):
                    stop = True
        if not usage:
            usage = as_dict(chunk.get("x_groq")).get("usage")
        citations = chunk.get("citations")
        if citations:  # Perplexity: the URLs the answer's [n] marks point to, on every chunk
            out.append(sources_from(citations))
        if usage and type(usage) is dict:
            out.append(_usage(usage))
        return stop

    def close(self, out: list[Event]) -> None:
        """Close calls still open: a chat call has no end event of its own."""
        for slot in self._open:
            out.append(ToolCallEnd(slot))
        self._open = []

    def _choice(self, choice: dict[str, Any], out: list[Event]) -> bool:
        delta = choice.get("delta")
        if delta and type(delta) is dict:
            self._reasoning(delta, out)
            content = delta.get("content")
            if content:
                if type(content) is str:
                    out.append(TextDelta(content))
                else:
                    _content_parts(content, out)
            refusal = delta.get("refusal")
            if refusal and type(refusal) is str:
                out.append(TextDelta(refusal))
            calls = delta.get("tool_calls")
            if calls and type(calls) is list:
                for call in calls:
                    if type(call) is dict:
                        self._tool_call(call, out)
            sources = delta.get("sources")
            if sources:
                out.append(sources_from(sources))
            annotations = delta.get("annotations")
            if annotations:  # OpenAI / OpenRouter web search: url_citation annotations
                out.append(sources_from(annotations))
        finish = choice.get("finish_reason")
        if finish:
            self.close(out)
            out.append(Finish(finish if type(finish) is str else str(finish)))
        error = choice.get("error")
        if error or finish == "error":
            # OpenRouter reports an upstream failure inside the choice (reference case 16).
            fallback = {"code": "error", "message": "the provider ended with an error"}
            out.append(_error(error or fallback))
            return True
        return False

    def _reasoning(self, delta: dict[str, Any], out: list[Event]) -> None:
        name = self._reasoning_field
        if name is None:
            for candidate in _REASONING_FIELDS:  # reasoning_content wins when both are sent
                if delta.get(candidate):
                    name = self._reasoning_field = candidate
                    break
            else:
                return
        value = delta.get(name)
        if not value:
            return
        if type(value) is str:
            out.append(ReasoningDelta(value))
        elif type(value) is list:  # OpenRouter reasoning_details
            for detail in value:
                if type(detail) is dict:
                    text = detail.get("text") or detail.get("summary")
                    if text and type(text) is str:
                        out.append(ReasoningDelta(text))

    def _tool_call(self, call: dict[str, Any], out: list[Event]) -> None:
        fn = as_dict(call.get("function"))
        call_id = as_str(call.get("id"))
        name = as_str(fn.get("name"))
        slot = self._slot_for(call.get("index"), call_id)
        if call_id or name or slot not in self._open:
            if slot not in self._open:
                self._open.append(slot)
            if call_id:
                self._slot_ids.setdefault(slot, call_id)
            out.append(ToolCallStart(slot, call_id, name))
        args = fn.get("arguments")
        if args:
            text = json_text(args)
            if text:
                out.append(ToolCallArgsDelta(slot, text))

    def _slot_for(self, wire: object, call_id: str) -> int:
        if type(wire) is not int:
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
    if type(parts) is not list:
        return
    for part in parts:
        if type(part) is not dict:
            continue
        if part.get("type") == "thinking":
            inner = part.get("thinking")
            if type(inner) is list:
                for piece in inner:
                    text = as_dict(piece).get("text")
                    if text and type(text) is str:
                        out.append(ReasoningDelta(text))
            elif inner and type(inner) is str:
                out.append(ReasoningDelta(inner))
        else:
            text = part.get("text")
            if text and type(text) is str:
                out.append(TextDelta(text))


def _usage(usage: dict[str, Any]) -> Usage:
    cached = as_dict(usage.get("prompt_tokens_details")).get("cached_tokens")
    if cached is None:
        cached = usage.get("prompt_cache_hit_tokens")  # DeepSeek
    if cached is None:
        cached = usage.get("cached_tokens")  # Moonshot (Kimi): at the top of usage
    return Usage(
        int_or_none(usage.get("prompt_tokens")),
        int_or_none(usage.get("completion_tokens")),
        int_or_none(cached),
    )


def _error(error: object) -> StreamError:
    code, message = error_fields(error, "the provider reported an error")
    return StreamError(code, message)


__all__ = ["ChatDecoder"]
