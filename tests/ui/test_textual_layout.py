"""The app lays the screen out once per change (app/ui/textual_layout.py)."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from app.ui import textual_layout


class Growing(App[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("\n".join(["line"] * 5), id="text")


async def _layouts_for_growth(monkeypatch: Any) -> int:
    """Reflows for one growth of the content (after it first overflowed and showed a bar)."""
    calls: list[int] = []
    original = Screen._refresh_layout

    def counted(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        calls.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    app = Growing()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        calls.clear()
        app.query_one("#text", Static).update(
            "\n".join(["line"] * 30)
        )  # overflows: the bar appears
        for _ in range(5):
            await pilot.pause()
        scroll = app.query_one(VerticalScroll)
        assert scroll.show_vertical_scrollbar
        assert scroll.virtual_size.height == 30
        assert scroll.max_scroll_y == 30 - scroll.scrollable_content_region.height
        calls.clear()
        app.query_one("#text", Static).update("\n".join(["line"] * 31))  # grows, the bar stays
        for _ in range(5):
            await pilot.pause()
        assert scroll.virtual_size.height == 31
    return len(calls)


async def test_textual_reflows_twice_without_it(monkeypatch: Any) -> None:
    """The premise: stock Textual lays out again after a layout that changed virtual sizes."""
    monkeypatch.setattr(
        textual_layout.Widget, "_size_updated", textual_layout._textual_size_updated
    )
    assert await _layouts_for_growth(monkeypatch) == 2


async def test_one_reflow_per_change_once_installed(monkeypatch: Any) -> None:
    monkeypatch.setattr(
        textual_layout.Widget, "_size_updated", textual_layout._textual_size_updated
    )
    textual_layout.install()
    textual_layout.install()  # harmless twice
    assert textual_layout.installed()
    assert await _layouts_for_growth(monkeypatch) == 1  # and the bar still appeared
