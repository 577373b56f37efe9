"""The demo's answer to a request that carries tool results: a short text quoting them, with no
tool call, so a tool loop against the demo ends after one round (as a real model's would).

Each format carries results its own way: Chat Completions `tool` messages (named by the
assistant's `tool_calls`), Messages `tool_result` blocks in the last user message (named by
the `tool_use` blocks before), Responses `function_call_output` items (named by the
`function_call` items). Only results at the end of the request count: a later user prompt
is answered as usual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.demo.frames import Answer
from app.demo.samples import DEMO_LABEL, Sample, pieces
from app.wire.api import Api

QUOTED_CHARS = 400  # of each result; the rest is left out with an ellipsis


@dataclass(frozen=True, slots=True)
class SeenResult:
    name: str
    content: str
    is_error: bool = False


def tool_results(api: Api, body: dict[str, Any]) -> list[SeenResult]:
    """The tool results the request ends with, in order; none when it ends with a prompt."""
    items = body.get("input") if api is Api.RESPONSES else body.get("messages")
    if not isinstance(items, list):
        return []
    items = [i for i in items if isinstance(i, dict)]
    if api is Api.CHAT:
        return _chat(items)
    if api is Api.MESSAGES:
        return _messages(items)
    return _responses(items)


def _chat(messages: list[dict[str, Any]]) -> list[SeenResult]:
    names = {
        call.get("id"): (call.get("function") or {}).get("name")
        for m in messages
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
        if isinstance(call, dict)
    }
    trailing: list[dict[str, Any]] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        trailing.insert(0, message)
    return [
        SeenResult(_name(names.get(m.get("tool_call_id"))), _text(m.get("content")))
        for m in trailing
    ]


def _messages(messages: list[dict[str, Any]]) -> list[SeenResult]:
    if not messages or messages[-1].get("role") != "user":
        return []
    names = {
        block.get("id"): block.get("name")
        for m in messages
        if m.get("role") == "assistant" and isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    }
    content = messages[-1].get("content")
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    return [
        SeenResult(
            _name(names.get(b.get("tool_use_id"))),
            _text(b.get("content")),
            bool(b.get("is_error")),
        )
        for b in blocks
        if b.get("type") == "tool_result"
    ]


def _responses(items: list[dict[str, Any]]) -> list[SeenResult]:
    names = {i.get("call_id"): i.get("name") for i in items if i.get("type") == "function_call"}
    trailing: list[dict[str, Any]] = []
    for item in reversed(items):
        if item.get("type") != "function_call_output":
            break
        trailing.insert(0, item)
    return [
        SeenResult(_name(names.get(i.get("call_id"))), _text(i.get("output"))) for i in trailing
    ]


def _name(name: object) -> str:
    return name if isinstance(name, str) and name else "the tool"


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _quoted(text: str) -> str:
    """A fenced block that no backtick run in the result can close."""
    shown = text if len(text) <= QUOTED_CHARS else text[:QUOTED_CHARS] + "…"
    longest, run = 0, 0
    for char in shown:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{shown}\n{fence}"


def tool_answer_sample(
    results: list[SeenResult], *, model: str = "demo", input_tokens: int = 12
) -> Sample:
    """The text that answers `results`, quoting each."""
    parts = [f"_{DEMO_LABEL} — no model was called._\n"]
    for result in results:
        said = "reported an error" if result.is_error else "answered"
        parts.append(f"**{result.name}** {said}:\n\n{_quoted(result.content)}\n")
    parts.append(
        "A real model would now answer from this result. This answer calls no tool, "
        "so the tool loop ends here."
    )
    answer = Answer(text=pieces("\n".join(parts)), model=model, input_tokens=input_tokens)
    return Sample("tool_result", answer)


__all__ = ["QUOTED_CHARS", "SeenResult", "tool_answer_sample", "tool_results"]
