"""Every shipped preset sends the right request; recordings hold the exchange and no key."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from app.demo.frames import Answer, frames
from app.providers.client import ProviderClient
from app.providers.record import Recorder, read_recording
from app.settings.api_keys import resolve_api_key
from app.settings.config import DEMO, load_config
from app.wire.conversation import Conversation
from app.wire.engine import Api, decode_bytes
from app.wire.turn import Turn, TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"
PRESETS = load_config(EXAMPLE, environ={})
ENDPOINT = {Api.CHAT: "/chat/completions", Api.MESSAGES: "/messages", Api.RESPONSES: "/responses"}
KEY = "sk-recorded-SECRET-42"


def ask(text: str = "hello") -> Conversation:
    conversation = Conversation(system="Be brief.")
    conversation.add_user(text)
    return conversation


@pytest.mark.parametrize("name", [n for n in PRESETS.providers if n != DEMO])
async def test_preset_request_shape(fake_provider: FakeProvider, name: str) -> None:
    preset = PRESETS.providers[name]
    base_path = urlsplit(preset.base_url).path
    provider = replace(preset, base_url=fake_provider.url.removesuffix("/v1") + base_path)
    environ = {preset.api_key_env: f"sk-{name}"} if preset.api_key_env else {}
    key = resolve_api_key(provider, environ)
    fake_provider.push(fake.stream(preset.api))
    async with ProviderClient(provider, key) as client:
        turn = await client.stream(ask(), Turn())
    assert turn.status is TurnStatus.COMPLETE, turn.error
    request = fake_provider.last_request()
    assert request.method == "POST"
    assert request.path == base_path + ENDPOINT[preset.api]
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["content-type"] == "application/json"
    body = request.json
    assert body["model"] == preset.model
    assert body["stream"] is True
    for param, value in preset.params.items():
        assert body[param] == value
    for header, value in preset.headers.items():
        assert request.headers[header.lower()] == value
    if preset.api is Api.MESSAGES:
        assert request.headers["x-api-key"] == key
        assert request.headers["anthropic-version"] == "2023-06-01"
        assert body["max_tokens"] == preset.max_tokens
        assert body["system"] == "Be brief."
        assert body["messages"] == [
            {"role": "user", "content": [{"type": "text", "text": "hello"}]}
        ]
    elif preset.api is Api.CHAT:
        assert body["messages"] == [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hello"},
        ]
    else:
        assert body["instructions"] == "Be brief."
        assert body["input"] == [{"type": "message", "role": "user", "content": "hello"}]
    if preset.api is not Api.MESSAGES:
        auth = request.headers.get("authorization")
        assert auth == (f"Bearer {key}" if key else None)


def test_presets_cover_all_three_formats() -> None:
    apis = {p.api for n, p in PRESETS.providers.items() if n != DEMO}
    assert apis == set(Api)


async def test_recording_holds_request_and_raw_bytes_without_the_key(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    answer = Answer(text=("Hel", "lo"))
    echoed = f"Incorrect API key provided: {KEY}"
    fake_provider.push(
        fake.stream(Api.CHAT, answer, delay=0.01),
        fake.http_error(Api.CHAT, 401, "invalid_api_key", echoed),
        fake.cut_mid_event(Api.CHAT),
        fake.stream(Api.CHAT, Answer(text=(f"your key is {KEY}",))),
    )
    path = tmp_path / "rec" / "exchange.jsonl"
    recorder = Recorder(path)
    provider = fake_provider.provider(Api.CHAT, headers={"X-Custom": KEY})
    async with ProviderClient(provider, KEY, recorder=recorder) as client:
        turns = [await client.stream(ask(), Turn()) for _ in range(4)]
    recorder.close()
    text = path.read_text()
    assert KEY not in text
    exchanges = read_recording(path)
    assert len(exchanges) == 4
    first, error, cut, echo = exchanges
    assert first.request["method"] == "POST"
    assert first.request["url"] == fake_provider.url + "/chat/completions"
    assert first.request["headers"]["Authorization"] == "[redacted]"
    assert first.request["headers"]["X-Custom"] == "[redacted]"
    assert first.request["body"]["messages"][-1] == {"role": "user", "content": "hello"}
    assert first.status == 200
    assert first.body == b"".join(frames(Api.CHAT, answer))
    assert first.outcome == "done"
    times = [t for t, _ in first.pieces]
    assert times == sorted(times)
    assert times[-1] >= 0.01 * 3  # the pacing between frames is visible in arrival times
    assert decode_bytes(Api.CHAT, [p for _, p in first.pieces]).text == turns[0].text == "Hello"
    assert (error.status, error.outcome) == (401, "eof")
    assert b"[redacted]" in error.body
    assert cut.outcome == "error"
    assert cut.detail == "the connection closed before the stream ended"
    assert echo.outcome == "done"
    assert b"[redacted]" in echo.body
    assert turns[2].status is TurnStatus.INTERRUPTED


async def test_recording_marks_a_cancelled_exchange_stopped(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.paced_forever(Api.MESSAGES, delay=0.01))
    path = tmp_path / "stopped.jsonl"
    recorder = Recorder(path)
    turn = Turn()
    async with ProviderClient(
        fake_provider.provider(Api.MESSAGES), KEY, recorder=recorder
    ) as client:
        task = asyncio.create_task(client.stream(ask(), turn))
        while len(turn.text_parts) < 2:
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    recorder.close()
    (exchange,) = read_recording(path)
    assert exchange.outcome == "stopped"
    assert exchange.request["headers"]["x-api-key"] == "[redacted]"
    assert turn.status is TurnStatus.STOPPED


async def test_recorded_reads_keep_the_time_they_arrived_at(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """Reads taken by the loop in batches (`take_every`) are recorded at the time the HTTP
    thread read them, so a replay paces them as the provider sent them."""
    words = tuple(f"w{i} " for i in range(30))
    fake_provider.push(fake.stream(Api.CHAT, Answer(text=words), delay=0.01))
    path = tmp_path / "paced.jsonl"
    recorder = Recorder(path)
    async with ProviderClient(
        fake_provider.provider(Api.CHAT), KEY, recorder=recorder, take_every=0.25
    ) as client:
        turn = await client.stream(ask(), Turn())
    recorder.close()
    assert turn.status is TurnStatus.COMPLETE
    (exchange,) = read_recording(path)
    times = [at for at, _ in exchange.pieces]
    gaps = sorted(b - a for a, b in itertools.pairwise(times))
    assert gaps[len(gaps) // 2] >= 0.005  # 10 ms apart, as sent; not 0, as taken in a batch
