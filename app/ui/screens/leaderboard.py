"""The leaderboard as a screen: the table `triptych leaderboard` prints, with each rating's 95%
interval drawn on one shared scale. Esc goes back.

It is handed the rows (the standings are fitted off the event loop by whoever opens it); names
come from the config and the history, so every cell is literal Text, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from app.compare import format_cost
from app.compare.leaderboard import Standing
from app.display.rating_bar import rating_bar, scale
from app.display.sanitize import clean_line
from app.headless.leaderboard import interval_text

NO_VOTES = "No votes yet: compare with --blind (or the palette's blind command) and vote."
BAR_WIDTH = 24
COLUMNS = (
    "#",
    "provider:model",
    "rating",
    "95%",
    "interval",
    "battles",
    "W",
    "L",
    "T",
    "win",
    "TTFT",
    "tok/s",
    "cost",
)


def rows_of(standings: Sequence[Standing], width: int = BAR_WIDTH) -> list[tuple[Text, ...]]:
    axis = scale([_bounds(row) for row in standings])

    def right(text: str) -> Text:
        return Text(text, justify="right")

    return [
        (
            right(str(row.rank)),
            Text(clean_line(f"{row.provider}:{row.model}")),
            right(f"{row.rating:.0f}"),
            right(interval_text(row)),
            Text(rating_bar(row.rating, *_bounds(row), axis, width)),
            right(str(row.battles)),
            right(str(row.wins)),
            right(str(row.losses)),
            right(str(row.ties)),
            right(f"{row.win_rate:.0%}"),
            right("–" if row.ttft_ms_median is None else f"{row.ttft_ms_median:.0f} ms"),
            right("–" if row.tok_s_median is None else f"{row.tok_s_median:.1f}"),
            right("–" if row.cost_median is None else format_cost(row.cost_median)),
        )
        for row in standings
    ]


def _bounds(row: Standing) -> tuple[float, float]:
    """The interval drawn: only the rating's dot while there are too few votes for one."""
    if row.rating_low is None or row.rating_high is None:
        return row.rating, row.rating
    return row.rating_low, row.rating_high


class LeaderboardScreen(Screen[None]):
    DEFAULT_CSS = """
    LeaderboardScreen {
        & > #leaderboard-title { height: 1; padding: 0 1; text-style: bold; color: $text-primary; }
        & > #leaderboard-empty { padding: 1 2; color: $text-muted; }
        & > DataTable { height: 1fr; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, standings: Sequence[Standing], *, note: str = "") -> None:
        super().__init__()
        self.standings = list(standings)
        self.note = note

    def compose(self) -> ComposeResult:
        title = "Leaderboard · Bradley–Terry ratings from blind votes, 95% intervals"
        yield Static(
            title + (f" · {self.note}" if self.note else ""), id="leaderboard-title", markup=False
        )
        if not self.standings:
            yield Static(NO_VOTES, id="leaderboard-empty", markup=False)
        else:
            table: DataTable[Text] = DataTable(cursor_type="row", zebra_stripes=True)
            table.add_columns(*COLUMNS)
            table.add_rows(rows_of(self.standings))
            yield table
        yield Footer()


__all__ = ["NO_VOTES", "LeaderboardScreen", "rows_of"]
