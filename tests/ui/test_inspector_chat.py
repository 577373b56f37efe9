"""F2 on the chat: the inspector opens beside the conversation on the last answer, keeps up with
it while it streams, shows the redacted request and every frame, saves a recording, and works on
a conversation reopened from the history (its stream was kept)."""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import Static

from app.ui.widgets.frame_list import FrameList
from app.ui.widgets.inspector import Inspector
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import fake_config, make_app, screen_text, send, wait_drawn, wait_until

SECRET = "sk-inspect-5f7e1d2c9b8a"
SIZE = (200, 60)


def text_of(inspector: Inspector, selector: str) -> str:
    return str(inspector.query_one(selector, Static).render())


async def test_f2_opens_the_wire_of_the_streaming_answer_and_keeps_up(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    config = fake_config(fake_provider, Api.MESSAGES)
    fake_provider.push(fake.slow_drip(Api.MESSAGES, size=40, delay=0.05))
    app = make_app(config, tmp_path, history_file=tmp_path / "history.sqlite3")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_until(pilot, lambda: app.pane.turn is not None and app.pane.turn.exchange)
        await pilot.press("f2")
        inspector = app.screen.query_one(Inspector)
        assert inspector.display
        frames = inspector.query_one(FrameList)
        assert app.focused is frames
        turn = app.pane.turn
        assert turn is not None
        assert turn.exchange is not None
        seen: set[int] = set()  # the row counts the list showed while the answer streamed
        while not turn.done:
            seen.add(len(frames.rows))
            await pilot.pause(0.05)
        await wait_drawn(pilot, timeout=20)
        await wait_until(
            pilot, lambda: frames.selected == len(turn.exchange.frames) - 1, what="the end"
        )
        assert len(frames.rows) == len(turn.exchange.frames)  # every frame, no silence mark
        assert len(seen) >= 2  # it grew in place while the stream ran
        request = text_of(inspector, "#inspector-request-text")
        assert request.startswith(f"POST {fake_provider.url}")
        assert '"stream": true' in request
        assert text_of(inspector, "#inspector-response").startswith("Response 200")
        text = screen_text(app)
        # the request with its body, the response and the frames on one 200x60 screen
        assert '"stream": true' in text
        assert "Response 200" in text
        frame_rows = [row for row in text.splitlines() if re.search(r"\d ms  \S", row)]
        assert len(frame_rows) >= 8  # a screenful of frames beside the request
        await pilot.press("home")
        assert "→ " in text_of(inspector, "#inspector-detail-text")
        await pilot.press("s")
        await pilot.pause()
        saved = list((tmp_path / "recordings").glob("triptych-fake-*.jsonl"))
        assert len(saved) == 1
        assert "content_block_delta" in saved[0].read_text()
        notices = [n.message for n in app._notifications]
        assert f"Saved the exchange to {saved[0]}" in notices[-1]  # says where
        await pilot.press("s")  # the same exchange again: not a second identical file
        await pilot.pause()
        assert list((tmp_path / "recordings").glob("*.jsonl")) == saved
        notices = [n.message for n in app._notifications]
        assert notices[-1] == f"Already saved to {saved[0]} (the same exchange): not written again."
        await pilot.press("f2")
        assert not inspector.display
        assert app.focused is app.screen.query_one("#prompt")


async def test_the_key_is_never_in_the_inspector_or_the_saved_recording(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    provider = fake_provider.provider(Api.CHAT, name="fake", model="m-1", api_key=SECRET)
    config = fake_config(fake_provider)
    config.providers["fake"] = provider
    fake_provider.push(fake.echoing(lambda _key: fake.stream(Api.CHAT)))
    app = make_app(config, tmp_path, history_file=tmp_path / "history.sqlite3")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_drawn(pilot)
        await pilot.press("f2")
        inspector = app.screen.query_one(Inspector)
        await wait_until(pilot, lambda: inspector.exchange is not None)
        await pilot.pause()
        assert "[redacted]" in text_of(inspector, "#inspector-request-text")
        await pilot.press("s")
        await pilot.pause()
        saved = list((tmp_path / "recordings").glob("*.jsonl"))
        assert saved
        for place in (screen_text(app), saved[0].read_text()):
            assert SECRET not in place
            assert SECRET[:12] not in place


async def test_a_reopened_answer_shows_its_kept_stream(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(fake.stream(Api.CHAT))
    config = fake_config(fake_provider)
    first = make_app(config, tmp_path, history_file=db)
    async with first.run_test(size=SIZE) as pilot:
        await send(pilot, "an old question")
        await wait_drawn(pilot)
        live = first.pane.turn
        assert live is not None
        assert live.exchange is not None
        frames_live = [(f.event, f.data) for f in live.exchange.frames]
    again = make_app(config, tmp_path, history_file=db, continue_last=True)
    async with again.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: again.pane.conversation.messages, what="reopened")
        await pilot.pause()
        await pilot.press("f2")
        inspector = again.screen.query_one(Inspector)
        await wait_until(pilot, lambda: inspector.exchange is not None, what="the kept stream")
        exchange = inspector.exchange
        assert exchange is not None
        assert [(f.event, f.data) for f in exchange.frames] == frames_live
        assert "[DONE]" in screen_text(again)


async def test_an_answer_with_no_stream_says_so(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        inspector = app.screen.query_one(Inspector)
        assert text_of(inspector, "#inspector-request-text") == "No stream kept for this answer."


async def test_the_inspector_is_composed_only_when_first_opened(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """The first frame lays out no inspector (its widgets, hidden, were a third of the
    chat screen's); F2 then mounts it on the last answer's request, and later F2s hide and show
    that same one."""
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=tmp_path / "h.sqlite3")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert not screen.query(Inspector)
        assert not screen.query(FrameList)
        assert not screen.query("#inspector-request-text")
        await send(pilot, "hello")
        await wait_drawn(pilot)
        assert not screen.query(Inspector)  # an answer alone does not make one either
        await pilot.press("f2")
        inspector = screen.query_one(Inspector)
        assert inspector.display
        assert app.focused is inspector.query_one(FrameList)
        await wait_until(pilot, lambda: inspector.exchange is app.pane.turn.exchange)
        assert text_of(inspector, "#inspector-request-text").startswith(f"POST {fake_provider.url}")
        assert "Response 200" in screen_text(app)
        await pilot.press("f2")
        assert not inspector.display
        await pilot.press("f2")
        assert screen.query_one(Inspector) is inspector  # shown again, not made again
        assert inspector.display
