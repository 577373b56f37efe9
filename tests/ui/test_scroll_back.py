"""Scrolling back while an answer streams.

Scrolling up — PageUp or the mouse wheel, on a short chat or a long one — holds the place while
text keeps arriving, until the reader comes back: End, PageDown to the end, or a click on the
"▼ new text below" marker that shows whenever text arrives below the view. A short chat is never
drawn bottom-aligned with blank space over it.

The answers come over loopback HTTP from the fake provider, paced so that text is still arriving
while the test looks; every wait is for an amount of text, never for a time.
"""

from __future__ import annotations

import re
from pathlib import Path

from textual.events import MouseScrollUp
from textual.pilot import Pilot

from app.demo.frames import Answer, frames
from app.demo.samples import pieces
from app.ui.app import TriptychApp
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import fake_config, make_app, screen_text, send, wait_until

MARKER = "▼ new text below"


def long_text(sections: int) -> str:
    words = " ".join(f"word{i}" for i in range(30))
    return "".join(
        f"## Section {n}\n\n{words}\n\n- point one of {n}\n- point two\n\n"
        f"```python\nvalue_{n} = {n}\nprint(value_{n})\n```\n\n"
        for n in range(sections)
    )


def paced(text: str, *, first: int, pause: float, delay: float) -> fake.Reply:
    """The answer's first `first` pieces at once, a pause, then one piece every `delay` s."""
    sent = frames(Api.CHAT, Answer(text=pieces(text)))
    head = 1 + first  # the role frame, then one frame per piece
    steps = [(0.0, b"".join(sent[:head])), (pause, sent[head])]
    steps += [(delay, frame) for frame in sent[head + 1 :]]
    return fake.scripted(steps)


def view_rows(app: TriptychApp) -> list[str]:
    """The transcript's rows as on screen (without its scrollbar column)."""
    region = app.pane.transcript.region
    rows = screen_text(app).split("\n")[region.y : region.bottom]
    return [row[region.x : region.right - 1].rstrip() for row in rows]


def marker_at(app: TriptychApp) -> tuple[int, int]:
    """Where the marker is on screen."""
    for y, row in enumerate(screen_text(app).split("\n")):
        if MARKER in row:
            return row.index(MARKER) + 2, y
    raise AssertionError(f"no {MARKER!r} on screen:\n{screen_text(app)}")


def answer_chars(app: TriptychApp) -> int:
    view = app.pane.current
    return 0 if view is None else len(view.answer.source)


async def more_text(pilot: Pilot[object], app: TriptychApp, chars: int) -> None:
    """Wait until `chars` more characters of the answer are on their way to the screen."""
    start = answer_chars(app)
    await wait_until(pilot, lambda: answer_chars(app) >= start + chars, 20, f"{chars} more chars")
    await pilot.pause()


def first_written(rows: list[str]) -> str:
    return next((row.strip() for row in rows if row.strip()), "")


def assert_not_blank(rows: list[str]) -> None:
    written = [row for row in rows if row.strip()]
    assert len(written) >= len(rows) // 3, "the view is (nearly) blank:\n" + "\n".join(rows)


def assert_same_text(now: list[str], before: list[str]) -> None:
    """The view shows what it showed (the marker takes its last row meanwhile)."""
    assert now == before[: len(now)], "\n".join(["now:", *now, "before:", *before])


async def assert_follows(pilot: Pilot[object], app: TriptychApp) -> None:
    """At the end, and staying there while more text arrives; the marker is gone."""
    transcript = app.pane.transcript
    await wait_until(pilot, lambda: transcript.scroll_y == transcript.max_scroll_y, what="end")
    height = transcript.virtual_size.height
    await wait_until(
        pilot,
        lambda: transcript.virtual_size.height > height + 3,
        20,
        f"growth {height} {app.pane.turn and app.pane.turn.status} {answer_chars(app)}",
    )
    await pilot.pause()
    assert transcript.scroll_y == transcript.max_scroll_y
    assert MARKER not in screen_text(app)


