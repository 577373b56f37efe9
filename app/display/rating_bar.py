"""A rating and its 95% interval as one row of a chart: `──●───` placed on a scale every row of
the leaderboard shares, so overlapping intervals (no clear winner) show as overlapping bars."""

from __future__ import annotations

from collections.abc import Sequence

LINE, POINT, EMPTY = "─", "●", " "


def scale(bounds: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The lowest low and highest high, widened so a single point still has room."""
    if not bounds:
        return 0.0, 1.0
    low = min(b[0] for b in bounds)
    high = max(b[1] for b in bounds)
    if high - low < 1:
        return low - 1, high + 1
    return low, high


def rating_bar(
    rating: float, low: float, high: float, axis: tuple[float, float], width: int
) -> str:
    """`width` characters: the interval as a line, the rating as a dot, on `axis`."""
    if width <= 0:
        return ""
    start, stop = axis
    span = stop - start

    def column(value: float) -> int:
        return max(0, min(width - 1, round((value - start) / span * (width - 1))))

    row = [EMPTY] * width
    for index in range(column(low), column(high) + 1):
        row[index] = LINE
    row[column(rating)] = POINT
    return "".join(row)


__all__ = ["rating_bar", "scale"]
