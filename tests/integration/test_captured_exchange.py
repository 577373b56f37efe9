"""The data behind the inspector: every answer's exchange is captured as it streams
(the redacted request, the response, every frame with its time and the events decoded from it,
the raw reads), kept with the answer in the history, written as a recording, exported only with
`--raw`. Streamed over loopback from the fake provider; bad input is kept as it came."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from app import cli
from app.demo.loopback import Reply, Send
from app.providers.client import ProviderClient
from app.providers.kept_stream import pack, unpack
from app.providers.record import read_recording, write_recording
from app.store import Store
from app.store.session import History
from app.wire import decode_bytes
from app.wire.conversation import Conversation
from app.wire.engine import Api
from app.wire.events import EndOfStream, Keepalive, ReasoningDelta, TextDelta, Usage
from app.wire.exchange import CapturedExchange
from app.wire.turn import Turn, TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import SSE, FakeProvider

KEY = "sk-capture-SECRET-0123456789abcdef"


def answer(
    server: FakeProvider, api: Api = Api.CHAT, *, key: str | None = None, keep: int | None = None
) -> Turn:
    async def go() -> Turn:
        extra = {} if keep is None else {"keep_stream": keep}
        client = ProviderClient(server.provider(api), key, **extra)
        conversation = Conversation()
        conversation.add_user("hi")
        try:
            return await client.stream(conversation, Turn())
        finally:
            await client.aclose()

    return asyncio.run(go())


def raw_reply(body: bytes) -> Reply:
    return Reply(200, SSE, (Send(body),))


def captured(turn: Turn) -> CapturedExchange:
    assert turn.exchange is not None
    return turn.exchange


@pytest.mark.parametrize("api", list(Api))
def test_every_frame_in_order_with_its_time_and_what_it_produced(api: Api) -> None:
    with FakeProvider() as server:
        server.push(fake.silence_with_keepalives(api, 2, 0.05))
        turn = answer(server, api)
        sent = server.requests[0]
    exchange = captured(turn)
    assert turn.status is TurnStatus.COMPLETE
    request = exchange.request
    assert (request.method, request.body["model"]) == ("POST", "m-1")
    assert request.url == server.url + {"chat": "/chat/completions"}.get(api.value, f"/{api.value}")
    assert json.loads(sent.body) == request.body  # the body as sent
    assert exchange.status == 200
    assert exchange.headers["content-type"] == "text/event-stream"
    assert exchange.outcome == "done"
    times = [frame.at_ms for frame in exchange.frames]
    assert times == sorted(times)
    assert exchange.response_ms is not None
    assert exchange.response_ms <= times[0]
    # Two silences of 50 ms came before the last keepalive: it cannot have arrived sooner (a
    # lower bound only, which a slow machine cannot break).
    keepalives = [f for f in exchange.frames if Keepalive() in f.events]
    assert len(keepalives) >= 2  # (the Messages answer has a ping of its own)
    assert keepalives[-1].at_ms >= 100
    produced = [event for frame in exchange.frames for event in frame.events]
    assert [e.text for e in produced if type(e) is TextDelta] == ["Hello", ", ", "world", "."]
    assert [e.text for e in produced if type(e) is ReasoningDelta] == ["Thinking", " briefly."]
    assert any(type(e) is Usage for e in produced)
    assert type(produced[-1]) is EndOfStream
    # Every frame points at the read that completed it; the reads are the exact body.
    for frame in exchange.frames:
        assert 0 <= frame.read < len(exchange.reads)
        assert frame.size > len(frame.data)
    assert exchange.raw == b"".join(step.data for step in fake.silence_with_keepalives(
        api, 2, 0.0).steps if isinstance(step, Send))  # fmt: skip
    assert exchange.total_bytes == exchange.kept_bytes == len(exchange.raw)
    assert not exchange.cut


def test_comments_are_frames_too() -> None:
    with FakeProvider() as server:
        server.push(fake.silence_with_keepalives(Api.CHAT, 3, 0.0))
        exchange = captured(answer(server))
    comments = [f for f in exchange.frames if f.is_comment]
    assert [(f.event, f.data, f.size) for f in comments] == [(None, "keepalive", 12)] * 3
    assert all(f.events == (Keepalive(),) for f in comments)


def test_no_secret_reaches_any_part_of_the_exchange() -> None:
    """A server that echoes the key in its headers' echo, text, reasoning and a comment, split
    across reads: the capture holds it nowhere (request, headers, reads, frames, events)."""
    body = (
        f": echo {KEY}\n\n"
        f'data: {{"choices":[{{"index":0,"delta":{{"reasoning_content":"{KEY[:12]}"}}}}]}}\n\n'
        f'data: {{"choices":[{{"index":0,"delta":{{"reasoning_content":"{KEY[12:]}"}}}}]}}\n\n'
        f'data: {{"choices":[{{"index":0,"delta":{{"content":"key {KEY}"}}}}]}}\n\n'
        "data: [DONE]\n\n"
    ).encode()
    pieces = [body[i : i + 9] for i in range(0, len(body), 9)]
    with FakeProvider() as server:
        server.push(Reply(200, (*SSE, ("X-Echo", KEY)), tuple(Send(p) for p in pieces)))
        turn = answer(server, key=KEY)
    exchange = captured(turn)
    assert exchange.request.headers["Authorization"] == "[redacted]"
    everything = " ".join(
        [
            json.dumps(exchange.request.body),
            json.dumps(exchange.headers),
            exchange.raw.decode("utf-8", "replace"),
            *(f.data for f in exchange.frames),
            *(repr(f.events) for f in exchange.frames),
        ]
    )
    assert KEY not in everything
    for start in range(0, len(KEY) - 8):  # no run of 8 characters of it either
        assert KEY[start : start + 8] not in everything
    assert turn.status is TurnStatus.COMPLETE
    assert "[redacted]" in everything


def test_bad_input_is_kept_as_it_came() -> None:
    body = (
        b'data: {"choices":[{"index":0,"delta":{"content":"caf\xe9 \xff"}}]}\n\n'  # not UTF-8
        b"data:\n\n"  # a frame with no data
        b"event: odd\x1b[31mname\x07\n"  # an event name with control characters
        b'data: {"choices":[{"index":0,"delta":{"content":"!"}}]}\n\n'
        b"event: nothing\n\n"  # a block with no data line at all: no frame, the bytes kept
        + b": keepalive\n\n" * 10_000
        + b"data: [DONE]\n\n"
    )
    with FakeProvider() as server:
        server.push(raw_reply(body))
        turn = answer(server)
    exchange = captured(turn)
    assert turn.status is TurnStatus.COMPLETE
    assert exchange.raw == body  # every byte, exactly
    frames = exchange.frames
    assert frames[0].data == '{"choices":[{"index":0,"delta":{"content":"caf\ufffd \ufffd"}}]}'
    assert (frames[1].event, frames[1].data, frames[1].events) == ("", "", (Keepalive(),))
    assert frames[2].event == "odd\x1b[31mname\x07"
    assert frames[2].events == (TextDelta("!"),)
    assert sum(1 for f in frames if f.is_comment) == 10_000
    assert frames[-1].data == "[DONE]"
    assert type(frames[-1].events[-1]) is EndOfStream


def test_past_the_limit_nothing_more_is_kept_and_the_cut_is_counted() -> None:
    body = b"".join(fake.frames(Api.CHAT, fake.ANSWER))
    with FakeProvider() as server:
        server.push(raw_reply(body))
        turn = answer(server, keep=100)
    exchange = captured(turn)
    assert turn.text == "Hello, world."  # the answer itself is never cut
    assert (exchange.kept_bytes, exchange.total_bytes) == (100, len(body))
    assert exchange.cut
    assert exchange.raw == body[:100]
    assert exchange.cut_frames > 0


def test_a_retry_without_stream_options_keeps_the_rejected_exchange() -> None:
    message = "Unrecognized request argument supplied: stream_options"
    with FakeProvider() as server:
        server.push(fake.http_error(Api.CHAT, 400, "invalid_request_error", message))
        server.push(fake.stream(Api.CHAT))
        exchange = captured(answer(server))
    assert "stream_options" not in exchange.request.body
    assert exchange.status == 200
    assert exchange.retried is not None
    assert exchange.retried.status == 400
    assert exchange.retried.request.body["stream_options"] == {"include_usage": True}
    assert b"stream_options" in exchange.retried.raw


def test_a_captured_exchange_is_a_recording_that_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeProvider() as server:
        server.push(fake.stream(Api.MESSAGES))
        exchange = captured(answer(server, Api.MESSAGES, key=KEY))
    path = tmp_path / "saved.jsonl"
    write_recording(path, exchange)
    assert KEY not in path.read_text(encoding="utf-8")
    (recorded,) = read_recording(path)
    assert recorded.body == exchange.raw
    assert recorded.status == 200
    assert recorded.request["headers"]["x-api-key"] == "[redacted]"
    assert decode_bytes(Api.MESSAGES, [recorded.body]).text == "Hello, world."
    assert cli.main(["replay", str(path)]) == 0
    assert "Hello, world." in capsys.readouterr().out


def test_kept_streams_reopen_with_the_same_frames_and_events() -> None:
    with FakeProvider() as server:
        server.push(fake.slow_drip(Api.RESPONSES))
        exchange = captured(answer(server, Api.RESPONSES))
    again = unpack(pack(exchange), Api.RESPONSES)
    assert again.raw == exchange.raw
    assert [(f.event, f.data, f.size, f.events) for f in again.frames] == [
        (f.event, f.data, f.size, f.events) for f in exchange.frames
    ]
    assert [f.at_ms for f in again.frames] == [f.at_ms for f in exchange.frames]
    assert again.request == exchange.request
    assert (again.status, again.headers, again.outcome) == (200, exchange.headers, "done")


def answer_with_history(tmp_path: Path, keep: int | None = None) -> tuple[Path, int]:
    """One streamed answer saved through the app's history session, as the TUI saves it."""
    path = tmp_path / "history.sqlite3"
    history = History.open(path)
    record = history.record()
    record.prompt("hi")
    turn_record = record.start_turn(pane=0, provider="fake", model="m-1", api="chat")
    with FakeProvider() as server:
        server.push(fake.stream(Api.CHAT))
        turn = answer(server, keep=keep)
    turn_record.finish(turn)
    history.wait()
    history.close()
    return path, record.conv_id or 0


