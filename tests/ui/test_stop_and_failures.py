"""Esc stops a stream (the server sees the disconnect), every failure shows the provider's own
message in the status bar with the partial answer kept, and quitting stops streams first."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from app.demo.frames import INTERRUPTED_MESSAGE
from app.demo.loopback import Reply
from app.display.status_line import ERROR
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_drawn, wait_until

PLAIN = replace(ANSWER, reasoning=(), tool=None)


def wait_disconnect(fake_provider: FakeProvider, timeout: float = 3.0) -> float | None:
    request = fake_provider.last_request()
    deadline = time.monotonic() + timeout
    while request.disconnected is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return request.disconnected


async def test_escape_stops_the_stream_and_keeps_the_partial_answer(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.paced_forever(Api.CHAT, PLAIN, delay=0.02))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go on")
        await wait_until(
            pilot, lambda: app.pane.current and "word3" in app.pane.current.answer.source
        )
        pressed = time.monotonic()
        await pilot.press("escape")
        await wait_drawn(pilot)
        assert app.pane.turn is not None
        assert app.pane.turn.status is TurnStatus.STOPPED
        disconnected = wait_disconnect(fake_provider)
        assert disconnected is not None, "the server never saw the client go away"
        assert disconnected - pressed < 1.0
        assert app.pane.current is not None
        assert "word3" in app.pane.current.answer.source  # the partial answer stays
        assert "stopped" in app.pane.status_bar.plain
        assert "■ stopped" in screen_text(app)
        await pilot.press("escape")  # again, with nothing running: harmless
        await pilot.pause()
        assert app.pane.turn.status is TurnStatus.STOPPED
        assert app.is_running


async def test_escape_with_nothing_running_and_no_unasked_requests(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        await pilot.pause(0.3)
        assert app.is_running
        assert "ready" in app.pane.status_bar.plain
    assert fake_provider.requests == []  # no warm-up, title or model-list calls


FAILURES = {
    "http-429": (
        lambda api: fake.http_error(api, 429, "rate_limit_exceeded", "Slow down, please."),
        "failed",
        "HTTP 429: Slow down, please. (rate_limit_exceeded)",
    ),
    "html-502": (
        lambda api: fake.html_page(502, "502 Bad Gateway", "upstream timed out"),
        "failed",
        "502 Bad Gateway",
    ),
    "cut": (lambda api: fake.cut_mid_event(api, PLAIN), "interrupted", "connection"),
    "no-terminal": (lambda api: fake.without_terminal(api, PLAIN), "interrupted", ""),
    "in-stream-error": (
        lambda api: fake.stream(api, replace(PLAIN, error_after=2)),
        "failed",
        INTERRUPTED_MESSAGE,
    ),
}


@pytest.mark.parametrize("case", list(FAILURES))
async def test_each_failure_shows_its_message(
    fake_provider: FakeProvider, tmp_path: Path, case: str
) -> None:
    make_reply, word, message = FAILURES[case]
    reply: Reply = make_reply(Api.CHAT)
    fake_provider.push(reply)
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_drawn(pilot)
        segments = app.pane.status_bar.segments
        assert segments[2][0] == word
        marker = {"failed": "✖ failed", "interrupted": "⚠ interrupted"}[word]
        screen = screen_text(app)
        assert marker in screen
        # The message once, in full, in the transcript (its first letter a capital); the status
        # bar keeps a short form that fits one line at 80 columns.
        assert message.lower() in " ".join(screen.split()).lower()
        assert not message or message not in app.pane.status_bar.plain
        if word == "failed":  # the short form: the code alone
            assert segments[-1][1] == ERROR
            assert len(segments[-1][0]) <= 40
        if case == "in-stream-error":
            assert app.pane.current is not None
            assert app.pane.current.answer.source == "Hello, "  # the partial text stays


async def test_keepalives_show_the_model_is_still_working(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.silence_with_keepalives(Api.CHAT, 3, 0.9, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        # The count grows as keepalives arrive (0.9 s apart): wait for the second one rather
        # than read the bar at the first sign of silence (on a loaded machine that came first).
        await wait_until(pilot, lambda: "keepalives)" in app.pane.status_bar.plain, timeout=4)
        status = app.pane.status_bar.plain
        assert "waiting" in status
        assert "model still working" in status
        await wait_drawn(pilot)
        assert "complete" in app.pane.status_bar.plain
        assert "still working" not in app.pane.status_bar.plain


@pytest.mark.parametrize("keys", [("ctrl+q",), ("ctrl+c", "ctrl+c")])  # one Ctrl+C only stops
async def test_quit_stops_the_stream_first(
    fake_provider: FakeProvider, tmp_path: Path, keys: tuple[str, ...]
) -> None:
    fake_provider.push(fake.paced_forever(Api.CHAT, PLAIN, delay=0.02))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go on")
        await wait_until(
            pilot, lambda: app.pane.current and "word2" in app.pane.current.answer.source
        )
        await pilot.press(*keys)
        await pilot.pause(0.2)
    assert app.return_value == 0
    assert app.pane.turn is not None
    assert app.pane.turn.status is TurnStatus.STOPPED
    assert wait_disconnect(fake_provider) is not None
