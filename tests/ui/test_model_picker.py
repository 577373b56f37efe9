"""Choosing a model: the picker takes a typed model id that is not listed,
marks the current one, and works in a comparison (switch the selected pane's model, choose the
model of a pane being added); the provider picker shows each provider's key status as
`triptych providers` does. Against the fake provider over loopback."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot

from app.settings.config import Config
from app.ui.app import TriptychApp
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import (
    PLAIN,
    all_drawn,
    ask,
    compare_screen,
    config_for,
)
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_drawn, wait_until

WIDE = (160, 48)


async def open_command(pilot: Pilot[Any], command: str) -> None:
    """Opens the palette, runs `command`, and waits for the picker it opens."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*command)
    await pilot.pause(0.4)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="the picker")
    await pilot.pause(0.3)


async def choose(pilot: Pilot[Any], typed: str) -> None:
    await pilot.press(*typed)
    await pilot.pause(0.4)
    await pilot.press("enter")


def listed(*ids: str) -> fake.Reply:
    return fake.json_answer({"data": [{"id": model} for model in ids]})


async def test_a_typed_model_id_not_in_the_list_is_used(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(listed("m-1", "m-2"), fake.stream(Api.CHAT, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_command(pilot, "switch model")
        await pilot.press(*"zz-custom-9")
        await pilot.pause(0.4)
        assert "Use model zz-custom-9" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.pane.model == "zz-custom-9", what="the typed model")
        await send(pilot, "hi")
        await wait_drawn(pilot)
        assert fake_provider.last_request().json["model"] == "zz-custom-9"
    state = tomllib.loads((tmp_path / "state.toml").read_text(encoding="utf-8"))
    assert state["model"] == "zz-custom-9"


async def test_the_current_model_is_marked(fake_provider: FakeProvider, tmp_path: Path) -> None:
    fake_provider.push(listed("m-1", "m-2"))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_command(pilot, "switch model")
        lines = screen_text(app).splitlines()
        at = next(i for i, line in enumerate(lines) if line.strip() == "m-1")
        assert "current model" in lines[at + 1]
        assert all("current model" not in line for line in lines[at + 2 :])


async def test_the_provider_picker_shows_each_key_status(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PICKER_KEY_SET", "sk-picker-SECRET-123")
    monkeypatch.delenv("PICKER_KEY_UNSET", raising=False)
    base = fake_provider.provider(Api.CHAT, model="m-1")
    providers = {
        "with-key": replace(base, name="with-key", api_key_env="PICKER_KEY_SET"),
        "no-key": replace(base, name="no-key", api_key_env="PICKER_KEY_UNSET"),
    }
    app = make_app(Config(path=None, default="with-key", providers=providers), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_command(pilot, "switch provider")
        text = screen_text(app)
        assert "key set ($PICKER_KEY_SET)" in text
        assert "key MISSING: set $PICKER_KEY_UNSET" in text
        assert "sk-picker-SECRET-123" not in text


# -- in a comparison ---------------------------------------------------------------------------


def compare_app(fakes: dict[Api, FakeProvider], tmp_path: Path) -> TriptychApp:
    return make_app(config_for(fakes), tmp_path, compare=["cc", "am"])


async def test_switch_model_changes_the_selected_pane_only(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    fakes[Api.MESSAGES].push(listed("am-model", "am-big"))
    for api in (Api.CHAT, Api.MESSAGES):
        fakes[api].push(fake.stream(api, PLAIN))
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        await pilot.press("alt+right")
        assert screen.selected == 1
        await open_command(pilot, "switch model")
        assert fakes[Api.MESSAGES].requests[-1].method == "GET"
        assert "current model" in screen_text(app)
        await choose(pilot, "am-big")
        am = screen.panes[1]
        await wait_until(pilot, lambda: am.model == "am-big", what="pane 2's new model")
        await pilot.pause(0.1)
        assert screen.panes[0].model == "cc-model"
        assert "2 · am · am-big · messages" in screen_text(app)
        await ask(pilot, "go")
        await all_drawn(pilot)
        assert fakes[Api.MESSAGES].requests[-1].json["model"] == "am-big"
        assert fakes[Api.CHAT].requests[-1].json["model"] == "cc-model"


async def test_adding_a_pane_asks_which_model(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    fakes[Api.RESPONSES].push(listed("rs-model", "rs-mini"))
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        await open_command(pilot, "add pane")
        await choose(pilot, "rs")
        await wait_until(pilot, lambda: len(fakes[Api.RESPONSES].requests) == 1, what="models")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="models")
        await pilot.pause(0.3)
        assert "current model" not in screen_text(app)  # no pane asks rs yet
        assert "rs-mini" in screen_text(app)
        await choose(pilot, "rs-mini")
        await wait_until(pilot, lambda: len(screen.panes) == 3, what="a third pane")
        assert screen.panes[2].provider.name == "rs"
        assert screen.panes[2].model == "rs-mini"
        await pilot.pause(0.1)
        assert "3 · rs · rs-mini · responses" in screen_text(app)
