"""A 200 answer that is one JSON document instead of an event stream.

Some servers ignore `stream: true`, and some send errors with status 200. The document is
reshaped into the frames its format would have streamed and fed to that format's own decoder,
so a whole answer yields exactly the events (text, reasoning, tool calls, usage, finish) a
stream would have — one set of rules, not two.
"""

from __future__ import annotations

import json
from typing import Any

from app.providers.errors import error_in_document
from app.wire.engine import Api, make_decoder
from app.wire.events import END_OF_STREAM, Event, StreamError
from app.wire.sse import Frame
from app.wire.surrogates import mend_events


def document_events(document: object) -> list[Event]:
    """Events for a whole JSON answer, ending in the terminal event or an error.

    Surrogates its strings spell are mended as a stream's are (`app.wire.surrogates`).
    """
    return mend_events(_document_events(document))


def _document_events(document: object) -> list[Event]:
    if isinstance(document, dict):
        api = document_api(document)
        if api is not None and not _is_failed_response(document, api):
            return _replay(api, _frames(api, document))
        if api is Api.RESPONSES:
            return _replay(api, [{"type": "response.failed", "response": document}])
    error = error_in_document(document)
    if error is not None:
        return [error]
    sample = json.dumps(document, ensure_ascii=False)[:120]
    return [
        StreamError(
            "unexpected_answer", f"the provider sent a JSON answer it cannot read: {sample}"
        )
    ]


def document_api(document: dict[str, Any]) -> Api | None:
    """Which format a whole answer is in, by its shape (never by what was asked for)."""
    if isinstance(document.get("choices"), list):
        return Api.CHAT
    if document.get("type") == "message" and isinstance(document.get("content"), list):
        return Api.MESSAGES
    if document.get("object") == "response" or isinstance(document.get("output"), list):
        return Api.RESPONSES
    return None


def _is_failed_response(document: dict[str, Any], api: Api) -> bool:
    return api is Api.RESPONSES and (
        document.get("status") == "failed" or isinstance(document.get("error"), dict)
    )


def _frames(api: Api, document: dict[str, Any]) -> list[dict[str, Any]]:
    if api is Api.CHAT:
        return _chat_frames(document)
    if api is Api.MESSAGES:
        return _messages_frames(document)
    return _responses_frames(document)


def _chat_frames(document: dict[str, Any]) -> list[dict[str, Any]]:
    choices = []
    for choice in document["choices"]:
        if not isinstance(choice, dict):
            continue
        message = dict(choice.get("message") or {})
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            message["tool_calls"] = [
                {**call, "index": call.get("index", i)}
                for i, call in enumerate(calls)
                if isinstance(call, dict)
            ]
        choices.append({**choice, "delta": message})
    return [{"choices": choices, "usage": document.get("usage")}]


def _messages_frames(document: dict[str, Any]) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = [{"type": "message_start", "message": {"usage": None}}]
    for index, block in enumerate(document["content"]):
        frames.append({"type": "content_block_start", "index": index, "content_block": block})
        frames.append({"type": "content_block_stop", "index": index})
    frames.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": document.get("stop_reason")},
            "usage": document.get("usage"),
        }
    )
    frames.append({"type": "message_stop"})
    return frames


def _responses_frames(document: dict[str, Any]) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = [
        {"type": "response.output_item.done", "output_index": index, "item": item}
        for index, item in enumerate(document["output"])
    ]
    frames.append({"type": "response.completed", "response": document})
    return frames


def _replay(api: Api, payloads: list[dict[str, Any]]) -> list[Event]:
    decoder = make_decoder(api)
    out: list[Event] = []
    for payload in payloads:
        if decoder.decode(Frame("", json.dumps(payload)), out):
            return out  # the terminal event, or an error
    decoder.close(out)
    if api is Api.CHAT:
        out.append(END_OF_STREAM)  # a whole chat.completion is complete by being whole
    return out


__all__ = ["document_api", "document_events"]
