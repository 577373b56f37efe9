"""One answer, written as each format's exact event stream (the shapes the seed documents show).

An `Answer` says what to stream — reasoning pieces, text pieces, one tool call, usage, how it
ends — and `frames(api, answer)` returns the SSE frames as bytes, one per list item, so a caller
can pace them, cut them or split them as it likes. Every payload is `json.dumps` of a realistic
chunk: the demo and the tests exercise the same decoders real providers do.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.wire.api import Api

_Emit = Callable[..., None]
INTERRUPTED_MESSAGE = (
    "the model's provider interrupted the response before it finished. "
    "send the request again as a new request"
)


@dataclass(frozen=True, slots=True)
class ToolUse:
    name: str
    argument_pieces: tuple[str, ...]
    id: str = "call_demo_1"

    @property
    def arguments(self) -> str:
        return "".join(self.argument_pieces)


@dataclass(frozen=True, slots=True)
class Answer:
    text: tuple[str, ...] = ()
    reasoning: tuple[str, ...] = ()
    tool: ToolUse | None = None
    input_tokens: int = 12
    cached_tokens: int = 0
    truncated: bool = False  # stopped by the token limit (finish "length")
    error_after: int | None = None  # an in-stream error after this many text pieces
    model: str = "demo-1"
    id: str = "4f1c9a2e7b3d5a60"
    signature: str = "c2lnbmF0dXJlLWRlbW8="

    @property
    def output_tokens(self) -> int:
        tool = len(self.tool.argument_pieces) + 1 if self.tool else 0
        return len(self.text) + len(self.reasoning) + tool


def frames(api: Api, answer: Answer) -> list[bytes]:
    if api is Api.CHAT:
        return chat_frames(answer)
    if api is Api.MESSAGES:
        return messages_frames(answer)
    return responses_frames(answer)


def sse(payload: object, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return f"{head}data: {data}\n\n".encode()


def _texts(answer: Answer) -> tuple[tuple[str, ...], bool]:
    """The text pieces to send, and whether an error follows them."""
    if answer.error_after is None:
        return answer.text, False
    return answer.text[: answer.error_after], True


# -- Chat Completions ------------------------------------------------------------------------------


def chat_frames(answer: Answer) -> list[bytes]:
    head = {
        "id": answer.id,
        "object": "chat.completion.chunk",
        "created": 1790000000,
        "model": answer.model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return sse({**head, "choices": [choice], **extra})

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"reasoning_content": piece}) for piece in answer.reasoning]
    texts, failing = _texts(answer)
    out += [chunk({"content": piece}) for piece in texts]
    if failing:
        error = {
            "message": INTERRUPTED_MESSAGE,
            "type": "upstream_error",
            "param": None,
            "code": "stream_interrupted",
        }
        return [*out, sse({"error": error}), sse("[DONE]")]
    finish = "length" if answer.truncated else "stop"
    if answer.tool is not None:
        finish = "tool_calls"
        tool = answer.tool
        opening = {"index": 0, "id": tool.id, "type": "function"}
        opening["function"] = {"name": tool.name, "arguments": ""}
        out.append(chunk({"tool_calls": [opening]}))
        out += [
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
            for piece in tool.argument_pieces
        ]
    usage: dict[str, Any] = {
        "prompt_tokens": answer.input_tokens,
        "completion_tokens": answer.output_tokens,
        "total_tokens": answer.input_tokens + answer.output_tokens,
    }
    if answer.cached_tokens:
        usage["prompt_tokens_details"] = {"cached_tokens": answer.cached_tokens}
    out.append(chunk({}, finish, usage=usage))
    out.append(sse("[DONE]"))
    return out


# -- Messages --------------------------------------------------------------------------------------


def messages_frames(answer: Answer) -> list[bytes]:
    def event(name: str, **payload: Any) -> bytes:
        return sse({"type": name, **payload}, name)

    usage: dict[str, Any] = {"input_tokens": answer.input_tokens, "output_tokens": 1}
    if answer.cached_tokens:
        usage["cache_read_input_tokens"] = answer.cached_tokens
    message: dict[str, Any] = {
        "id": f"msg_{answer.id}",
        "type": "message",
        "role": "assistant",
        "model": answer.model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    out = [event("message_start", message=message), event("ping")]
    index = 0
    if answer.reasoning:
        out.append(
            event(
                "content_block_start",
                index=index,
                content_block={"type": "thinking", "thinking": "", "signature": ""},
            )
        )
        out += [
            event(
                "content_block_delta",
                index=index,
                delta={"type": "thinking_delta", "thinking": piece},
            )
            for piece in answer.reasoning
        ]
        signature = {"type": "signature_delta", "signature": answer.signature}
        out.append(event("content_block_delta", index=index, delta=signature))
        out.append(event("content_block_stop", index=index))
        index += 1
    texts, failing = _texts(answer)
    if texts or failing:
        block: dict[str, Any] = {"type": "text", "text": ""}
        out.append(event("content_block_start", index=index, content_block=block))
        out += [
            event("content_block_delta", index=index, delta={"type": "text_delta", "text": piece})
            for piece in texts
        ]
        if failing:
            error = {"type": "api_error", "message": INTERRUPTED_MESSAGE}
            return [*out, event("error", error=error)]
        out.append(event("content_block_stop", index=index))
        index += 1
    stop = "max_tokens" if answer.truncated else "end_turn"
    if answer.tool is not None:
        stop = "tool_use"
        tool = answer.tool
        block = {"type": "tool_use", "id": tool.id, "name": tool.name, "input": {}}
        out.append(event("content_block_start", index=index, content_block=block))
        out += [
            event(
                "content_block_delta",
                index=index,
                delta={"type": "input_json_delta", "partial_json": piece},
            )
            for piece in tool.argument_pieces
        ]
        out.append(event("content_block_stop", index=index))
    final_usage = {**usage, "output_tokens": answer.output_tokens}
    out.append(
        event(
            "message_delta",
            delta={"stop_reason": stop, "stop_sequence": None},
            usage=final_usage,
        )
    )
    out.append(event("message_stop"))
    return out


# -- Responses -------------------------------------------------------------------------------------


def responses_frames(answer: Answer) -> list[bytes]:
    out: list[bytes] = []

    def event(name: str, **payload: Any) -> None:
        out.append(sse({"type": name, **payload, "sequence_number": len(out)}, name))

    response: dict[str, Any] = {
        "id": f"resp_{answer.id}",
        "object": "response",
        "created_at": 1790000000,
        "status": "in_progress",
        "model": answer.model,
        "output": [],
    }
    event("response.created", response=response)
    output: list[dict[str, Any]] = []
    if answer.reasoning:
        _reasoning_item(event, answer, output)
    texts, failing = _texts(answer)
    if texts or failing:
        index = len(output)
        item: dict[str, Any] = {
            "id": f"msg_{answer.id}",
            "type": "message",
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        }
        event("response.output_item.added", output_index=index, item=item)
        part = {"type": "output_text", "text": "", "annotations": []}
        event(
            "response.content_part.added",
            item_id=item["id"],
            output_index=index,
            content_index=0,
            part=part,
        )
        for piece in texts:
            event(
                "response.output_text.delta",
                item_id=item["id"],
                output_index=index,
                content_index=0,
                delta=piece,
            )
        if failing:
            failed = {**response, "status": "failed"}
            failed["error"] = {"code": "stream_interrupted", "message": INTERRUPTED_MESSAGE}
            event("response.failed", response=failed)
            return out
        text = "".join(texts)
        done_part = {**part, "text": text}
        event(
            "response.output_text.done",
            item_id=item["id"],
            output_index=index,
            content_index=0,
            text=text,
        )
        event(
            "response.content_part.done",
            item_id=item["id"],
            output_index=index,
            content_index=0,
            part=done_part,
        )
        item = {**item, "status": "completed", "content": [done_part]}
        event("response.output_item.done", output_index=index, item=item)
        output.append(item)
    if answer.tool is not None:
        _function_call_item(event, answer.tool, output)
    usage = {
        "input_tokens": answer.input_tokens,
        "input_tokens_details": {"cached_tokens": answer.cached_tokens},
        "output_tokens": answer.output_tokens,
        "output_tokens_details": {"reasoning_tokens": len(answer.reasoning)},
        "total_tokens": answer.input_tokens + answer.output_tokens,
    }
    final = {**response, "status": "completed", "output": output, "usage": usage}
    if answer.truncated:
        final["status"] = "incomplete"
        final["incomplete_details"] = {"reason": "max_output_tokens"}
    event("response.completed", response=final)
    return out


def _reasoning_item(event: _Emit, answer: Answer, output: list[dict[str, Any]]) -> None:
    index = len(output)
    item: dict[str, Any] = {"id": f"rs_{answer.id}", "type": "reasoning", "summary": []}
    event("response.output_item.added", output_index=index, item=item)
    part = {"type": "summary_text", "text": ""}
    where = {"item_id": item["id"], "output_index": index, "summary_index": 0}
    event("response.reasoning_summary_part.added", **where, part=part)
    for piece in answer.reasoning:
        event("response.reasoning_summary_text.delta", **where, delta=piece)
    text = "".join(answer.reasoning)
    event("response.reasoning_summary_text.done", **where, text=text)
    event("response.reasoning_summary_part.done", **where, part={**part, "text": text})
    item = {**item, "summary": [{"type": "summary_text", "text": text}]}
    event("response.output_item.done", output_index=index, item=item)
    output.append(item)


def _function_call_item(event: _Emit, tool: ToolUse, output: list[dict[str, Any]]) -> None:
    index = len(output)
    item: dict[str, Any] = {
        "id": f"fc_{tool.id}",
        "type": "function_call",
        "status": "in_progress",
        "call_id": tool.id,
        "name": tool.name,
        "arguments": "",
    }
    event("response.output_item.added", output_index=index, item=item)
    for piece in tool.argument_pieces:
        event(
            "response.function_call_arguments.delta",
            item_id=item["id"],
            output_index=index,
            delta=piece,
        )
    event(
        "response.function_call_arguments.done",
        item_id=item["id"],
        output_index=index,
        arguments=tool.arguments,
    )
    item = {**item, "status": "completed", "arguments": tool.arguments}
    event("response.output_item.done", output_index=index, item=item)
    output.append(item)


__all__ = ["INTERRUPTED_MESSAGE", "Answer", "ToolUse", "frames", "sse"]
