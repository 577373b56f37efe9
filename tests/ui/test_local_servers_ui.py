"""Local servers in the app: probed only after the first frame, on a thread, so a prompt sent
meanwhile is answered without waiting; what is found joins the provider list and answers."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from app.demo.server import with_demo_providers
from app.settings.catalogue import BY_NAME
from app.settings.config import Config, ProviderConfig, catalogue_provider
from app.ui.widgets.welcome import Welcome
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, make_app, send, wait_drawn, wait_until


def ollama_at(url: str) -> ProviderConfig:
    found = catalogue_provider(BY_NAME["ollama"], {})
    return replace(found, base_url=url, model="qwen3:8b", models=("qwen3:8b",))


async def test_found_after_the_first_frame_it_joins_the_list_and_answers(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    seen_at_probe: list[int] = []

    def probe() -> list[ProviderConfig]:
        seen_at_probe.append(len(app.query(Welcome)))  # the first screen was already up
        return [ollama_at(fake_provider.url)]

    app = make_app(with_demo_providers(Config(path=None)), tmp_path, local_probe=probe)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "ollama" in app.config.providers, what="ollama")
        assert seen_at_probe == [1]
        found = app.config.providers["ollama"]
        assert (found.origin, found.models) == ("local", ("qwen3:8b",))
        fake_provider.push(fake.stream(Api.CHAT))
        app.switch_to(found, found.model)
        await wait_until(pilot, lambda: app.pane.provider.name == "ollama", what="the switch")
        await send(pilot, "hi")
        await wait_drawn(pilot)
        assert app.pane.turn is not None
        assert app.pane.turn.status is TurnStatus.COMPLETE
        assert fake_provider.last_request().json["model"] == "qwen3:8b"


async def test_a_slow_probe_never_holds_a_prompt_back(tmp_path: Path) -> None:
    release = threading.Event()

    def probe() -> list[ProviderConfig]:
        release.wait(20)  # a server that takes its time to answer (or never does)
        return []

    app = make_app(with_demo_providers(Config(path=None)), tmp_path, local_probe=probe)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await send(pilot, "hello")
            await wait_drawn(pilot, timeout=10)
            assert app.pane.turn is not None
            assert app.pane.turn.status is TurnStatus.COMPLETE
            assert not release.is_set()  # answered while the probe still waited
    finally:
        release.set()