async def test_page_up_on_a_short_chat_holds_the_start_while_the_answer_grows(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(paced(long_text(60), first=12, pause=1.5, delay=0.004))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = app.pane.transcript
        await send(pilot, "long")
        await wait_until(pilot, lambda: "Section 0" in screen_text(app), what="first text")
        rows = view_rows(app)
        assert first_written(rows).endswith("long"), rows  # top-aligned: the prompt first
        await pilot.press("pageup")
        # Three screens of text arrive below.
        await wait_until(pilot, lambda: transcript.max_scroll_y > 3 * transcript.size.height, 20)
        await pilot.pause()
        assert transcript.scroll_y == 0
        rows = view_rows(app)
        assert first_written(rows).endswith("long"), rows
        assert_not_blank(rows)
        assert MARKER in screen_text(app)

        await pilot.press("end")
        await assert_follows(pilot, app)


async def test_page_up_mid_stream_holds_until_page_down_reaches_the_end(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    # 25 tok/s: under Pilot a PageDown waits for the app to be idle, which can take most of a
    # second while it streams, and the stream must outlast the presses that reach its end.
    fake_provider.push(paced(long_text(40), first=0, pause=0.0, delay=0.04))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = app.pane.transcript
        await send(pilot, "long")
        # A screen and a half: less than two screens tall.
        await wait_until(
            pilot, lambda: transcript.max_scroll_y > transcript.size.height // 2, 20, "overflow"
        )
        await pilot.press("pageup")
        await pilot.pause()
        held, rows = transcript.scroll_y, view_rows(app)
        assert held < transcript.max_scroll_y
        await more_text(pilot, app, 400)
        assert transcript.scroll_y == held
        assert_same_text(view_rows(app), rows)
        assert_not_blank(view_rows(app))
        assert MARKER in screen_text(app)

        for _ in range(100):
            if MARKER not in screen_text(app):
                break
            await pilot.press("pagedown")
        await assert_follows(pilot, app)


async def test_the_mouse_wheel_holds_and_a_click_on_the_marker_follows_again(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(paced(long_text(80), first=0, pause=0.0, delay=0.004))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = app.pane.transcript
        await send(pilot, "long")
        await wait_until(pilot, lambda: transcript.max_scroll_y > 4, 20, "overflow")
        for _ in range(2):  # Pilot has no wheel of its own: the event as the driver sends it
            await pilot._post_mouse_events([MouseScrollUp], transcript, offset=(10, 5))
        held, rows = transcript.scroll_y, view_rows(app)
        assert held < transcript.max_scroll_y
        await more_text(pilot, app, 800)
        assert transcript.scroll_y == held
        assert_same_text(view_rows(app), rows)
        await pilot.click(offset=marker_at(app))
        await assert_follows(pilot, app)


async def test_a_fast_long_answer_holds_the_place_among_sleeping_segments(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    # A local server at a few hundred tokens a second; segments far away sleep meanwhile.
    fake_provider.push(paced(long_text(200), first=0, pause=0.0, delay=0.002))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = app.pane.transcript
        await send(pilot, "long")
        await wait_until(
            pilot, lambda: transcript.max_scroll_y > 3 * transcript.size.height, 30, "3 screens"
        )
        await pilot.press("pageup", "pageup")
        await pilot.pause()
        held, rows = transcript.scroll_y, view_rows(app)
        for _ in range(3):
            await more_text(pilot, app, 1000)
            assert transcript.scroll_y == held
            assert_same_text(view_rows(app), rows)
            assert_not_blank(view_rows(app))
        assert MARKER in screen_text(app)
        await pilot.press("end")
        await assert_follows(pilot, app)


async def test_a_short_chat_is_never_drawn_with_blank_space_above_it(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(paced(long_text(6), first=0, pause=0.0, delay=0.0))
    fake_provider.push(paced("A short answer.", first=0, pause=0.0, delay=0.0))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = app.pane.transcript
        await send(pilot, "long")
        await wait_until(pilot, lambda: app.pane.current is not None and app.pane.current.drawn)
        await pilot.press("ctrl+n")  # a new chat after a long one, which was followed
        await send(pilot, "short")
        await wait_until(pilot, lambda: "A short answer." in screen_text(app), what="answer")
        await pilot.pause()
        rows = view_rows(app)
        assert transcript.scroll_y == 0, rows
        assert first_written(rows).endswith("short"), rows
        assert not re.search(r"Section", screen_text(app))
