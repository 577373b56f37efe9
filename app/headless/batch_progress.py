"""What `triptych batch` shows while it runs (stderr) and the table it ends with (stdout).

On a terminal, one bar per provider:model redrawn in place a few times a second: done, failed
and in flight, with an ETA from that provider's pace so far. Elsewhere (a pipe, a CI log) one
plain line per finished answer and per retry, nothing redrawn. Names are cleaned of control
characters; no model output is ever printed here.
"""

from __future__ import annotations

import math
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from app.compare.stats import format_cost
from app.display.sanitize import clean_line
from app.wire.turn import TurnStatus

BAR_WIDTH = 20
REDRAW_EVERY = 0.25  # seconds between redraws on a terminal


@dataclass(slots=True)
class Tally:
    """One provider:model's answers in this run."""

    label: str
    total: int  # answers of the run: to ask, and those resumed from --out (done already)
    resumed: int = 0  # of them, kept from --out: not timed by this run's ETA
    complete: int = 0
    failed: int = 0
    stopped: int = 0  # by the user (Ctrl+C, Esc), apart from streams cut off
    interrupted: int = 0
    in_flight: int = 0
    retries: int = 0
    output_tokens: int = 0
    cost: float | None = None
    ttft_ms: list[float] = field(default_factory=list)
    tok_s: list[float] = field(default_factory=list)
    first_done: float | None = None

    @property
    def done(self) -> int:
        return self.complete + self.failed + self.stopped + self.interrupted

    def finish(
        self,
        status: TurnStatus,
        *,
        ttft_ms: int | None,
        tok_s: float | None,
        output_tokens: int | None,
        cost: float | None,
    ) -> None:
        if status is TurnStatus.COMPLETE:
            self.complete += 1
            if ttft_ms is not None:
                self.ttft_ms.append(float(ttft_ms))
            if tok_s is not None:
                self.tok_s.append(tok_s)
            self.output_tokens += output_tokens or 0
            if cost is not None:
                self.cost = (self.cost or 0.0) + cost
        elif status is TurnStatus.FAILED:
            self.failed += 1
        elif status is TurnStatus.STOPPED:
            self.stopped += 1
        else:
            self.interrupted += 1


class Progress:
    """Live progress on stderr: bars on a terminal, plain lines otherwise."""

    def __init__(self, stream: TextIO, tallies: Sequence[Tally], *, tty: bool, started: float):
        self.stream = stream
        self.tallies = tallies
        self.tty = tty
        self.started = started
        self._drawn = 0  # lines of the last drawing, to move back over

    def retry(self, tally: Tally, what: str, attempt: int, limit: int, delay: float) -> None:
        if not self.tty:
            self._line(f"{tally.label} · {what} · retry {attempt} of {limit} in {delay:.1f} s")

    def gave_up(self, tally: Tally, what: str, why: str) -> None:
        """A retry not made (a Retry-After too long): said on a terminal too, above the bars."""
        if self.tty:
            up = f"\x1b[{self._drawn}F\x1b[J" if self._drawn else ""
            self.stream.write(up)
            self._drawn = 0
        self._line(f"{tally.label} · {what} · {why}")

    def finished(self, tally: Tally, what: str, status: TurnStatus, seconds: float | None) -> None:
        if not self.tty:
            done = sum(t.done for t in self.tallies)
            total = sum(t.total for t in self.tallies)
            took = "" if seconds is None else f" · {seconds:.1f} s"
            self._line(f"{done}/{total} · {tally.label} · {what} · {status.value}{took}")

    def draw(self, now: float) -> None:
        """Redraw the bars (a terminal only)."""
        if not self.tty:
            return
        width = max(20, shutil.get_terminal_size((100, 24)).columns - 1)
        names = max(len(clean_line(t.label)) for t in self.tallies)
        lines = [bar_line(t, now - self.started, width, names) for t in self.tallies]
        up = f"\x1b[{self._drawn}F" if self._drawn else ""
        self.stream.write(up + "".join(f"\x1b[2K{line}\n" for line in lines))
        self.stream.flush()
        self._drawn = len(lines)

    def _line(self, text: str) -> None:
        self.stream.write(f"batch: {clean_line(text)}\n")
        self.stream.flush()


def bar_line(tally: Tally, elapsed: float, width: int, names: int = 0) -> str:
    """`kenari:m1  ██████░░░░  60/100  58 done · 2 failed · 4 in flight · ETA 0:42`, cut to fit."""
    total = max(tally.total, 1)
    filled = round(BAR_WIDTH * tally.done / total)
    bar = "█" * filled + "░" * (BAR_WIDTH - filled)
    left = tally.total - tally.done
    if left == 0:
        eta = "done"
    elif tally.done - tally.resumed <= 0 or elapsed <= 0:
        eta = "ETA –"
    else:
        eta = "ETA " + _clock(elapsed / (tally.done - tally.resumed) * left)
    parts = [
        f"{tally.complete} done",
        f"{tally.failed} failed",
        f"{tally.in_flight} in flight",
        eta,
    ]
    label = clean_line(tally.label).ljust(names)
    line = f"{label}  {bar}  {tally.done}/{tally.total}  " + " · ".join(parts)
    return line[:width]


def _clock(seconds: float) -> str:
    whole = math.ceil(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def percentile(values: Sequence[float], share: float) -> float | None:
    """Nearest-rank percentile (share 0.5 is the median); None without values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


SUMMARY_HEAD = (
    "provider:model",
    "complete",
    "failed",
    "stopped",
    "interrupted",
    "TTFT p50",
    "TTFT p95",
    "tok/s p50",
    "output tokens",
    "cost",
    "retries",
)


def summary_table(tallies: Sequence[Tally]) -> str:
    """The table a run ends with: one row per provider:model."""
    rows = [SUMMARY_HEAD]
    for t in tallies:
        p50, p95, speed = percentile(t.ttft_ms, 0.5), percentile(t.ttft_ms, 0.95), None
        speed = percentile(t.tok_s, 0.5)
        rows.append(
            (
                clean_line(t.label),
                str(t.complete),
                str(t.failed),
                str(t.stopped),
                str(t.interrupted),
                "–" if p50 is None else f"{p50:.0f} ms",
                "–" if p95 is None else f"{p95:.0f} ms",
                "–" if speed is None else f"{speed:.1f}",
                str(t.output_tokens),
                "–" if t.cost is None else format_cost(t.cost),
                str(t.retries),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(SUMMARY_HEAD))]
    lines = [
        "  ".join(
            cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]
    return "\n".join(lines) + "\n"


__all__ = ["REDRAW_EVERY", "Progress", "Tally", "bar_line", "percentile", "summary_table"]
