"""The palette's "Record the session": every exchange of the chat (and of a comparison's panes)
appended to one recording file until "Stop recording the session", which `triptych replay`
reads back (a comparison's side by side)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.demo.replay_server import ReplayServer
from app.headless.replay_plan import prompt_of, replay_plan
from app.providers.record import read_recording
from app.ui.screens.compare import CompareScreen
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import answer, ask, compare_screen, config_for
from tests.ui.helpers import SIZE, fake_config, make_app, send, wait_drawn, wait_until
from tests.ui.test_replay_ui import replay_app

SECRET = "sk-session-0d9c8b7a6f5e"


async def palette(pilot: Pilot[Any], command: str) -> None:
    await pilot.press("ctrl+p")
    await pilot.press(*command)
    await pilot.pause(0.3)
    await pilot.press("enter")
    await pilot.pause()


async def test_every_exchange_until_stopped_goes_to_one_recording(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    config = fake_config(fake_provider)
    config.providers["fake"] = fake_provider.provider(
        Api.CHAT, name="fake", model="m-1", api_key=SECRET
    )
    fake_provider.push(fake.stream(Api.CHAT), fake.stream(Api.CHAT), fake.stream(Api.CHAT))
    app = make_app(config, tmp_path, history_file=tmp_path / "history.sqlite3")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "before")  # not recorded
        await wait_drawn(pilot)
        await palette(pilot, "Record the session")
        recording = app.session_recording
        assert recording is not None
        path = recording.path
        assert path.parent == tmp_path / "recordings"
        for number, prompt in enumerate(("first", "second"), 1):
            await send(pilot, prompt)
            await wait_until(pilot, lambda n=number: recording.count == n, what="recorded")
        await palette(pilot, "Stop recording the session")
        assert app.session_recording is None
        await send(pilot, "after")  # not recorded either
        await wait_drawn(pilot)
    exchanges = read_recording(path)
    assert [prompt_of(e) for e in exchanges] == ["first", "second"]
    assert all(e.status == 200 for e in exchanges)
    assert SECRET not in path.read_text(encoding="utf-8")


async def test_a_comparison_is_recorded_and_replays_side_by_side_with_the_wire_open(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    for api in (Api.CHAT, Api.MESSAGES):
        fakes[api].push(fake.stream(api, answer(f"{api.value} says ", "hi.")))
    app = make_app(
        config_for(fakes), tmp_path, history_file=tmp_path / "h.sqlite3", compare=["cc", "am"]
    )
    async with app.run_test(size=(160, 40)) as pilot:
        screen = compare_screen(app)
        await palette(pilot, "Record the session")
        recording = app.session_recording
        assert recording is not None
        path = recording.path
        assert "Stop recording the session" in [c.name for c in screen.commands()]
        await ask(pilot, "race")
        await wait_until(pilot, lambda: recording.count == 2, what="both panes recorded")
        live = [p.turn.text for p in screen.panes if p.turn is not None]
        await palette(pilot, "Stop recording the session")
        assert app.session_recording is None
    exchanges = read_recording(path)
    assert [prompt_of(e) for e in exchanges] == ["race", "race"]
    with ReplayServer(exchanges, speed=None) as server:
        plan = replay_plan(exchanges, ["replay 1", "replay 2"])
        assert plan.side_by_side
        replayed = replay_app(server, plan, tmp_path)
        async with replayed.run_test(size=(200, 50)) as pilot:
            await wait_until(
                pilot, lambda: isinstance(replayed.screen, CompareScreen), what="side by side"
            )
            again = compare_screen(replayed)
            await wait_until(
                pilot,
                lambda: all(p.turn is not None and p.turn.done for p in again.panes),
                what="both replayed",
            )
            assert sorted(p.turn.text for p in again.panes if p.turn) == sorted(live)
            assert again.inspector.display  # the replay opens the wire, on the first pane
            first = again.panes[0].turn
            assert first is not None
            await wait_until(pilot, lambda: again.inspector.exchange is first.exchange)
