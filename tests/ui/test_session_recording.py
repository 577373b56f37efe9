"""The palette's "Record the session": every exchange of the chat appended to one recording
file until "Stop recording the session", which `triptych replay` reads back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.headless.replay_plan import prompt_of
from app.providers.record import read_recording
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, send, wait_drawn, wait_until

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
