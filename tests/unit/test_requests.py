"""Request bodies and headers per format, built from conversations with real decoded turns."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from app.demo.frames import Answer, ToolUse, frames
from app.providers.requests import (
    ANTHROPIC_VERSION,
    TOOL_NOT_RUN,
    build_request,
    deep_merge,
    endpoint_url,
    request_headers,
)
from app.settings.config import ProviderConfig
from app.wire.conversation import Conversation
from app.wire.engine import Api, decode_bytes
from app.wire.events import ReasoningDelta, TextDelta, ToolCallArgsDelta, ToolCallStart
from app.wire.turn import Turn

KEY = "sk-test-1234567890"
WEATHER = ToolUse("get_weather", ('{"city": ', '"Paris"}'), id="call_w1")


def provider(api: Api, **changes: object) -> ProviderConfig:
    base = ProviderConfig(name="p", api=api, base_url="https://example.test/v1/", model="m-1")
    return replace(base, **changes)  # type: ignore[arg-type]


def answered(api: Api, answer: Answer) -> Turn:
    """A turn exactly as the client would have folded it from the wire."""
    return decode_bytes(api, frames(api, answer))


def conversation(*turns: tuple[str, Turn | None], system: str | None = "Be brief.") -> Conversation:
    conv = Conversation(system=system)
    for user, turn in turns:
        conv.add_user(user)
        if turn is not None:
            conv.add_assistant(turn)
    return conv


# -- endpoints and headers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("api", "path"),
    [(Api.CHAT, "/chat/completions"), (Api.MESSAGES, "/messages"), (Api.RESPONSES, "/responses")],
)
def test_endpoint_strips_trailing_slash(api: Api, path: str) -> None:
    assert endpoint_url(provider(api)) == "https://example.test/v1" + path


@pytest.mark.parametrize("api", [Api.CHAT, Api.RESPONSES])
def test_bearer_auth_for_chat_and_responses(api: Api) -> None:
    headers = request_headers(provider(api), KEY)
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert headers["Accept"] == "text/event-stream"
    assert "x-api-key" not in headers


def test_messages_auth_and_version() -> None:
    headers = request_headers(provider(Api.MESSAGES), KEY)
    assert headers["x-api-key"] == KEY
    assert headers["anthropic-version"] == ANTHROPIC_VERSION == "2023-06-01"
    assert "Authorization" not in headers
    assert headers["Accept"] == "text/event-stream"


def test_no_key_sends_no_auth_and_provider_headers_win() -> None:
    extra = {"X-Title": "Triptych", "anthropic-version": "2024-01-01"}
    headers = request_headers(provider(Api.MESSAGES, headers=extra), None)
    assert "x-api-key" not in headers
    assert headers["X-Title"] == "Triptych"
    assert headers["anthropic-version"] == "2024-01-01"
    assert "Authorization" not in request_headers(provider(Api.CHAT), None)


# -- bodies ------------------------------------------------------------------------------------


def test_chat_body_has_system_message_and_stream() -> None:
    request = build_request(provider(Api.CHAT), conversation(("hi", None)), KEY)
    assert request.method == "POST"
    assert request.url == "https://example.test/v1/chat/completions"
    assert request.body == {
        "model": "m-1",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hi"},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},  # OpenAI and Antara send no usage without
    }


def test_chat_usage_request_can_be_turned_off_or_overridden_by_params() -> None:
    off = build_request(provider(Api.CHAT, include_usage=False), conversation(("hi", None)), KEY)
    assert "stream_options" not in off.body
    params = {"stream_options": {"include_usage": False}}
    mine = build_request(provider(Api.CHAT, params=params), conversation(("hi", None)), KEY)
    assert mine.body["stream_options"] == {"include_usage": False}
    for api in (Api.MESSAGES, Api.RESPONSES):  # their usage comes anyway; the field is chat's
        assert (
            "stream_options"
            not in build_request(provider(api), conversation(("hi", None)), KEY).body
        )


def test_messages_body_keeps_system_apart_and_sets_max_tokens() -> None:
    request = build_request(provider(Api.MESSAGES, max_tokens=777), conversation(("hi", None)), KEY)
    body = request.body
    assert body["system"] == "Be brief."
    assert body["max_tokens"] == 777
    assert body["stream"] is True
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def test_responses_body_uses_input_and_instructions() -> None:
    request = build_request(provider(Api.RESPONSES), conversation(("hi", None)), KEY)
    assert request.body == {
        "model": "m-1",
        "input": [{"type": "message", "role": "user", "content": "hi"}],
        "stream": True,
        "instructions": "Be brief.",
    }


def test_no_system_means_no_system_field() -> None:
    conv = conversation(("hi", None), system=None)
    assert build_request(provider(Api.CHAT), conv, None).body["messages"][0]["role"] == "user"
    assert "system" not in build_request(provider(Api.MESSAGES), conv, None).body
    assert "instructions" not in build_request(provider(Api.RESPONSES), conv, None).body


def test_params_deep_merge_and_model_override_and_stream_stays_on() -> None:
    params = {
        "stream_options": {"include_usage": True},
        "reasoning": {"effort": "high"},
        "temperature": 0.2,
        "stream": False,
    }
    p = provider(Api.CHAT, params=params)
    body = build_request(p, conversation(("hi", None)), KEY, model="m-2").body
    assert body["model"] == "m-2"
    assert body["stream_options"] == {"include_usage": True}
    assert body["reasoning"] == {"effort": "high"}
    assert body["temperature"] == 0.2
    assert body["stream"] is True


def test_deep_merge_merges_nested_dicts_without_mutating() -> None:
    base = {"a": {"x": 1, "y": {"k": 1}}, "b": [1]}
    override = {"a": {"y": {"j": 2}, "z": 3}, "b": [2]}
    before = copy.deepcopy((base, override))
    assert deep_merge(base, override) == {"a": {"x": 1, "y": {"k": 1, "j": 2}, "z": 3}, "b": [2]}
    assert (base, override) == before


# -- history -----------------------------------------------------------------------------------


def test_chat_history_sends_kimi_reasoning_content_back() -> None:
    turn = answered(Api.CHAT, Answer(text=("It is ", "3600."), reasoning=("60 x ", "60")))
    conv = conversation(("seconds per hour?", turn), ("and per day?", None))
    messages = build_request(provider(Api.CHAT), conv, KEY).body["messages"]
    assert messages[2] == {
        "role": "assistant",
        "content": "It is 3600.",
        "reasoning_content": "60 x 60",
    }
    assert messages[3] == {"role": "user", "content": "and per day?"}


def test_chat_history_tool_call_then_results_then_user() -> None:
    turn = answered(Api.CHAT, Answer(text=("Checking.",), tool=WEATHER))
    conv = conversation(("weather?", turn), ("thanks", None))
    messages = build_request(provider(Api.CHAT), conv, KEY).body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "user"]
    assert messages[2]["tool_calls"] == [
        {
            "id": "call_w1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        }
    ]
    assert messages[3] == {"role": "tool", "tool_call_id": "call_w1", "content": TOOL_NOT_RUN}


@pytest.mark.parametrize("api", list(Api))
def test_conversation_ending_with_a_tool_call_answers_every_call(api: Api) -> None:
    turn = answered(api, Answer(tool=WEATHER))
    conv = conversation(("weather?", turn))
    body = build_request(provider(api), conv, KEY).body
    if api is Api.CHAT:
        assert body["messages"][-1] == {
            "role": "tool",
            "tool_call_id": "call_w1",
            "content": TOOL_NOT_RUN,
        }
        assert body["messages"][-2]["content"] is None
    elif api is Api.MESSAGES:
        assert body["messages"][-1] == {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_w1", "content": TOOL_NOT_RUN}],
        }
    else:
        assert body["input"][-2:] == [
            {
                "type": "function_call",
                "call_id": "call_w1",
                "name": "get_weather",
                "arguments": '{"city": "Paris"}',
            },
            {"type": "function_call_output", "call_id": "call_w1", "output": TOOL_NOT_RUN},
        ]


def test_messages_history_returns_thinking_unchanged_with_signature() -> None:
    turn = answered(
        Api.MESSAGES,
        Answer(text=("Sure.",), reasoning=("Let me ", "see."), tool=WEATHER, signature="sig=="),
    )
    conv = conversation(("weather?", turn), ("thanks", None))
    messages = build_request(provider(Api.MESSAGES), conv, KEY).body["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Let me see.", "signature": "sig=="},
            {"type": "text", "text": "Sure."},
            {
                "type": "tool_use",
                "id": "call_w1",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
        ],
    }
    # The tool result opens the next user message, before the user's words.
    assert messages[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "call_w1", "content": TOOL_NOT_RUN},
            {"type": "text", "text": "thanks"},
        ],
    }
    assert len(messages) == 3


def test_messages_history_keeps_redacted_thinking_and_drops_unsigned_thinking() -> None:
    turn = Turn()
    turn.apply_all([ReasoningDelta("half a thought"), TextDelta("Hi.")])
    turn.redacted_reasoning.append("opaque-data")
    turn.end(stopped=True)
    conv = conversation(("hi", turn), ("again", None))
    blocks = build_request(provider(Api.MESSAGES), conv, KEY).body["messages"][1]["content"]
    assert blocks == [
        {"type": "redacted_thinking", "data": "opaque-data"},
        {"type": "text", "text": "Hi."},
    ]


def test_empty_failed_turn_is_skipped_and_users_merge_for_messages() -> None:
    failed = Turn()
    failed.fail("http_500", "HTTP 500")
    failed.end()
    conv = conversation(("one", failed), ("two", None))
    chat = build_request(provider(Api.CHAT), conv, KEY).body["messages"]
    assert [m["role"] for m in chat] == ["system", "user", "user"]
    messages = build_request(provider(Api.MESSAGES), conv, KEY).body["messages"]
    assert messages == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
        }
    ]


def test_a_cut_tool_call_is_not_sent_back() -> None:
    turn = Turn()
    turn.apply_all([TextDelta("Let me"), ToolCallStart(0, "c1", "f"), ToolCallArgsDelta(0, '{"a')])
    turn.end(reason="cut")
    assert turn.tool_calls[0].invalid_json
    conv = conversation(("go", turn), ("again", None))
    chat = build_request(provider(Api.CHAT), conv, KEY).body["messages"]
    assert chat[2] == {"role": "assistant", "content": "Let me"}
    responses = build_request(provider(Api.RESPONSES), conv, KEY).body["input"]
    assert [item["type"] for item in responses] == ["message", "message", "message"]


def test_responses_history_shape() -> None:
    turn = answered(Api.RESPONSES, Answer(text=("Hello", " there")))
    conv = conversation(("hi", turn), ("more", None))
    assert build_request(provider(Api.RESPONSES), conv, KEY).body["input"] == [
        {"type": "message", "role": "user", "content": "hi"},
        {"type": "message", "role": "assistant", "content": "Hello there"},
        {"type": "message", "role": "user", "content": "more"},
    ]


def test_the_turn_being_filled_is_left_out() -> None:
    conv = conversation(("hi", None))
    live = Turn()
    conv.add_assistant(live)
    body = build_request(provider(Api.CHAT), conv, KEY, exclude=live).body
    assert body["messages"][-1] == {"role": "user", "content": "hi"}


def test_assistant_message_without_a_turn_uses_its_text() -> None:
    conv = conversation(("hi", None))
    conv.messages.append(replace(conv.messages[0], role="assistant", text="from history"))
    conv.add_user("next")
    body = build_request(provider(Api.MESSAGES), conv, KEY).body
    assert body["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "from history"}],
    }