def test_the_history_keeps_each_answers_stream(tmp_path: Path) -> None:
    path, conv_id = answer_with_history(tmp_path)
    store = Store.open(path)
    (_, stored) = store.load(conv_id).messages
    exchange = store.stream(stored.id)
    assert exchange is not None
    assert [e.text for f in exchange.frames for e in f.events if type(e) is TextDelta] == [
        "Hello",
        ", ",
        "world",
        ".",
    ]
    assert store.stream(9999) is None
    store.close()
    history = History.open(path)
    assert history.stream(stored.id) is not None  # what the inspector asks on a reopened answer
    history.close()
    with sqlite3.connect(path) as conn:
        kept, cut = conn.execute("SELECT kept_bytes, cut_bytes FROM streams").fetchone()
    assert (kept, cut) == (len(exchange.raw), 0)


def test_the_history_says_when_it_cut_a_stream(tmp_path: Path) -> None:
    path, conv_id = answer_with_history(tmp_path, keep=64)
    store = Store.open(path)
    (_, stored) = store.load(conv_id).messages
    exchange = store.stream(stored.id)
    store.close()
    assert exchange is not None
    assert exchange.cut
    assert exchange.kept_bytes == 64
    with sqlite3.connect(path) as conn:
        kept, cut = conn.execute("SELECT kept_bytes, cut_bytes FROM streams").fetchone()
    assert kept == 64
    assert cut == exchange.total_bytes - 64 > 0


