"""Request bodies and headers for the three wire formats, built from a `Conversation`. Pure.

Each format gets the history in its own shape, including what a provider asks to have sent
back: Kimi's `reasoning_content` on chat assistant messages, Messages `thinking` blocks with
their signature (and `redacted_thinking`) unchanged, and tool calls in each format's form.

Tools offered go in each format's shape (`tool_specs`). An assistant turn that called tools is
followed by a result for every call (all three APIs reject an unanswered call): the call's own
`result` when it got one (by hand or from an MCP server), else a result saying it was not run,
placed before the user's next words. A call whose arguments were not JSON goes back with `{}`
and its error result, so the model learns what went wrong.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.providers.attachments import chat_content, messages_blocks, responses_content
from app.providers.params import RequestParams, check_for, format_fields
from app.settings.config import ENDPOINTS, ProviderConfig
from app.wire.api import Api
from app.wire.conversation import Conversation, Message
from app.wire.tools import ToolSpec
from app.wire.turn import ToolCall, Turn

ANTHROPIC_VERSION = "2023-06-01"
TOOL_NOT_RUN = "Triptych does not run tools: this call was not executed."


@dataclass(frozen=True, slots=True)
class ProviderRequest:
    method: str
    url: str
    headers: dict[str, str]
    body: dict[str, Any]


def endpoint_url(provider: ProviderConfig, path: str | None = None) -> str:
    """The base URL with the endpoint appended to its path: before a `?query` (Azure-style
    `?api-version=`, or a key some providers take there), which is kept; a `#fragment` is
    never sent by HTTP clients and means nothing to a server, so it is dropped."""
    endpoint = path if path is not None else ENDPOINTS[provider.api]
    head = provider.base_url.partition("#")[0]
    head, _, query = head.partition("?")
    url = head.rstrip("/") + endpoint
    return f"{url}?{query}" if query else url


def request_headers(provider: ProviderConfig, api_key: str | None) -> dict[str, str]:
    """Auth per format, then the provider's own headers (which may override)."""
    headers = {"Accept": "text/event-stream", "Content-Type": "application/json"}
    if provider.api is Api.MESSAGES:
        if api_key:
            headers["x-api-key"] = api_key
        headers["anthropic-version"] = ANTHROPIC_VERSION
    elif api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    headers.update(provider.headers)
    return headers


def build_request(
    provider: ProviderConfig,
    conversation: Conversation,
    api_key: str | None,
    *,
    model: str | None = None,
    exclude: Turn | None = None,
    params: RequestParams | None = None,
    tools: Sequence[ToolSpec] = (),
) -> ProviderRequest:
    """The streaming request for the conversation's next answer.

    `exclude` is the turn being filled now: a UI may already have added it to the conversation.
    `params` override the provider's `params`, their `extra` merged last; a knob the format
    has no field for raises ParamError.
    `tools` are offered to the model (none: the body has no `tools` key at all).
    """
    messages = [m for m in conversation.messages if exclude is None or m.turn is not exclude]
    body = build_body(provider.api, model or provider.model, conversation.system, messages)
    if tools:
        body["tools"] = tool_specs(provider.api, tools)
    if provider.api is Api.MESSAGES:
        body["max_tokens"] = provider.max_tokens
    elif provider.api is Api.CHAT and provider.include_usage:
        body["stream_options"] = {"include_usage": True}  # params may still override it
    body = deep_merge(body, provider.params)
    if params is not None:
        check_for(params, provider.api, provider.max_tokens)
        body = deep_merge(deep_merge(body, format_fields(params, provider.api)), params.extra)
    body["stream"] = True
    return ProviderRequest("POST", endpoint_url(provider), request_headers(provider, api_key), body)


def build_body(api: Api, model: str, system: str | None, messages: list[Message]) -> dict[str, Any]:
    if api is Api.CHAT:
        return {"model": model, "messages": chat_messages(system, messages), "stream": True}
    if api is Api.MESSAGES:
        body: dict[str, Any] = {"model": model, "messages": messages_history(messages)}
        if system:
            body["system"] = system
        body["stream"] = True
        return body
    body = {"model": model, "input": responses_input(messages), "stream": True}
    if system:
        body["instructions"] = system
    return body


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """A new dict: nested dicts merge key by key, anything else in `override` wins."""
    merged = dict(base)
    for key, value in override.items():
        old = merged.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            merged[key] = deep_merge(old, value)
        else:
            merged[key] = value
    return merged


