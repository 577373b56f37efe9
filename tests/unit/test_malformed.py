"""Broken input ends a turn as failed or interrupted with the text so far — nothing escapes."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.wire import Api, StreamEngine, TurnStatus, decode_bytes
from app.wire.events import StreamError, TextDelta

CHAT_TEXT = b'data: {"choices":[{"index":0,"delta":{"content":"kept"}}]}\n\n'
CHAT_LATE = b'data: {"choices":[{"index":0,"delta":{"content":" late"}}]}\n\ndata: [DONE]\n\n'
MESSAGES_TEXT = (
    b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    b'"delta":{"type":"text_delta","text":"kept"}}\n\n'
)
RESPONSES_TEXT = (
    b'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",'
    b'"output_index":0,"content_index":0,"delta":"kept"}\n\n'
)
TEXT = {Api.CHAT: CHAT_TEXT, Api.MESSAGES: MESSAGES_TEXT, Api.RESPONSES: RESPONSES_TEXT}
APIS = pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])


@APIS
@pytest.mark.parametrize(
    "payload",
    [
        b"{not json",
        b'{"a": 1',
        b'{"a": 1} {"b": 2}',
        b'{"a": 1}\ndata: {"b": 2}',
        b"[1, 2]",
        b'"text"',
        b"42",
        b"null",
        b"[" * 100_000,
        b'{"a":' * 100_000,
    ],
    ids=[
        "garbage",
        "cut",
        "two-objects",
        "two-lines",
        "array",
        "string",
        "number",
        "null",
        "deeply-nested-array",
        "deeply-nested-object",
    ],
)
def test_a_payload_that_is_not_a_json_object_fails_the_turn_and_stops_reading(
    api: Api, payload: bytes
) -> None:
    body = TEXT[api] + b"data: " + payload + b"\n\n" + CHAT_LATE
    turn = decode_bytes(api, [body])
    assert turn.status is TurnStatus.FAILED
    assert turn.error is not None
    assert turn.error.code == "malformed_stream"
    assert turn.text == "kept"


def test_a_number_too_long_for_python_is_malformed_not_a_crash() -> None:
    body = CHAT_TEXT + b'data: {"usage":{"prompt_tokens":' + b"9" * 5000 + b"}}\n\n"
    turn = decode_bytes(Api.CHAT, [body])
    assert turn.error is not None
    assert turn.error.code == "malformed_stream"
    assert turn.text == "kept"


def chunk(**delta: object) -> bytes:
    return b"data: " + json.dumps({"choices": [{"index": 0, "delta": delta}]}).encode() + b"\n\n"


@pytest.mark.parametrize(
    "odd",
    [
        chunk(content=5),
        chunk(content={"x": 1}),
        chunk(reasoning_content=["a", 1]),
        chunk(refusal=7),
        chunk(tool_calls="call"),
        chunk(tool_calls=[1, None, {"index": "0", "function": "f"}]),
        chunk(tool_calls=[{"index": 0, "id": 12, "function": {"name": ["f"], "arguments": 3}}]),
        b'data: {"choices":"abc"}\n\n',
        b'data: {"choices":[1,"x",null]}\n\n',
        b'data: {"choices":[{"index":0,"delta":"text"}]}\n\n',
        b'data: {"usage":"lots"}\n\n',
        b'data: {"usage":{"prompt_tokens":"3","completion_tokens":NaN}}\n\n',
        b'data: {"x_groq":7}\n\n',
        b'data: {"choices":[{"index":0,"delta":{"sources":{"url":5}}}]}\n\n',
    ],
)
def test_chat_fields_of_an_unexpected_type_are_ignored(odd: bytes) -> None:
    turn = decode_bytes(Api.CHAT, [CHAT_TEXT + odd + CHAT_LATE])
    assert turn.status is TurnStatus.COMPLETE, turn.error
    assert turn.text.startswith("kept")
    assert turn.text.endswith(" late")
    assert all(isinstance(c.id, str) and isinstance(c.name, str) for c in turn.tool_calls)


MESSAGES_END = b'event: message_stop\ndata: {"type":"message_stop"}\n\n'


@pytest.mark.parametrize(
    "odd",
    [
        {"type": "content_block_delta", "index": "a", "delta": {"type": "text_delta", "text": 5}},
        {"type": "content_block_delta", "index": 0, "delta": "text"},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta"}},
        {"type": "content_block_delta", "delta": {"type": "input_json_delta", "partial_json": 1}},
        {"type": "content_block_start", "index": 1, "content_block": "text"},
        {"type": "content_block_start", "index": 2, "content_block": {"type": 5}},
        {"type": "content_block_start", "content_block": {"type": "tool_use", "id": {}, "name": 1}},
        {"type": "message_start", "message": "m"},
        {"type": "message_start", "message": {"usage": [1]}},
        {"type": "message_delta", "delta": [], "usage": "u"},
        {"type": 17},
    ],
)
def test_messages_fields_of_an_unexpected_type_are_ignored(odd: dict[str, object]) -> None:
    body = MESSAGES_TEXT + b"data: " + json.dumps(odd).encode() + b"\n\n" + MESSAGES_END
    turn = decode_bytes(Api.MESSAGES, [body])
    assert turn.status is TurnStatus.COMPLETE, turn.error
    assert turn.text == "kept"
    assert all(isinstance(c.id, str) and isinstance(c.name, str) for c in turn.tool_calls)


RESPONSES_END = (
    b'event: response.completed\ndata: {"type":"response.completed","response":'
    b'{"status":"completed"}}\n\n'
)


@pytest.mark.parametrize(
    "odd",
    [
        {"type": "response.output_text.delta", "output_index": "x", "delta": 5},
        {"type": "response.output_item.added", "item": "item"},
        {
            "type": "response.output_item.done",
            "output_index": 3,
            "item": {"type": "message", "content": "abc"},
        },
        {"type": "response.function_call_arguments.delta", "item_id": 4, "delta": ["x"]},
        {"type": "response.reasoning_summary_text.delta", "summary_index": "a", "delta": None},
        {"type": "response.output_text.annotation.added", "annotation": "http://x"},
        {"type": "response.content_part.done", "part": 5},
    ],
)
def test_responses_fields_of_an_unexpected_type_are_ignored(odd: dict[str, object]) -> None:
    body = RESPONSES_TEXT + b"data: " + json.dumps(odd).encode() + b"\n\n" + RESPONSES_END
    turn = decode_bytes(Api.RESPONSES, [body])
    assert turn.status is TurnStatus.COMPLETE, turn.error
    assert turn.text.startswith("kept")
    assert all(isinstance(c.id, str) for c in turn.tool_calls)


@pytest.mark.parametrize(
    "completed",
    [{"status": 5, "usage": "u", "output": "o"}, {"output": [1, None, {"type": "message"}]}, "r"],
)
def test_a_final_response_of_an_unexpected_shape_still_completes(completed: object) -> None:
    end = json.dumps({"type": "response.completed", "response": completed}).encode()
    turn = decode_bytes(Api.RESPONSES, [RESPONSES_TEXT + b"data: " + end + b"\n\n"])
    assert turn.status is TurnStatus.COMPLETE
    assert turn.text == "kept"


@APIS
def test_a_stray_byte_line_between_events_is_harmless(api: Api) -> None:
    turn = decode_bytes(api, [TEXT[api] + b"\xff\x00\x80\n\n" + TEXT[api]])
    assert turn.status is TurnStatus.INTERRUPTED  # no terminal event, and no error either
    assert turn.text == "keptkept"


@APIS
def test_an_oversized_event_fails_the_turn_and_keeps_the_text(api: Api) -> None:
    huge = b"data: " + b"x" * 5000 + b"\n\n"
    for pieces in ([TEXT[api] + huge], [bytes([b]) for b in TEXT[api] + huge]):
        turn = decode_bytes(api, pieces, max_event_bytes=4096)
        assert turn.status is TurnStatus.FAILED
        assert turn.error is not None
        assert turn.error.code == "event_too_large"
        assert "4,096" in turn.error.message
        assert turn.text == "kept"


def test_a_terminal_event_before_an_oversized_one_completes() -> None:
    body = CHAT_TEXT + b"data: [DONE]\n\n" + b"data: " + b"x" * 5000 + b"\n\n"
    turn = decode_bytes(Api.CHAT, [body], max_event_bytes=4096)
    assert turn.status is TurnStatus.COMPLETE


def test_deeply_nested_tool_arguments_are_invalid_json_not_a_crash() -> None:
    call = {"index": 0, "id": "c", "function": {"name": "f", "arguments": "[" * 100_000}}
    turn = decode_bytes(Api.CHAT, [chunk(tool_calls=[call]) + b"data: [DONE]\n\n"])
    assert turn.status is TurnStatus.COMPLETE
    assert turn.tool_calls[0].invalid_json


def test_the_engine_reads_nothing_after_it_is_done() -> None:
    engine = StreamEngine(Api.CHAT)
    assert engine.feed(CHAT_TEXT + b'data: {"error":{"message":"x"}}\n\n') == [
        TextDelta("kept"),
        StreamError(None, "x"),
    ]
    assert engine.done
    assert engine.feed(CHAT_LATE) == []
    assert engine.close() == []


@settings(max_examples=300, deadline=None)
@given(
    api=st.sampled_from(list(Api)),
    prefix=st.sampled_from([b"", CHAT_TEXT, MESSAGES_TEXT, RESPONSES_TEXT]),
    noise=st.binary(max_size=300)
    | st.lists(
        st.sampled_from(
            [
                b"data: ",
                b"event: ",
                b"\n",
                b"\r",
                b":",
                b"{",
                b"}",
                b'"',
                b"[DONE]",
                b'{"type":"error"}',
                b'{"choices":[',
                b"\xef\xbb\xbf",
                b"\xff",
            ]
        ),
        max_size=60,
    ).map(b"".join),
    cuts=st.lists(st.integers(0, 400), max_size=10),
)
def test_arbitrary_bytes_never_raise(
    api: Api, prefix: bytes, noise: bytes, cuts: list[int]
) -> None:
    body = prefix + noise
    bounds = [0, *sorted(c for c in cuts if c <= len(body)), len(body)]
    turn = decode_bytes(api, [body[a:b] for a, b in itertools.pairwise(bounds)])
    assert turn.status in (TurnStatus.COMPLETE, TurnStatus.FAILED, TurnStatus.INTERRUPTED)
    assert isinstance(turn.text, str)
    assert isinstance(turn.reasoning, str)
