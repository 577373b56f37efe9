"""While an answer streams, the prompt's cursor is lit and still: each blink was a frame of
its own, two a second on top of the render clock's. Blinking comes back when the answer ends."""

from __future__ import annotations

from pathlib import Path

from app.ui.widgets.prompt import PromptInput
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, send, wait_drawn, wait_until


async def test_the_cursor_stops_blinking_while_an_answer_streams(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.paced_forever(Api.CHAT))  # streams until Esc: no race to see it
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.screen.query_one("#prompt", PromptInput)
        assert prompt.cursor_blink
        await send(pilot, "hello")
        await wait_until(pilot, lambda: app.pane.streaming, what="streaming")
        await pilot.pause(0.2)
        assert not prompt.cursor_blink
        await pilot.press("escape")
        await wait_drawn(pilot)
        await wait_until(pilot, lambda: prompt.cursor_blink, what="blinking again")

        prompt.cursor_blink = False  # set still (as the snapshot tests do): it stays still
        fake_provider.push(fake.stream(Api.CHAT, delay=0.05))
        await send(pilot, "again")
        # Short enough to be over before Pilot's Enter returns on a loaded machine: waited
        # for by its request, not by watching it stream.
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2, what="the request")
        await wait_drawn(pilot)
        await wait_until(pilot, lambda: not app.render_clock.live, what="the clock idle")
        await pilot.pause(0.2)
        assert not prompt.cursor_blink
