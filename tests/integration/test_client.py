"""The real streaming client against the fake provider over loopback HTTP, per wire format."""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import replace

import pytest

from app.demo.frames import INTERRUPTED_MESSAGE, Answer, frames
from app.demo.loopback import Reply, Send
from app.providers.client import ProviderClient, Timing
from app.providers.errors import ProviderError
from app.settings.config import ProviderConfig
from app.wire.conversation import Conversation
from app.wire.engine import Api
from app.wire.events import Event, TextDelta
from app.wire.turn import Turn, TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

KEY = "sk-live-SECRET-0123456789abcdef"
APIS = pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])


def ask(text: str = "hello") -> Conversation:
    conversation = Conversation(system="Be brief.")
    conversation.add_user(text)
    return conversation


async def run(
    server: FakeProvider, api: Api, *, idle: float = 5.0, key: str | None = KEY
) -> tuple[Turn, Timing]:
    timing = Timing(time.monotonic())
    async with ProviderClient(server.provider(api), key, idle_timeout=idle) as client:
        turn = await client.stream(ask(), Turn(), timing)
    return turn, timing


@APIS
async def test_ttft_is_the_providers_from_the_request_as_the_timeline_measures_it(
    fake_provider: FakeProvider, api: Api
) -> None:
    """The caller's timing may start well before the request (the app's first prompt loads the
    client first); TTFT and duration start when the request goes out, so the status bar, the
    history and `ask --json` say what the inspector's timeline of the same capture says."""
    from app.ui.widgets.inspector import frame_timeline

    fake_provider.push(fake.stream(api, delay=0.01))
    before = time.monotonic()
    timing = Timing(before - 5.0)  # five seconds of whatever came before the request
    async with ProviderClient(fake_provider.provider(api), KEY) as client:
        turn = await client.stream(ask(), Turn(), timing)
    assert turn.status is TurnStatus.COMPLETE
    assert timing.started >= before
    assert turn.exchange is not None
    shown = frame_timeline(turn.exchange).figures().ttft_ms
    assert timing.ttft_ms is not None
    assert shown is not None
    assert abs(timing.ttft_ms - shown) <= 5  # the same moment, read twice (ms rounding)
    assert timing.duration_ms is not None
    assert timing.duration_ms < 5000


@APIS
async def test_complete_stream(fake_provider: FakeProvider, api: Api) -> None:
    fake_provider.push(fake.stream(api, delay=0.002))
    seen: list[Event] = []
    async with ProviderClient(fake_provider.provider(api), KEY) as client:
        timing = Timing(time.monotonic())
        turn = await client.stream(ask(), Turn(), timing, seen.append)
    assert turn.status is TurnStatus.COMPLETE
    assert turn.text == "Hello, world."
    assert turn.reasoning == "Thinking briefly."
    assert [(c.id, c.name, c.value) for c in turn.tool_calls] == [
        ("call_1", "get_weather", {"city": "Paris"})
    ]
    assert turn.usage is not None
    assert turn.usage.input_tokens == 11
    assert turn.usage.cached_tokens == 4
    assert turn.finish_reason == {"chat": "tool_calls", "messages": "tool_use"}.get(
        api.value, "completed"
    )
    assert any(isinstance(e, TextDelta) for e in seen)
    assert timing.ttft_ms is not None
    assert timing.duration_ms is not None
    assert 0 <= timing.ttft_ms <= timing.duration_ms
    request = fake_provider.last_request()
    assert request.method == "POST"
    assert request.path == {"chat": "/v1/chat/completions"}.get(api.value, f"/v1/{api.value}")
    assert request.headers["accept"] == "text/event-stream"
    assert request.json["stream"] is True
    assert request.json["model"] == "m-1"
    if api is Api.MESSAGES:
        assert request.headers["x-api-key"] == KEY
        assert request.headers["anthropic-version"] == "2023-06-01"
    else:
        assert request.headers["authorization"] == f"Bearer {KEY}"


@APIS
async def test_slow_drip_gives_the_same_turn(fake_provider: FakeProvider, api: Api) -> None:
    fake_provider.push(fake.slow_drip(api, size=5, delay=0.0005))
    turn, _ = await run(fake_provider, api)
    assert turn.status is TurnStatus.COMPLETE
    assert (turn.text, turn.reasoning) == ("Hello, world.", "Thinking briefly.")
    assert turn.tool_calls[0].arguments == '{"city": "Paris"}'


