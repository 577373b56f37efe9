"""Every shipped theme keeps all text at 4.5:1 contrast or more (WCAG AA), read from the cells
actually drawn, and its scrollbar thumbs at 3:1 against their track."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.color import Color
from textual.pilot import Pilot

from app.settings.config import Config, UiSettings
from app.ui.app import TriptychApp
from app.ui.themes import load_themes
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import fake_config, make_app, send, wait_drawn, wait_until

SHIPPED = [theme.name for theme in load_themes(None).themes]
NOT_TEXT = set("╭╮╰╯│─┃━▏▕▔▁▊▎▌▐█▀▄ ")  # borders and bars: not text, judged as components


def luminance(color: Color) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: Color, b: Color) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def low_contrast_text(app: TriptychApp) -> list[tuple[str, float]]:
    """(text, ratio) of every drawn run of text under 4.5:1."""
    found = []
    for strip in app.screen._compositor.render_strips():
        for segment in strip:
            style = segment.style
            text = "".join(ch for ch in segment.text if ch not in NOT_TEXT)
            if not text or style is None or style.color is None or style.bgcolor is None:
                continue
            fg, bg = Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor)
            if style.reverse:
                fg, bg = bg, fg
            ratio = contrast(fg, bg)
            if ratio < 4.5:
                found.append((text, round(ratio, 2)))
    return found


async def set_theme(pilot: Pilot[Any], theme: str) -> None:
    pilot.app.theme = theme
    await pilot.pause()


@pytest.mark.parametrize("theme", SHIPPED)
async def test_all_text_of_a_chat_reaches_4_5_to_1(
    fake_provider: FakeProvider, tmp_path: Path, theme: str
) -> None:
    fake_provider.push(fake.stream(Api.CHAT), fake.http_error(Api.CHAT, 429, "slow", "Wait."))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=(100, 34)) as pilot:
        await set_theme(pilot, theme)
        assert low_contrast_text(app) == []  # the empty chat: placeholder hints, footer
        await send(pilot, "hello")
        await wait_drawn(pilot)
        await send(pilot, "again")
        await wait_until(pilot, lambda: app.pane.turn is not None and app.pane.turn.done)
        await wait_drawn(pilot)
        assert low_contrast_text(app) == []  # labels, reasoning, a tool card, an error, status


@pytest.mark.parametrize("theme", SHIPPED)
async def test_all_text_of_a_comparison_reaches_4_5_to_1(
    fake_provider: FakeProvider, tmp_path: Path, theme: str
) -> None:
    one = fake_provider.provider(Api.CHAT, name="one", model="m-1")
    two = fake_provider.provider(Api.CHAT, name="two", model="m-2")
    config = Config(path=None, default="one", providers={"one": one, "two": two}, ui=UiSettings())
    fake_provider.push(fake.stream(Api.CHAT), fake.stream(Api.CHAT))
    app = make_app(config, tmp_path, compare=["one", "two"])
    async with app.run_test(size=(120, 34)) as pilot:
        await set_theme(pilot, theme)
        await pilot.pause(0.2)
        assert low_contrast_text(app) == []


@pytest.mark.parametrize("theme", SHIPPED)
def test_scrollbar_thumbs_stand_out_from_their_track(theme: str) -> None:
    found = next(t for t in load_themes(None).themes if t.name == theme)
    colors = found.to_color_system().generate()
    track = Color.parse(colors["scrollbar-background"])
    for part in ("scrollbar", "scrollbar-hover", "scrollbar-active"):
        assert contrast(Color.parse(colors[part]), track) >= 3.0, part


def test_the_contrast_check_can_fail() -> None:
    assert contrast(Color.parse("#8D8F91"), Color.parse("#ECEFF3")) < 4.5  # the old hint
    assert contrast(Color.parse("#000000"), Color.parse("#FFFFFF")) == pytest.approx(21.0)
