"""The stylesheet is parsed once before the first frame, already in the theme the app starts in:
the theme is set before Textual has styled anything, so Textual's refresh of the CSS
that setting it queues (a re-parse of every source) is not needed then; after mount, a change of
theme re-styles the screen as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.color import Color
from textual.css.stylesheet import Stylesheet

from app.ui.app import TriptychApp
from tests.ui.helpers import SIZE, make_app, wait_until
from tests.ui.test_remembered_choice import themed


def background(app: TriptychApp, theme: str | None = None) -> Color:
    """The screen's background as drawn, or as the theme names it."""
    if theme is None:
        return app.screen.styles.background
    named = app.get_theme(theme)
    assert named is not None
    assert named.background is not None
    return Color.parse(named.background)


@pytest.mark.parametrize(("theme", "other"), [("triptych-dark", "triptych-light"),
                                              ("triptych-light", "triptych-dark")])  # fmt: skip
async def test_the_first_frame_is_styled_in_its_theme_without_a_second_parse(
    tmp_path: Path, theme: str, other: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    reparsed: list[str] = []
    reparse = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        reparsed.append(theme)
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    app = make_app(themed(theme), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.theme == theme
        assert reparsed == []  # Textual's refresh before mount would have been one
        assert background(app) == background(app, theme) != background(app, other)

        app.theme = other  # after mount: re-parsed and re-styled, as Textual does
        await wait_until(pilot, lambda: background(app) == background(app, other))
        assert reparsed
