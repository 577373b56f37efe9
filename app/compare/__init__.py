"""Side by side: the pure part of comparing providers (which ones, their figures, the ranking,
and `ask --compare`). No Textual or Rich here; the screen is app/ui/screens/compare.py."""

from app.compare.spec import (
    MAX_PANES,
    MIN_PANES,
    CompareSpecError,
    compare_provider,
    pane_labels,
    parse_compare,
)
from app.compare.stats import (
    PaneStats,
    PaneTimes,
    format_cost,
    pane_stats,
    ranking_line,
    turn_cost,
)

__all__ = [
    "MAX_PANES",
    "MIN_PANES",
    "CompareSpecError",
    "PaneStats",
    "PaneTimes",
    "compare_provider",
    "format_cost",
    "pane_labels",
    "pane_stats",
    "parse_compare",
    "ranking_line",
    "turn_cost",
]
