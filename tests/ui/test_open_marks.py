"""While an answer streams, an emphasis or code mark whose closing half has not arrived yet is
drawn as if closed: the demo's first words (`_demo: offline sample…_`) no longer flash a `_`
that vanishes a moment later, nor does `**real` before its `**`. Once the answer has ended the
text is drawn exactly as sent, an unclosed mark included."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.demo.frames import Answer, frames
from app.demo.loopback import Pause, Reply
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_until

HOLD = 60.0  # seconds the server waits after the held piece; the test stops it long before


def held_after(api: Api, pieces: tuple[str, ...], held: int) -> Reply:
    """The answer's frames, with the server silent after text piece `held` (0-based)."""
    sent = frames(api, Answer(text=pieces))
    head = {Api.CHAT: 1, Api.MESSAGES: 2, Api.RESPONSES: 1}[api]
    cut = head + held + 1
    steps = (*fake._paced(sent[:cut], 0.0), Pause(HOLD), *fake._paced(sent[cut:], 0.0))
    return Reply(200, fake.SSE, steps)


@pytest.mark.parametrize(
    ("pieces", "shown", "hidden"),
    [
        (("_demo: offline", " sample — no model was called._"), "demo: offline", "_demo"),
        (("Streamed as **real", " events** here."), "Streamed as real", "**"),
        (("Call `print", "()` now."), "Call print", "`"),
    ],
)
async def test_an_unclosed_mark_is_not_drawn_while_streaming(
    fake_provider: FakeProvider, tmp_path: Path, pieces: tuple[str, ...], shown: str, hidden: str
) -> None:
    fake_provider.push(held_after(Api.CHAT, pieces, 0))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_until(pilot, lambda: shown in screen_text(app), what=repr(shown))
        await pilot.pause()
        answer_rows = [line for line in screen_text(app).splitlines() if shown in line]
        assert answer_rows
        assert all(hidden not in line for line in answer_rows), answer_rows
        await pilot.press("escape")  # stopped: the text as it arrived, mark and all
        await wait_until(pilot, lambda: app.pane.current is not None and app.pane.current.drawn)
        await pilot.pause()
        assert any(hidden in line for line in screen_text(app).splitlines()), hidden