@APIS
async def test_reads_taken_every_so_often_wake_the_loop_seldom_and_keep_their_times(
    fake_provider: FakeProvider, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`take_every` (the app's is 1/30 s): 40 text deltas 10 ms apart are taken in a few
    batches, the loop woken for few of them, the answer whole; and each read keeps the time
    the thread read it at, so the capture still spreads them over the stream's 0.4 s."""
    from app.providers.threaded import Exchange

    wakes: list[int] = []
    wake = Exchange._wake

    def counting(self: Exchange) -> None:
        wakes.append(1)
        wake(self)

    monkeypatch.setattr(Exchange, "_wake", counting)
    words = tuple(f"w{i} " for i in range(40))
    fake_provider.push(fake.stream(api, Answer(text=words), delay=0.01))
    async with ProviderClient(fake_provider.provider(api), KEY, take_every=0.2) as client:
        turn = await client.stream(ask(), Turn())
    assert turn.status is TurnStatus.COMPLETE
    assert turn.text == "".join(words)
    assert len(wakes) <= 6  # the response, then a take every 0.2 s over 0.4 s and more
    assert turn.exchange is not None
    times = [read.at_ms for read in turn.exchange.reads]
    assert max(times) - min(times) >= 300  # 40 pauses of 10 ms, as the thread saw them


@APIS
async def test_scripted_pieces_split_anywhere(fake_provider: FakeProvider, api: Api) -> None:
    body = b"".join(frames(api, Answer(text=("é", "✓", "\u2028x"))))
    cut = [0, 3, 50, 51, len(body) // 2, len(body) - 2, len(body)]
    fake_provider.push(fake.scripted([(0.001, body[a:b]) for a, b in itertools.pairwise(cut)]))
    turn, _ = await run(fake_provider, api)
    assert turn.status is TurnStatus.COMPLETE
    assert turn.text == "é✓\u2028x"


@APIS
async def test_keepalives_are_counted_and_do_not_end_the_turn(
    fake_provider: FakeProvider, api: Api
) -> None:
    fake_provider.push(fake.silence_with_keepalives(api, count=3, every=0.15))
    # The silence (0.45 s) is longer than the idle limit; each keepalive resets it.
    turn, _ = await run(fake_provider, api, idle=0.3)
    assert turn.status is TurnStatus.COMPLETE
    assert turn.keepalives >= 3
    assert turn.text == "Hello, world."


@APIS
async def test_idle_limit_interrupts_a_silent_stream(fake_provider: FakeProvider, api: Api) -> None:
    fake_provider.push(fake.silent_after_start(api, seconds=3.0))
    started = time.monotonic()
    turn, _ = await run(fake_provider, api, idle=0.3)
    assert time.monotonic() - started < 2.0
    assert turn.status is TurnStatus.INTERRUPTED
    assert "0.3 s" in turn.interruption
    assert "idle" in turn.interruption


async def test_idle_limit_before_any_answer_fails(fake_provider: FakeProvider) -> None:
    fake_provider.push(Reply(wait=3.0))
    turn, _ = await run(fake_provider, Api.CHAT, idle=0.3)
    assert turn.status is TurnStatus.FAILED
    assert turn.error is not None
    assert turn.error.code == "timeout"
    assert "within 0.3 s" in turn.error.message
    assert "127.0.0.1" in turn.error.message


@APIS
@pytest.mark.parametrize("reset", [False, True], ids=["fin", "rst"])
async def test_connection_cut_mid_event_is_interrupted_with_cause(
    fake_provider: FakeProvider, api: Api, reset: bool
) -> None:
    fake_provider.push(fake.cut_mid_event(api, reset=reset))
    turn, _ = await run(fake_provider, api)
    assert turn.status is TurnStatus.INTERRUPTED
    assert turn.error is None
    assert "connection" in turn.interruption
    if reset:
        assert "reset" in turn.interruption
    else:  # httpx's "incomplete chunked read", in words a user reads
        assert turn.interruption == "the connection closed before the stream ended"
    assert turn.reasoning == "Thinking briefly."  # what arrived is kept


@APIS
async def test_clean_end_without_terminal_event_is_interrupted(
    fake_provider: FakeProvider, api: Api
) -> None:
    fake_provider.push(fake.without_terminal(api))
    turn, _ = await run(fake_provider, api)
    assert turn.status is TurnStatus.INTERRUPTED
    assert turn.text == "Hello, world."


@APIS
async def test_in_stream_error_fails_and_keeps_partial_text(
    fake_provider: FakeProvider, api: Api
) -> None:
    fake_provider.push(fake.stream(api, Answer(text=("a", "b", "c"), error_after=2)))
    turn, _ = await run(fake_provider, api)
    assert turn.status is TurnStatus.FAILED
    assert turn.text == "ab"
    assert turn.error is not None
    assert "interrupted the response" in turn.error.message


@APIS
@pytest.mark.parametrize(
    ("status", "code"),
    [(401, "invalid_api_key"), (400, "invalid_request_error"), (504, "upstream_timeout")],
)
async def test_http_error_in_each_format_shape(
    fake_provider: FakeProvider, api: Api, status: int, code: str
) -> None:
    fake_provider.push(fake.http_error(api, status, code, f"the provider says {status}"))
    turn, _ = await run(fake_provider, api)
    assert turn.status is TurnStatus.FAILED
    assert turn.error is not None
    assert turn.error.code == code
    assert turn.error.message == f"HTTP {status}: the provider says {status}"


@APIS
async def test_429_shows_retry_after(fake_provider: FakeProvider, api: Api) -> None:
    fake_provider.push(fake.http_error(api, 429, "rate_limit", "slow down", retry_after="20"))
    turn, _ = await run(fake_provider, api)
    assert turn.error is not None
    assert turn.error.code == "rate_limit"
    assert turn.error.message == "HTTP 429: slow down (retry after 20 s)"


async def test_html_error_page_is_tag_stripped(fake_provider: FakeProvider) -> None:
    fake_provider.push(fake.html_page(502, "502 Bad Gateway", "nginx <b>is</b> unhappy"))
    turn, _ = await run(fake_provider, Api.CHAT)
    assert turn.error is not None
    assert turn.error.code == "http_502"
    assert turn.error.message.startswith("HTTP 502: 502 Bad Gateway")
    assert "nginx is unhappy" in turn.error.message
    assert "<" not in turn.error.message
    assert "color" not in turn.error.message


async def test_plain_text_and_empty_error_bodies(fake_provider: FakeProvider) -> None:
    plain = Reply(503, (("Content-Type", "text/plain"),), (Send(b"  upstream down\n"),))
    fake_provider.push(plain, Reply(404, (), ()))
    first, _ = await run(fake_provider, Api.CHAT)
    second, _ = await run(fake_provider, Api.CHAT)
    assert first.error is not None
    assert first.error.message == "HTTP 503: upstream down"
    assert second.error is not None
    assert second.error.code == "http_404"
    called = f"(POST {fake_provider.url}/chat/completions): check base_url and api"
    assert second.error.message == f"HTTP 404 Not Found {called}"


@APIS
async def test_200_with_a_whole_json_answer(fake_provider: FakeProvider, api: Api) -> None:
    fake_provider.push(fake.json_answer(fake.document_of(api)))
    turn, _ = await run(fake_provider, api)
    assert turn.status is TurnStatus.COMPLETE
    assert (turn.text, turn.reasoning) == ("Hello, world.", "Thinking briefly.")
    assert [(c.id, c.name, c.value) for c in turn.tool_calls] == [
        ("call_1", "get_weather", {"city": "Paris"})
    ]
    assert turn.usage is not None
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (11, 9)
    assert turn.finish_reason in ("tool_calls", "tool_use", "completed")


@APIS
async def test_200_with_a_json_error(fake_provider: FakeProvider, api: Api) -> None:
    document = fake.http_error(api, 200, "overloaded", "try later").steps[0]
    assert isinstance(document, Send)
    fake_provider.push(Reply(200, (("Content-Type", "text/event-stream"),), (document,)))
    turn, _ = await run(fake_provider, api)
    assert turn.status is TurnStatus.FAILED
    assert turn.error is not None
    assert (turn.error.code, turn.error.message) == (
        "overloaded",
        "try later",
    )


async def test_connection_refused_is_a_plain_message() -> None:
    config = ProviderConfig(name="x", api=Api.CHAT, base_url="http://127.0.0.1:9/v1", model="m")
    async with ProviderClient(config, KEY, connect_timeout=2) as client:
        turn = await client.stream(ask(), Turn())
    assert turn.status is TurnStatus.FAILED
    assert turn.error is not None
    assert turn.error.message == "could not connect to 127.0.0.1:9 (connection refused)"
    assert turn.error.code == "connect_error"


async def test_tls_to_a_plain_http_server_is_a_tls_error(fake_provider: FakeProvider) -> None:
    https = fake_provider.url.replace("http://", "https://")
    config = ProviderConfig(name="x", api=Api.CHAT, base_url=https, model="m")
    async with ProviderClient(config, KEY, connect_timeout=2) as client:
        turn = await client.stream(ask(), Turn())
    assert turn.status is TurnStatus.FAILED
    assert turn.error is not None
    assert turn.error.code == "connect_error"
    port = https.split(":")[2].split("/")[0]
    assert turn.error.message.startswith(f"could not connect to 127.0.0.1:{port} (TLS error")


async def test_a_redirect_points_at_the_base_url(fake_provider: FakeProvider) -> None:
    moved = Reply(301, (("Location", "https://elsewhere.test/v1/chat/completions"),), ())
    fake_provider.push(moved)
    turn, _ = await run(fake_provider, Api.CHAT)
    assert turn.error is not None
    assert turn.error.code == "http_301"
    assert "redirected to https://elsewhere.test/v1/chat/completions" in turn.error.message


async def test_an_event_stream_mislabelled_as_json_is_still_read(
    fake_provider: FakeProvider,
) -> None:
    mislabelled = Reply(
        200,
        (("Content-Type", "application/json"),),
        tuple(Send(frame) for frame in frames(Api.CHAT, Answer(text=("ok",)))),
    )
    fake_provider.push(mislabelled)
    turn, _ = await run(fake_provider, Api.CHAT)
    assert turn.status is TurnStatus.COMPLETE
    assert turn.text == "ok"


async def cancel(task: asyncio.Task[Turn]) -> float:
    """Cancel a streaming task and see it end cancelled; the time it was cancelled at."""
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return cancelled_at


@APIS
async def test_cancel_stops_and_the_server_sees_the_disconnect(
    fake_provider: FakeProvider, api: Api
) -> None:
    fake_provider.push(fake.paced_forever(api, delay=0.02))
    turn = Turn()
    async with ProviderClient(fake_provider.provider(api), KEY) as client:
        task = asyncio.create_task(client.stream(ask(), turn))
        while len(turn.text_parts) < 3:
            await asyncio.sleep(0.005)
        cancelled_at = await cancel(task)
        request = fake_provider.last_request()
        assert request.done.wait(2.0)
    assert turn.status is TurnStatus.STOPPED
    assert turn.text.startswith("word0 word1 word2")
    assert request.disconnected is not None
    assert request.finished is None
    assert request.disconnected - cancelled_at < 0.3


@pytest.mark.parametrize("reused", [False, True], ids=["new connection", "pooled connection"])
async def test_cancel_while_the_provider_has_not_answered_yet_closes_the_connection(
    fake_provider: FakeProvider, reused: bool
) -> None:
    """The request waits for a status line that comes only after 5 s: cancelling it closes
    the connection at once, on a connection made for it and on one kept from the turn before
    (the client has not seen that one's socket in this request)."""
    silent = replace(fake.stream(Api.CHAT), wait=5.0)
    fake_provider.push(*((fake.stream(Api.CHAT),) if reused else ()), silent)
    async with ProviderClient(fake_provider.provider(Api.CHAT), KEY) as client:
        if reused:
            first = await client.stream(ask(), Turn())
            assert first.status is TurnStatus.COMPLETE
        turn = Turn()
        task = asyncio.create_task(client.stream(ask(), turn))
        while len(fake_provider.requests) < (2 if reused else 1):
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.1)
        cancelled_at = await cancel(task)
        request = fake_provider.last_request()
        assert await asyncio.to_thread(request.done.wait, 2.0)
    assert turn.status is TurnStatus.STOPPED
    assert request.disconnected is not None
    assert request.disconnected - cancelled_at < 0.5


async def test_one_client_serves_turns_one_after_another(fake_provider: FakeProvider) -> None:
    fake_provider.push(fake.stream(Api.CHAT), fake.stream(Api.CHAT, Answer(text=("again",))))
    conversation = ask()
    async with ProviderClient(fake_provider.provider(Api.CHAT), KEY) as client:
        first = await client.stream(conversation, Turn())
        conversation.add_assistant(first)
        conversation.add_user("more")
        second = await client.stream(conversation, Turn())
    assert (first.status, second.status) == (TurnStatus.COMPLETE, TurnStatus.COMPLETE)
    assert second.text == "again"
    sent = fake_provider.requests[1].json["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "user"]
    assert sent[2]["reasoning_content"] == "Thinking briefly."


@APIS
async def test_turns_one_after_another_keep_one_connection(
    fake_provider: FakeProvider, api: Api
) -> None:
    """A body read to its end leaves its connection in the pool for the next turn: no new
    connection (and, to a provider, no new TLS handshake) per turn."""
    fake_provider.push(*(fake.stream(api) for _ in range(3)))
    async with ProviderClient(fake_provider.provider(api), KEY) as client:
        for _ in range(3):
            turn = await client.stream(ask(), Turn())
            assert turn.status is TurnStatus.COMPLETE
    assert len({request.peer for request in fake_provider.requests}) == 1


async def test_model_override(fake_provider: FakeProvider) -> None:
    fake_provider.push(fake.stream(Api.RESPONSES))
    async with ProviderClient(fake_provider.provider(Api.RESPONSES), None) as client:
        await client.stream(ask(), Turn(), model="other-model")
    request = fake_provider.last_request()
    assert request.json["model"] == "other-model"
    assert "authorization" not in request.headers


@APIS
async def test_the_key_never_reaches_the_error(fake_provider: FakeProvider, api: Api) -> None:
    echoed = f"Incorrect API key provided: {KEY}. Find yours at example.test"
    fake_provider.push(fake.http_error(api, 401, f"bad_{KEY}", echoed))
    fake_provider.push(fake.stream(api, Answer(text=("x",), error_after=1)))
    first, _ = await run(fake_provider, api)
    assert first.error is not None
    assert KEY not in first.error.message
    assert KEY not in str(first.error.code)
    assert "[redacted]" in first.error.message


@APIS
async def test_the_key_is_scrubbed_before_the_turn_holds_the_error(
    fake_provider: FakeProvider, api: Api
) -> None:
    """A render tick may draw the turn between any two events: no moment may show the key."""
    echoed = f"upstream rejected {KEY}"
    body = b"".join(frames(api, Answer(text=("partial ",), error_after=1)))
    body = body.replace(INTERRUPTED_MESSAGE.encode(), echoed.encode())
    assert echoed.encode() in body
    fake_provider.push(fake.scripted([(0.0, body)]))
    turn = Turn()
    seen: list[str] = []

    def look(_event: Event) -> None:
        if turn.error is not None:
            seen.append(f"{turn.error.code} {turn.error.message}")

    async with ProviderClient(fake_provider.provider(api), KEY) as client:
        await client.stream(ask(), turn, None, look)
    assert turn.status is TurnStatus.FAILED
    assert seen, "the error never reached the turn while events were applied"
    assert all(KEY not in line for line in seen)
    assert "[redacted]" in seen[0]


async def test_list_models_in_both_shapes_and_errors(fake_provider: FakeProvider) -> None:
    openai = {"object": "list", "data": [{"id": "gpt-x", "object": "model"}, {"id": "gpt-y"}]}
    page1 = {"data": [{"id": "claude-a", "type": "model"}], "has_more": True, "last_id": "claude-a"}
    page2 = {"data": [{"id": "claude-b", "type": "model"}], "has_more": False}
    fake_provider.push(
        fake.json_answer(openai),
        fake.json_answer(page1),
        fake.json_answer(page2),
        fake.http_error(Api.CHAT, 401, "invalid_api_key", "no such key"),
    )
    async with ProviderClient(fake_provider.provider(Api.CHAT), KEY) as client:
        assert await client.list_models() == ["gpt-x", "gpt-y"]
    async with ProviderClient(fake_provider.provider(Api.MESSAGES), KEY) as client:
        assert await client.list_models() == ["claude-a", "claude-b"]
    assert fake_provider.requests[2].path == "/v1/models?after_id=claude-a"
    assert fake_provider.requests[1].headers["x-api-key"] == KEY
    async with ProviderClient(fake_provider.provider(Api.CHAT), KEY) as client:
        with pytest.raises(ProviderError, match="HTTP 401: no such key"):
            await client.list_models()