def test_a_damaged_stored_stream_costs_only_its_frames(tmp_path: Path) -> None:
    path, conv_id = answer_with_history(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE streams SET data = X'00010203'")
    history = History.open(path)
    stored = history.load(conv_id)
    assert stored is not None
    assert history.stream(stored.messages[1].id) is None
    assert stored.messages[1].text == "Hello, world."
    history.close()


def test_exports_leave_the_stream_out_unless_raw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    _, conv_id = answer_with_history(tmp_path)
    assert cli.main(["export", str(conv_id), "--format", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert all("stream" not in m for m in plain["messages"])
    assert cli.main(["export", str(conv_id), "--format", "md"]) == 0
    assert "Raw stream" not in capsys.readouterr().out
    assert cli.main(["export", str(conv_id), "--format", "json", "--raw"]) == 0
    raw = json.loads(capsys.readouterr().out)
    stream = raw["messages"][1]["stream"]
    assert json.loads(stream.splitlines()[0])["type"] == "request"
    assert '"Hello"' in stream.replace('\\"', '"')
    assert raw["messages"][0].get("stream") is None
    assert cli.main(["export", str(conv_id), "--raw"]) == 0
    markdown = capsys.readouterr().out
    assert "**Raw stream** (a `--record` recording)" in markdown
    assert '"type": "request"' in markdown
