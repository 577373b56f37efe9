"""The replay server: a recording's bytes served again over
loopback at the recorded pace, X times faster, or at once, read by the same client and decoder
as a live answer; an `ask --compare` recording's exchanges each by its own provider."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app import cli
from app.demo.loopback import Cut, Pause, Reply, SeenRequest, Send
from app.demo.replay_server import ReplayServer, parse_speed, recorded_reply
from app.providers.client import ProviderClient
from app.providers.record import Exchange, read_recording
from app.settings.config import ProviderConfig
from app.wire.conversation import Conversation
from app.wire.engine import Api
from app.wire.turn import Turn, TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


def record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *replies: object, compare: str = ""
) -> Path:
    path = tmp_path / "r.jsonl"
    with FakeProvider() as server:
        server.push(*replies)  # type: ignore[arg-type]
        if compare:
            base = ["ask", "--compare", compare]
            config = tmp_path / "c.toml"
            config.write_text(
                "".join(
                    f'[providers.{name}]\napi = "{name}"\nbase_url = "{server.url}"\n'
                    f'model = "m-{name}"\n'
                    for name in compare.split(",")
                ),
                encoding="utf-8",
            )
            base += ["--config", str(config)]
        else:
            base = ["ask", "--api", "chat", "--base-url", server.url, "--model", "m-1"]
        cli.main([*base, "--json", "--record", str(path), "hi"])
    capsys.readouterr()
    return path


def ask(provider: ProviderConfig) -> Turn:
    async def go() -> Turn:
        client = ProviderClient(provider, None)
        conversation = Conversation()
        conversation.add_user("hi")
        try:
            return await client.stream(conversation, Turn())
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_speed_words() -> None:
    assert parse_speed("max") is None
    assert parse_speed("MAX") is None
    assert parse_speed("2") == 2.0
    assert parse_speed("0.5") == 0.5
    for bad in ("0", "-1", "fast", "inf", "nan", ""):
        with pytest.raises(ValueError, match="--speed must be a positive number or max"):
            parse_speed(bad)


def exchange(pieces: list[tuple[float, bytes]], outcome: str = "eof") -> Exchange:
    recorded = Exchange({"url": "http://x/v1/chat/completions", "body": {"model": "m"}})
    recorded.status, recorded.headers = (
        200,
        {
            "content-type": "text/event-stream",
            "transfer-encoding": "chunked",
            "content-length": "9",
        },
    )
    recorded.response_t = 0.5
    recorded.pieces, recorded.outcome = pieces, outcome
    return recorded


def test_the_reply_keeps_the_recorded_gaps_divided_by_the_speed() -> None:
    recorded = exchange([(0.5, b"a"), (1.5, b"b"), (1.5, b"c"), (4.5, b"d")])
    reply = recorded_reply(recorded, 2.0)
    assert reply.wait == 0.25
    assert reply.steps == (Send(b"a"), Pause(0.5), Send(b"b"), Send(b"c"), Pause(1.5), Send(b"d"))
    assert reply.headers == (("content-type", "text/event-stream"),)  # framing is the server's
    at_once = recorded_reply(recorded, None)
    assert at_once.wait == 0.0
    assert [s for s in at_once.steps if isinstance(s, Pause)] == []
    assert recorded_reply(exchange([(1.0, b"a")], "error"), 1.0).steps[-1] == Cut()


def test_a_recording_replays_through_the_live_client_at_speed_max(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = record(tmp_path, capsys, fake.slow_drip(Api.CHAT))
    (recorded,) = read_recording(path)
    with ReplayServer([recorded], speed=None) as server:
        turn = ask(server.provider_for(0))
        sent = server.requests[0]
    assert turn.status is TurnStatus.COMPLETE
    assert turn.text == "Hello, world."
    assert turn.reasoning == "Thinking briefly."
    assert turn.usage is not None
    assert turn.usage.cached_tokens == 4
    assert turn.exchange is not None
    assert turn.exchange.raw == recorded.body  # the same bytes, through the same client
    assert sent.path == "/replay/0/chat/completions"
    assert json.loads(sent.body)["model"] == "m-1"


def test_at_the_recorded_pace_a_silence_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = record(tmp_path, capsys, fake.silent_after_start(Api.CHAT, 0.4))
    (recorded,) = read_recording(path)
    with ReplayServer([recorded], speed=2.0) as server:
        turn = ask(server.provider_for(0))
    assert turn.text == "Hello, world."
    assert turn.exchange is not None
    # Lower bounds only: a 0.4 s silence at twice the pace cannot be shorter than 0.2 s.
    assert turn.exchange.frames[-1].at_ms >= 200


def test_a_comparison_recording_serves_each_exchange_to_its_own_provider(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def by_format(request: SeenRequest) -> Reply:  # the two requests race: answer by path
        return fake.stream(Api.MESSAGES if request.path.endswith("/messages") else Api.CHAT)

    path = record(tmp_path, capsys, by_format, by_format, compare="chat,messages")
    recorded = read_recording(path)
    assert len(recorded) == 2
    with ReplayServer(recorded, speed=None) as server:
        providers = [server.provider_for(n) for n in range(2)]

        async def both() -> list[Turn]:
            return list(await asyncio.gather(*(asyncio.to_thread(ask, p) for p in providers)))

        turns = asyncio.run(both())
    assert sorted(p.api.value for p in providers) == ["chat", "messages"]
    assert [t.text for t in turns] == ["Hello, world."] * 2
    assert all(t.status is TurnStatus.COMPLETE for t in turns)


def test_a_recorded_error_replays_as_the_same_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = record(tmp_path, capsys, fake.http_error(Api.CHAT, 429, "rate_limited", "slow down"))
    with ReplayServer(read_recording(path), speed=None) as server:
        turn = ask(server.provider_for(0))
    assert turn.status is TurnStatus.FAILED
    assert turn.error is not None
    assert (turn.error.code, "slow down" in turn.error.message) == ("rate_limited", True)


def test_an_unknown_path_and_a_foreign_request_are_said_plainly() -> None:
    foreign = Exchange({"url": "http://x/v1/embeddings", "body": {}})
    with ReplayServer([foreign]) as server:
        with pytest.raises(ValueError, match="not an answer"):
            server.provider_for(0)
        turn = ask(ProviderConfig("x", Api.CHAT, server.base_url(7), "m"))
    assert turn.error is not None
    assert "no recorded exchange at /replay/7/chat/completions" in turn.error.message


def test_a_replayed_response_carries_the_recorded_headers_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The loopback server's own Server and Date are not added beside the recorded ones (the
    inspector would show two servers and today's date); framing stays the replay's own."""
    (live,) = read_recording(record(tmp_path, capsys, fake.stream(Api.CHAT)))
    upstream = {"server": "upstream/1.0", "date": "Mon, 30 Nov 2026 10:00:00 GMT", "x-req": "7"}
    bare = Exchange(live.request, 200, {"content-type": "text/event-stream"}, live.pieces, "eof")
    dressed = Exchange(live.request, 200, {**bare.headers, **upstream}, live.pieces, "eof")
    with ReplayServer([bare, dressed], speed=None) as server:
        turns = [ask(server.provider_for(n)) for n in range(2)]
    shown = []
    for turn in turns:
        assert turn.status is TurnStatus.COMPLETE
        assert turn.exchange is not None
        shown.append({k.lower(): v for k, v in turn.exchange.headers.items()})
    framing = {"transfer-encoding": "chunked"}
    assert shown[0] == {"content-type": "text/event-stream", **framing}
    assert shown[1] == {"content-type": "text/event-stream", **upstream, **framing}
