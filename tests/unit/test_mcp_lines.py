"""Fuzzing what an MCP stdio server writes (app/tools/mcp_stdio.py): any bytes, split anyhow,
give the same lines; any line is a message, a one-line reason it is none, or nothing, never an
exception; a reason answers only the request it names, or else every one waiting."""

from __future__ import annotations

import itertools
import json
from typing import Any

import mcp_types as types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.shared.message import SessionMessage

from app.tools.mcp_stdio import (
    LineSplitter,
    Malformed,
    StderrTail,
    TooLong,
    _Waiting,
    read_message,
)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
ids = st.integers(-3, 5) | st.sampled_from(["1", "x", ""]) | st.none() | st.booleans()
rpc_like = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0", 2]),
        "id": ids,
        "method": st.sampled_from(["tools/call", "ping", "notifications/progress", ""]) | st.none(),
        "params": json_values,
        "result": json_values,
        "error": json_values
        | st.fixed_dictionaries({"code": st.integers(-32800, 0), "message": st.text(max_size=20)}),
    },
)
tokens = st.lists(
    st.sampled_from(
        [
            b"{",
            b"}",
            b"[",
            b"]",
            b'"',
            b":",
            b",",
            b"\\ud83d",
            b"\\udc00",
            b"\\u",
            b"\xff",
            b"\xed\xa0\xbd",
            b"null",
            b"1e999999",
            b"9" * 30,
            b'"jsonrpc":"2.0"',
            b'"id":1',
            b'"result":',
            b"\r",
            b" ",
        ]
    ),
    max_size=60,
).map(b"".join)
lines = (
    st.binary(max_size=300)
    | tokens
    | rpc_like.map(lambda v: json.dumps(v).encode())
    | st.lists(rpc_like, max_size=3).map(lambda v: json.dumps(v).encode())
    | st.integers(1, 400).map(lambda n: b"[" * n + b"]" * n)
)


@st.composite
def pieces_of(draw: st.DrawFn, body: bytes) -> list[bytes]:
    cuts = draw(st.lists(st.integers(0, len(body)), max_size=30))
    bounds = [0, *sorted(cuts), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


def split_all(pieces: list[bytes], limit: int) -> list[bytes | TooLong]:
    splitter = LineSplitter(limit)
    out = [line for piece in pieces for line in splitter.feed(piece)]
    return out + splitter.close()


@SETTINGS
@given(data=st.data(), body=st.binary(max_size=400), limit=st.integers(0, 64))
def test_any_split_gives_the_same_lines_and_a_long_one_is_only_counted(
    data: st.DataObject, body: bytes, limit: int
) -> None:
    pieces = data.draw(pieces_of(body))
    expected: list[bytes | TooLong] = [
        line if len(line) <= limit else TooLong(len(line)) for line in body.split(b"\n")
    ]
    if expected and expected[-1] == b"":
        expected.pop()  # nothing after the last newline: no last line
    assert split_all(pieces, limit) == expected


@SETTINGS
@given(line=lines)
def test_any_line_is_a_message_a_one_line_reason_or_nothing(line: bytes) -> None:
    read = read_message(line)
    if isinstance(read, Malformed):
        assert read.why
        assert "\n" not in read.why
        assert len(read.why) <= 300
        assert read.answers is None or isinstance(read.answers, str | int)
    else:
        assert read is None or isinstance(read, SessionMessage)
    assert read is not None or not line.strip(b" \t\r\n")  # JSON's whitespace alone


@SETTINGS
@given(line=lines, waiting=st.lists(st.integers(1, 5), unique=True, max_size=3))
def test_a_malformed_line_answers_what_it_names_or_every_request_waiting(
    line: bytes, waiting: list[int]
) -> None:
    requests = _Waiting()
    for request_id in waiting:
        requests.sent(types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/call"))
    read = read_message(line)
    if not isinstance(read, Malformed):
        return
    answered = requests.answered_by(read)
    if read.answers is None:
        assert sorted(answered) == sorted(waiting)
    else:
        assert len(answered) <= 1
        assert set(answered) <= set(waiting)
    assert requests.answered_by(read) == []  # each request is answered once


@SETTINGS
@given(request_id=st.integers(0, 10**6) | st.text(max_size=10), result=json_values)
def test_a_proper_answer_reads_as_itself(request_id: int | str, result: Any) -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"value": result}})
    read = read_message(line.encode())
    assert isinstance(read, SessionMessage)
    assert isinstance(read.message, types.JSONRPCResponse)
    assert read.message.id == request_id


@SETTINGS
@given(pieces=st.lists(st.binary(max_size=50), max_size=40), limit=st.integers(1, 64))
def test_stderr_keeps_a_bounded_tail_of_exactly_the_last_bytes(
    pieces: list[bytes], limit: int
) -> None:
    tail = StderrTail(limit)
    for piece in pieces:
        tail.add(piece)
        assert len(tail.data) <= 2 * limit + len(piece)
    written = b"".join(pieces)
    assert tail.text() == (written[-limit:].decode("utf-8", "replace") if written else "")
    assert tail.cut == (len(written) > limit)


def test_a_line_far_past_the_limit_keeps_nothing_of_it() -> None:
    splitter = LineSplitter(1024)
    block = b"x" * 65536
    for _ in range(1024):  # 64 MiB without a newline
        assert splitter.feed(block) == []
    assert splitter.feed(b"\n{}\n") == [TooLong(64 * 1024 * 1024), b"{}"]
