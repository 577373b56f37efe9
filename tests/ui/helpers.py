"""Driving the real TriptychApp in Pilot tests: a config pointing at the fake provider, waiting
for a state instead of sleeping, and reading what is on screen."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.settings.config import Config, ProviderConfig, UiSettings
from app.ui.app import TriptychApp
from app.wire.engine import Api
from tests.fakes.provider import FakeProvider

SIZE = (110, 40)


def fake_config(fake: FakeProvider, api: Api = Api.CHAT, **ui: Any) -> Config:
    provider: ProviderConfig = fake.provider(api, name="fake", model="m-1")
    return Config(path=None, default="fake", providers={"fake": provider}, ui=UiSettings(**ui))


def make_app(config: Config, tmp_path: Path, **kwargs: Any) -> TriptychApp:
    """The app on `config` alone: no local server found on this machine joins it (unless the
    test gives its own `local_probe`)."""
    kwargs.setdefault("local_probe", list)
    return TriptychApp(
        config, state_file=tmp_path / "state.toml", themes_dir=tmp_path / "themes", **kwargs
    )


async def wait_until(
    pilot: Pilot[Any], predicate: Callable[[], object], timeout: float = 15.0, what: str = ""
) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        await pilot.pause(0.02)


async def send(pilot: Pilot[Any], text: str) -> None:
    app = pilot.app
    assert isinstance(app, TriptychApp)
    app.screen.query_one("#prompt").focus()
    await pilot.press(*text)
    await pilot.press("enter")


async def wait_drawn(pilot: Pilot[Any], timeout: float = 15.0) -> None:
    app = pilot.app
    assert isinstance(app, TriptychApp)
    await wait_until(
        pilot,
        lambda: app.pane.current is not None and app.pane.current.drawn,
        timeout,
        "the turn to be drawn",
    )
    await pilot.pause()


def screen_text(app: TriptychApp) -> str:
    """The characters on screen, as a terminal would show them."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text for strip in strips)


def footer_text(app: TriptychApp) -> str:
    """The last row of the screen: the footer with the keys that apply now."""
    return screen_text(app).rstrip("\n").splitlines()[-1]


__all__ = [
    "SIZE",
    "fake_config",
    "footer_text",
    "make_app",
    "screen_text",
    "send",
    "wait_drawn",
    "wait_until",
]
