"""Ctrl+C while an answer streams stops it (as Esc does) and warns; a second Ctrl+C within 2 s,
or one while nothing streams, quits. Ctrl+C still copies a selection in the prompt. The 2 s
window runs on the app's injected clock, so nothing here sleeps through it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual.pilot import Pilot

from app.ui.app import TriptychApp
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.user_message import UserMessage
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.compare_helpers import ask, compare_screen, config_for, reached
from tests.ui.helpers import SIZE, fake_config, make_app, send, wait_drawn, wait_until
from tests.ui.scripted import FakeClock

PLAIN = replace(ANSWER, reasoning=(), tool=None)
AGAIN = "press Ctrl+C again to quit"


def messages(app: TriptychApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def streaming(pilot: Pilot[TriptychApp], app: TriptychApp, text: str = "go on") -> None:
    await send(pilot, text)
    await wait_until(pilot, lambda: app.pane.current and "word2" in app.pane.current.answer.source)


async def test_ctrl_c_mid_answer_stops_it_and_a_second_one_quits(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.paced_forever(Api.CHAT, PLAIN, delay=0.02))
    app = make_app(fake_config(fake_provider), tmp_path, clock=FakeClock())
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await streaming(pilot, app)
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert app.is_running
        assert app.pane.turn is not None
        assert app.pane.turn.status is TurnStatus.STOPPED
        assert any(AGAIN in text for text in messages(app))
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
    assert app.return_value == 0


async def test_the_second_ctrl_c_counts_only_within_two_seconds(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    for _ in range(3):
        fake_provider.push(fake.paced_forever(Api.CHAT, PLAIN, delay=0.02))
    clock = FakeClock()
    app = make_app(fake_config(fake_provider), tmp_path, clock=clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await streaming(pilot, app, "one")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.pane.streaming, what="the stop drawn")
        clock.now += 2.5  # too late to count as "again": this one only stops the next answer
        await streaming(pilot, app, "two")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.pane.streaming, what="the second stop drawn")
        assert app.is_running
        assert app.pane.turn is not None
        assert app.pane.turn.status is TurnStatus.STOPPED
        clock.now += 1.5  # within 2 s of the last Ctrl+C: quits though an answer streams
        await streaming(pilot, app, "three")
        await pilot.press("ctrl+c")
        await pilot.pause(0.2)
    assert app.return_value == 0
    assert app.pane.turn is not None
    assert app.pane.turn.status is TurnStatus.STOPPED  # quitting stopped it first


async def test_ctrl_c_with_nothing_running_quits(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+c")
        await pilot.pause(0.2)
    assert app.return_value == 0


async def test_ctrl_c_copies_a_selection_in_the_prompt(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.screen.query_one(PromptInput)
        prompt.focus()
        await pilot.press(*"hello world", "shift+home")
        assert prompt.selected_text == "hello world"
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert app.is_running
        assert app.clipboard == "hello world"
        assert prompt.text == "hello world"


async def test_ctrl_c_in_a_comparison_stops_every_pane(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    for api, server in fakes.items():
        server.push(fake.paced_forever(api, PLAIN, delay=0.03))
    app = make_app(config_for(fakes), tmp_path, clock=FakeClock(), compare=["cc", "am", "rs"])
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await ask(pilot, "go on")
        panes = compare_screen(app).panes
        for pane in panes:
            await reached(pilot, pane, "word2")
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert app.is_running
        assert [p.turn.status for p in panes if p.turn] == [TurnStatus.STOPPED] * 3
        assert any(AGAIN in text for text in messages(app))
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
    assert app.return_value == 0


async def test_ctrl_c_copies_text_selected_on_screen(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path, clock=FakeClock())
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "a prompt to copy")
        await wait_drawn(pilot)
        app.pane.transcript.query_one(UserMessage).text_select_all()
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert app.is_running
        assert app.clipboard == "a prompt to copy"
