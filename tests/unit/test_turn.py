"""The turn accumulator: folding events and settling an honest status."""

from __future__ import annotations

import pytest

from app.wire import Turn, TurnStatus
from app.wire.events import (
    END_OF_STREAM,
    KEEPALIVE,
    Finish,
    ReasoningDelta,
    ReasoningSignature,
    RedactedReasoning,
    Source,
    Sources,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)


def folded(*events: object) -> Turn:
    turn = Turn()
    turn.apply_all(list(events))  # type: ignore[arg-type]
    return turn


def test_text_and_reasoning_are_kept_as_parts() -> None:
    turn = folded(ReasoningDelta("a"), ReasoningDelta("b"), TextDelta("c"), TextDelta("d"))
    assert turn.reasoning_parts == ["a", "b"]
    assert turn.reasoning == "ab"
    assert turn.text == "cd"
    assert turn.status is TurnStatus.STREAMING
    assert not turn.done


@pytest.mark.parametrize(
    ("events", "stopped", "status"),
    [
        ([END_OF_STREAM], False, TurnStatus.COMPLETE),
        ([Finish("stop")], False, TurnStatus.INTERRUPTED),  # a finish word is not the end
        ([], False, TurnStatus.INTERRUPTED),
        ([StreamError("x", "boom")], False, TurnStatus.FAILED),
        ([StreamError("x", "boom"), END_OF_STREAM], False, TurnStatus.FAILED),
        ([END_OF_STREAM, StreamError("x", "boom")], False, TurnStatus.FAILED),
        ([StreamError("x", "boom")], True, TurnStatus.STOPPED),
        ([END_OF_STREAM], True, TurnStatus.STOPPED),
    ],
)
def test_status_precedence(events: list[object], stopped: bool, status: TurnStatus) -> None:
    turn = folded(TextDelta("kept"), *events)
    assert turn.end(stopped=stopped) is status
    assert turn.status is status
    assert turn.text == "kept"


def test_end_settles_once() -> None:
    turn = folded(TextDelta("a"))
    assert turn.end(reason="connection reset") is TurnStatus.INTERRUPTED
    assert turn.interruption == "connection reset"
    assert turn.end(stopped=True) is TurnStatus.INTERRUPTED
    assert turn.interruption == "connection reset"


def test_an_http_error_before_the_stream_fails_the_turn() -> None:
    turn = Turn()
    turn.fail("rate_limit_exceeded", "slow down")
    assert turn.end() is TurnStatus.FAILED
    assert turn.error == StreamError("rate_limit_exceeded", "slow down")


def test_the_first_error_is_the_one_kept() -> None:
    turn = folded(StreamError("first", "a"), StreamError("second", "b"))
    turn.fail("third", "c")
    assert turn.error == StreamError("first", "a")


def test_usage_replaces_field_by_field_and_null_never_erases() -> None:
    turn = folded(Usage(99, 1, 7), Usage(None, 42, None))
    assert turn.usage == Usage(99, 42, 7)
    turn.apply(Usage(None, None, None))
    assert turn.usage == Usage(99, 42, 7)
    turn.apply(Usage(100, 43, 8))
    assert turn.usage == Usage(100, 43, 8)


def test_tool_call_id_and_name_are_taken_once() -> None:
    turn = folded(
        ToolCallStart(0, "", ""),
        ToolCallStart(0, "call_1", "f"),
        ToolCallStart(0, "call_1", "f"),
        ToolCallStart(0, "other", "g"),
        ToolCallArgsDelta(0, '{"a":'),
        ToolCallArgsDelta(0, "1}"),
    )
    (call,) = turn.tool_calls
    assert (call.id, call.name, call.arguments) == ("call_1", "f", '{"a":1}')
    assert not call.closed
    turn.apply(ToolCallEnd(0))
    assert call.closed
    assert call.value == {"a": 1}
    assert not call.invalid_json


def test_an_authoritative_argument_string_replaces_the_deltas() -> None:
    turn = folded(ToolCallStart(3, "c", "f"), ToolCallArgsDelta(3, '{"a":'), ToolCallEnd(3, "{}"))
    assert turn.calls[3].arguments == "{}"
    assert turn.calls[3].value == {}


def test_a_second_end_does_not_reopen_or_replace() -> None:
    turn = folded(ToolCallStart(0, "c", "f"), ToolCallArgsDelta(0, "{}"), ToolCallEnd(0))
    turn.apply(ToolCallEnd(0, '{"late": true}'))
    assert turn.calls[0].arguments == "{}"


@pytest.mark.parametrize(
    ("parts", "value", "invalid"),
    [
        ([], {}, False),
        (["  "], {}, False),
        (['{"a": tr'], None, True),
        (["[" * 50_000], None, True),
    ],
)
def test_argument_parsing(parts: list[str], value: object, invalid: bool) -> None:
    turn = folded(ToolCallStart(0, "c", "f"), *(ToolCallArgsDelta(0, p) for p in parts))
    turn.end()
    assert turn.calls[0].closed
    assert turn.calls[0].value == value
    assert turn.calls[0].invalid_json is invalid


def test_end_closes_calls_left_open() -> None:
    turn = folded(ToolCallStart(0, "c", "f"), ToolCallArgsDelta(0, '{"x": 1}'))
    turn.end()
    assert turn.calls[0].closed
    assert turn.calls[0].value == {"x": 1}


def test_arguments_for_a_call_never_started_still_land_somewhere() -> None:
    turn = folded(ToolCallArgsDelta(5, "{}"), ToolCallEnd(5))
    assert turn.calls[5].arguments == "{}"


def test_signature_replaces_and_redacted_blocks_accumulate() -> None:
    turn = folded(
        ReasoningSignature("one"),
        ReasoningSignature("two"),
        RedactedReasoning("r1"),
        RedactedReasoning("r2"),
    )
    assert turn.reasoning_signature == "two"
    assert turn.redacted_reasoning == ["r1", "r2"]


def test_sources_are_deduplicated_by_url() -> None:
    a, b = Source("https://a", "A"), Source("https://b")
    turn = folded(Sources((a, b)), Sources((Source("https://a", "again"),)))
    assert turn.sources == [a, b]


def test_keepalives_are_counted_and_finish_details_kept() -> None:
    turn = folded(KEEPALIVE, KEEPALIVE, Finish("incomplete", "max_output_tokens"), Finish("stop"))
    assert turn.keepalives == 2
    assert turn.finish_reason == "stop"
    assert turn.finish_detail == "max_output_tokens"
