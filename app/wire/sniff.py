"""Which of the three formats a body of server-sent events is, told from its frames.

A capture made elsewhere (a `curl -N` body, a browser's HAR) seldom says which API it came from,
but each format's frames say it plainly: Messages names its events `message_start`,
`content_block_delta`…; Responses names them `response.created`, `response.output_text.delta`…;
Chat Completions sends unnamed chunks with `choices` (or `object: chat.completion.chunk`) and
ends with `[DONE]`. An error frame (`{"error": …}`) and a keepalive say nothing, so the first
frame that does decides.

Bounded: only the first `LOOK_BYTES` of the body and `LOOK_FRAMES` frames are read, and a frame's
data is parsed as JSON only when it is small; a hostile body costs what that prefix costs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from app.wire.api import Api
from app.wire.sse import Comment, EventTooLarge, Frame, SSEReader

LOOK_BYTES = 4 * 1024 * 1024
LOOK_FRAMES = 2000
PARSE_LIMIT = 256 * 1024  # a frame's data past this size is not parsed to find its format
_SLICE = 64 * 1024
_MESSAGES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    }
)


@dataclass(frozen=True, slots=True)
class Sniffed:
    """The format the frames spoke (None: nothing said), and the model the stream names."""

    api: Api | None
    model: str | None


def sniff(body: bytes, api: Api | None = None) -> Sniffed:
    """The body's format (unless `api` already says it) and the model its frames name."""
    reader = SSEReader(max_event_bytes=LOOK_BYTES)
    seen = 0
    model: str | None = None
    for start in range(0, min(len(body), LOOK_BYTES), _SLICE):
        broken = False
        try:
            items = reader.feed(body[start : start + _SLICE])
        except EventTooLarge as exc:  # nothing after an oversized event is read
            items, broken = exc.frames, True
        for item in items:
            seen += 1
            if isinstance(item, Comment):
                continue
            found, named = _look(item)
            api = api or found
            if named and found is api:
                model = model or named
            if (api is not None and model is not None) or seen >= LOOK_FRAMES:
                return Sniffed(api, model)
        if broken:
            break
    return Sniffed(api, model)


def _look(frame: Frame) -> tuple[Api | None, str | None]:
    """What one frame says: its format (if it says one) and a model it names."""
    if frame.event in _MESSAGES:
        return Api.MESSAGES, _model(_parsed(frame.data), "message")
    if frame.event.startswith("response."):
        return Api.RESPONSES, _model(_parsed(frame.data), "response")
    data = frame.data.strip()
    if data == "[DONE]":
        return Api.CHAT, None
    parsed = _parsed(data)
    if not isinstance(parsed, dict):
        return None, None
    kind = parsed.get("type")
    if isinstance(kind, str) and kind in _MESSAGES:
        return Api.MESSAGES, _model(parsed, "message")
    if isinstance(kind, str) and kind.startswith("response."):
        return Api.RESPONSES, _model(parsed, "response")
    if "choices" in parsed or parsed.get("object") == "chat.completion.chunk":
        return Api.CHAT, _model(parsed, None)
    return None, None


def _parsed(data: str) -> Any:
    if len(data) > PARSE_LIMIT or not data.lstrip().startswith("{"):
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _model(parsed: Any, inside: str | None) -> str | None:
    """`model` of the frame (Chat), of its `message` (Messages) or its `response` (Responses)."""
    if not isinstance(parsed, dict):
        return None
    holder = parsed if inside is None else parsed.get(inside)
    model = holder.get("model") if isinstance(holder, dict) else None
    return model if isinstance(model, str) and model else None


__all__ = ["LOOK_BYTES", "Sniffed", "sniff"]