def tool_specs(api: Api, tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The `tools` array: Chat Completions nests a `function`, Messages names the schema
    `input_schema`, Responses lists flat `function` tools."""
    if api is Api.CHAT:
        return [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in tools
        ]
    if api is Api.MESSAGES:
        return [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in tools
        ]
    return [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.parameters,
        }
        for t in tools
    ]


# -- what an assistant turn sends back ------------------------------------------------------------


def sendable_calls(turn: Turn | None) -> list[ToolCall]:
    """Calls worth sending back: named, with arguments that parse (a cut call cannot be), or
    with a result already given (bad arguments then go back as `{}` beside the error)."""
    if turn is None:
        return []
    return [c for c in turn.tool_calls if c.name and (not c.invalid_json or c.result is not None)]


def call_id(call: ToolCall) -> str:
    return call.id or f"call_{call.index}"


def call_arguments(call: ToolCall) -> str:
    if call.invalid_json:
        return "{}"
    return call.arguments if call.arguments.strip() else "{}"


def result_text(call: ToolCall) -> str:
    return call.result.content if call.result is not None else TOOL_NOT_RUN


def _assistant_text(message: Message) -> str:
    return message.turn.text if message.turn is not None else message.text


# -- Chat Completions ------------------------------------------------------------------------------


def chat_messages(system: str | None, messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": system})
    for message in messages:
        if message.role == "user":
            content: str | list[dict[str, Any]] = message.text
            if message.attachments:
                content = chat_content(message.text, message.attachments)
            out.append({"role": "user", "content": content})
            continue
        turn = message.turn
        text = _assistant_text(message)
        calls = sendable_calls(turn)
        reasoning = turn.reasoning if turn is not None else ""
        if not (text or calls):
            continue  # nothing was said: an empty assistant message is rejected by some servers
        entry: dict[str, Any] = {"role": "assistant", "content": text or None}
        if reasoning:
            entry["reasoning_content"] = reasoning  # Kimi's preserved thinking
        if calls:
            entry["tool_calls"] = [
                {
                    "id": call_id(c),
                    "type": "function",
                    "function": {"name": c.name, "arguments": call_arguments(c)},
                }
                for c in calls
            ]
        out.append(entry)
        for c in calls:
            out.append({"role": "tool", "tool_call_id": call_id(c), "content": result_text(c)})
    return out


# -- Messages --------------------------------------------------------------------------------------


def messages_history(messages: list[Message]) -> list[dict[str, Any]]:
    """Alternating user/assistant messages; tool results open the following user message."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "user":
            _append_user_blocks(out, messages_blocks(message.text, message.attachments))
            continue
        blocks = assistant_blocks(message)
        if not blocks:
            continue
        out.append({"role": "assistant", "content": blocks})
        results = [_tool_result_block(c) for c in sendable_calls(message.turn)]
        if results:
            out.append({"role": "user", "content": results})
    return out


def assistant_blocks(message: Message) -> list[dict[str, Any]]:
    turn = message.turn
    blocks: list[dict[str, Any]] = []
    if turn is not None:
        # A thinking block goes back only with its signature (even an empty one): without it
        # the provider cannot verify the block and rejects the request.
        if turn.reasoning and turn.reasoning_signature is not None:
            blocks.append(
                {
                    "type": "thinking",
                    "thinking": turn.reasoning,
                    "signature": turn.reasoning_signature,
                }
            )
        blocks.extend({"type": "redacted_thinking", "data": d} for d in turn.redacted_reasoning)
    text = _assistant_text(message)
    if text:
        blocks.append({"type": "text", "text": text})
    for c in sendable_calls(turn):
        blocks.append({"type": "tool_use", "id": call_id(c), "name": c.name, "input": _input(c)})
    has_answer = any(b["type"] in ("text", "tool_use") for b in blocks)
    return blocks if has_answer else []


def _tool_result_block(call: ToolCall) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": call_id(call),
        "content": result_text(call),
    }
    if call.result is not None and call.result.is_error:
        block["is_error"] = True
    return block


def _input(call: ToolCall) -> dict[str, Any]:
    """Messages wants the input as an object; arguments that are not one are sent as {}."""
    try:
        value = json.loads(call_arguments(call))
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _append_user_blocks(out: list[dict[str, Any]], blocks: list[dict[str, Any]]) -> None:
    if out and out[-1]["role"] == "user":
        out[-1]["content"] = [*out[-1]["content"], *blocks]
    else:
        out.append({"role": "user", "content": blocks})


# -- Responses -------------------------------------------------------------------------------------


def responses_input(messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "user":
            content: str | list[dict[str, Any]] = message.text
            if message.attachments:
                content = responses_content(message.text, message.attachments)
            out.append({"type": "message", "role": "user", "content": content})
            continue
        text = _assistant_text(message)
        calls = sendable_calls(message.turn)
        if text:
            out.append({"type": "message", "role": "assistant", "content": text})
        for c in calls:
            out.append(
                {
                    "type": "function_call",
                    "call_id": call_id(c),
                    "name": c.name,
                    "arguments": call_arguments(c),
                }
            )
        for c in calls:
            out.append(
                {"type": "function_call_output", "call_id": call_id(c), "output": result_text(c)}
            )
    return out


__all__ = [
    "ANTHROPIC_VERSION",
    "ENDPOINTS",
    "TOOL_NOT_RUN",
    "ProviderRequest",
    "build_body",
    "build_request",
    "deep_merge",
    "endpoint_url",
    "request_headers",
    "tool_specs",
]
