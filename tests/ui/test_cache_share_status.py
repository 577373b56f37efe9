"""The cache-hit share beside the usage in the chat's status bar."""

from __future__ import annotations

from pathlib import Path

from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, send, wait_drawn


async def test_the_status_bar_shows_the_cache_hit_share(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))  # 11 in, 4 of them cached
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_drawn(pilot)
        status = app.pane.status_bar.plain
        assert "in 11 out 9 cached 4 · cache 36%" in status
