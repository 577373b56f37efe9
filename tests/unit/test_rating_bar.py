"""Ratings and intervals on one shared scale (app/display/rating_bar.py)."""

from __future__ import annotations

from app.display.rating_bar import rating_bar, scale


def test_bars_share_a_scale_and_place_the_dot() -> None:
    axis = scale([(900.0, 1100.0), (1000.0, 1200.0)])
    assert axis == (900.0, 1200.0)
    assert rating_bar(1000, 900, 1100, axis, 31) == "─" * 10 + "●" + "─" * 10 + " " * 10
    assert rating_bar(1100, 1000, 1200, axis, 31) == " " * 10 + "─" * 10 + "●" + "─" * 10


def test_a_single_point_and_tiny_widths() -> None:
    axis = scale([(1000.0, 1000.0)])
    assert axis == (999.0, 1001.0)
    assert rating_bar(1000, 1000, 1000, axis, 5) == "  ●  "
    assert rating_bar(1000, 990, 1010, axis, 1) == "●"
    assert rating_bar(1000, 990, 1010, axis, 0) == ""
    assert scale([]) == (0.0, 1.0)
