"""The TUI against hostile servers: text no UTF-8 writer accepts (a lone
surrogate in a JSON string, a pair split across two deltas) reaches the screen mended, and
random status lines, headers and bodies never crash the app (the server-side fuzzing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.demo.frames import Answer, frames
from app.settings.config import Config, ProviderConfig, UiSettings
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.hostile import HostileServer, random_responses
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_drawn


@pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])
async def test_lone_and_split_surrogates_are_drawn_mended_and_the_app_keeps_running(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: Api
) -> None:
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    answer = Answer(text=("lone @HI@ here, ", "smile @HI@", "@LO@ done"))
    body = [
        f.replace(b"@HI@", b"\\ud83d").replace(b"@LO@", b"\\ude00") for f in frames(api, answer)
    ]
    fake_provider.push(fake.scripted([(0.0, f) for f in body]))
    app = make_app(fake_config(fake_provider, api), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hi")
        await wait_drawn(pilot)
        turn = app.pane.turn
        assert turn is not None
        assert turn.status is TurnStatus.COMPLETE
        assert turn.text == "lone \ufffd here, smile \U0001f600 done"
        turn.text.encode("utf-8")  # what the terminal and the history write: must not raise
        assert "lone \ufffd here" in screen_text(app)
        assert app.is_running


FUZZ_SEED, FUZZ_COUNT = 17_2026, 4  # per format: 12 answers through the app in all


@pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])
async def test_random_hostile_answers_never_crash_the_tui(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: Api
) -> None:
    """The server-side fuzzing, a smaller number through the real app: every answer settles,
    the app keeps running, and everything on screen can be written to a UTF-8 terminal."""
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    seed = FUZZ_SEED + list(Api).index(api)
    with HostileServer() as server:
        provider = ProviderConfig(name="fake", api=api, base_url=server.url, model="m-1")
        config = Config(path=None, default="fake", providers={"fake": provider}, ui=UiSettings())
        app = make_app(config, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            for number, raw in enumerate(random_responses(seed, FUZZ_COUNT)):
                server.push(raw)
                await send(pilot, f"question {number}")
                await wait_drawn(pilot, timeout=20)
                turn = app.pane.turn
                where = f"seed {seed}, response {number}: {raw[:200]!r}"
                assert turn is not None, where
                assert turn.done, where
                assert app.is_running
                screen_text(app).encode("utf-8")
        assert server.served == FUZZ_COUNT
