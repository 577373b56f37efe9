"""`triptych leaderboard [--json] [--since DATE] [--tag TAG]`: the votes in the history as a
table of provider:model ratings (the figures come from app/compare/leaderboard.py)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from datetime import datetime
from typing import Any, TextIO

from app.compare.leaderboard import Standing, standings
from app.compare.stats import format_cost
from app.display.sanitize import clean_line
from app.store import Store

NO_VOTES = "no votes yet: vote in a blind comparison (triptych --compare A,B --blind)"
_HEAD = (
    "#",
    "provider:model",
    "rating",
    "95% interval",
    "battles",
    "wins",
    "losses",
    "ties",
    "win rate",
    "TTFT p50",
    "tok/s p50",
    "cost p50",
)


class BadDate(ValueError):
    """A --since value that is not a date; the message says what is expected."""


def parse_since(value: str) -> float:
    """`--since 2026-11-30` (local midnight) or an ISO date and time: seconds since the epoch.
    A date too far out for the clock (0001-01-01 in a zone east of UTC is year 0) is before,
    or after, every vote."""
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise BadDate(
            f"--since: {value!r} is not a date; give YYYY-MM-DD or YYYY-MM-DDTHH:MM"
        ) from None
    try:
        return moment.timestamp()  # a naive date or time is local, as the history list shows it
    except (ValueError, OverflowError, OSError):
        return -math.inf if moment.year < 1970 else math.inf


def run_leaderboard(
    store: Store,
    stdout: TextIO,
    *,
    json_output: bool,
    since: float | None,
    tag: str | None,
    stderr: TextIO | None = None,
) -> int:
    damaged: list[int] = []
    rows = standings(store.votes(since=since, tag=tag, damaged=damaged))
    if damaged and stderr is not None:
        stderr.write(
            f"triptych: warning: {len(damaged)} vote(s) in the history cannot be read (damaged "
            f"or edited by hand: id {', '.join(map(str, damaged[:5]))}"
            f"{', …' if len(damaged) > 5 else ''}) and are not counted\n"
        )
    if json_output:
        stdout.write(json.dumps([standing_json(row) for row in rows]) + "\n")
    elif not rows:
        stdout.write(NO_VOTES + "\n")
    else:
        stdout.write(format_table(rows))
    return 0


def standing_json(row: Standing) -> dict[str, Any]:
    """The `--json` object: every field of the row; ratings to a tenth, the rate to 4 places."""
    document = asdict(row)
    for name in ("rating", "rating_low", "rating_high"):
        if document[name] is not None:  # null: too few votes for an interval
            document[name] = round(document[name], 1)
    document["win_rate"] = round(row.win_rate, 4)
    for name in ("ttft_ms_median", "tok_s_median"):
        if document[name] is not None:
            document[name] = round(document[name], 1)
    return document


def interval_text(row: Standing) -> str:
    """`1146–1270`, or `n/a (3 votes)` below the votes an interval needs."""
    if row.rating_low is None or row.rating_high is None:
        return f"n/a ({row.votes} vote{'' if row.votes == 1 else 's'})"
    return f"{row.rating_low:.0f}–{row.rating_high:.0f}"


def format_table(rows: list[Standing]) -> str:
    """Best first, columns aligned; provider and model names cleaned of control characters."""
    body = [
        (
            str(row.rank),
            clean_line(f"{row.provider}:{row.model}"),
            f"{row.rating:.0f}",
            interval_text(row),
            str(row.battles),
            str(row.wins),
            str(row.losses),
            str(row.ties),
            f"{row.win_rate:.0%}",
            "–" if row.ttft_ms_median is None else f"{row.ttft_ms_median:.0f} ms",
            "–" if row.tok_s_median is None else f"{row.tok_s_median:.1f}",
            "–" if row.cost_median is None else format_cost(row.cost_median),
        )
        for row in rows
    ]
    widths = [max(len(line[i]) for line in [_HEAD, *body]) for i in range(len(_HEAD))]
    text_columns = {1}
    lines = []
    for line in [_HEAD, *body]:
        cells = [
            cell.ljust(widths[i]) if i in text_columns else cell.rjust(widths[i])
            for i, cell in enumerate(line)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


__all__ = [
    "NO_VOTES",
    "BadDate",
    "format_table",
    "interval_text",
    "parse_since",
    "run_leaderboard",
]
