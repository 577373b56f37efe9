"""A stream over time: how much arrived in each interval, where it stalled, and its figures.

The inspector draws one row of this under the frames, and a comparison one row per pane on a
shared time axis (`span`), so who started first and who stalled shows at a glance. Everything is
computed from arrival times the client already records, in seconds since the request was sent;
the sizes are characters of answer and reasoning (or bytes, for a stream that carried none).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from app.display.speed import CHARS_PER_TOKEN, tokens_per_second
from app.providers.timing import to_ms

STALL = 1.0  # seconds of silence after the first token that count as a stall
FIRST, STALLED, END, QUIET = "▲", "─", "┃", " "


@dataclass(frozen=True, slots=True)
class Arrival:
    at: float  # seconds since the request was sent
    size: int  # characters of text or reasoning (or bytes)


@dataclass(frozen=True, slots=True)
class Figures:
    ttft_ms: int | None
    tokens_per_second: float | None  # first token to the end, as every figure measures it
    fastest_10: float | None  # tok/s of the fastest tenth of the generation, in short windows
    slowest_10: float | None
    longest_silence_ms: int | None  # the longest gap between two arrivals after the first
    estimated: bool  # token counts estimated from characters (the provider reported none)


@dataclass(frozen=True, slots=True)
class Timeline:
    arrivals: tuple[Arrival, ...]
    ended: float | None = None  # when the stream ended, if it has
    output_tokens: int | None = None  # the provider's count, which scales the estimates

    @property
    def first(self) -> float | None:
        return next((a.at for a in self.arrivals if a.size > 0), None)

    @property
    def last(self) -> float | None:
        return self.arrivals[-1].at if self.arrivals else None

    @property
    def span(self) -> float:
        """How long the stream has run: to its end, else to its last arrival."""
        return max(self.ended or 0.0, self.last or 0.0)

    def stalls(self) -> list[tuple[float, float]]:
        """Silences of STALL seconds or more between arrivals, once text has begun."""
        first = self.first
        if first is None:
            return []
        begun = [a.at for a in self.arrivals if a.at >= first]
        return [(a, b) for a, b in pairwise(begun) if b - a >= STALL]

    def _tokens_per_char(self) -> float:
        chars = sum(a.size for a in self.arrivals)
        if self.output_tokens and chars:
            return self.output_tokens / chars
        return 1 / CHARS_PER_TOKEN

    def bins(self, count: int, span: float | None = None) -> list[float]:
        """Tokens in each of `count` equal intervals of [0, span] (a shared axis when given)."""
        span = span if span is not None else self.span
        totals = [0.0] * max(count, 0)
        if not totals or span <= 0:
            return totals
        scale = self._tokens_per_char()
        for arrival in self.arrivals:
            index = min(int(arrival.at / span * count), count - 1)
            totals[index] += arrival.size * scale
        return totals

    def marks(self, count: int, span: float | None = None) -> str:
        """A row under the bins: ▲ the first token, ─ a stall, ┃ the end."""
        span = span if span is not None else self.span
        if count <= 0:
            return ""
        if span <= 0:
            return QUIET * count

        def column(at: float) -> int:
            return min(int(at / span * count), count - 1)

        row = [QUIET] * count
        for start, stop in self.stalls():
            for index in range(column(start) + 1, column(stop)):
                row[index] = STALLED
        if self.ended is not None:
            row[column(self.ended)] = END
        if self.first is not None:
            row[column(self.first)] = FIRST
        return "".join(row)

    def figures(self) -> Figures:
        """TTFT and tok/s measured as a turn's own figures are (the panes, the ranking, the
        history): whole ms from the request to the first token, and the output count over the
        first token to the end of the stream (to the last arrival while it streams)."""
        first, last = self.first, self.last
        estimated = not self.output_tokens
        if first is None or last is None:
            return Figures(None, None, None, None, None, estimated)
        silences = [b - a for a, b in pairwise([a.at for a in self.arrivals if a.at >= first])]
        longest = round(max(silences) * 1000) if silences else None
        scale = self._tokens_per_char()
        ttft_ms = to_ms(first)
        end = self.ended if self.ended is not None else last
        chars = sum(a.size for a in self.arrivals)
        rate = tokens_per_second(
            self.output_tokens or None, chars, ttft_ms / 1000, to_ms(end) / 1000
        )
        fastest, slowest = _tenths(self.arrivals, first, last, scale)
        speed = None if rate is None else rate.tokens_per_second
        return Figures(ttft_ms, speed, fastest, slowest, longest, estimated)


def _tenths(
    arrivals: Sequence[Arrival], first: float, last: float, scale: float
) -> tuple[float | None, float | None]:
    """Mean tok/s of the fastest and slowest tenth of short windows across the generation."""
    duration = last - first
    if duration <= 0:
        return None, None
    window = max(0.1, duration / 100)
    count = max(1, math.ceil(duration / window))
    totals = [0.0] * count
    for arrival in arrivals:
        if arrival.at > first:
            totals[min(int((arrival.at - first) / window), count - 1)] += arrival.size * scale
    rates = sorted(total / window for total in totals)
    tenth = max(1, count // 10)
    return sum(rates[-tenth:]) / tenth, sum(rates[:tenth]) / tenth


def shared_span(timelines: Sequence[Timeline]) -> float:
    """One time axis for panes side by side: as long as the longest of them."""
    return max((t.span for t in timelines), default=0.0)


def figures_line(figures: Figures) -> str:
    """The figures beside the chart, in the status bar's words."""
    mark = "~" if figures.estimated else ""

    def rate(value: float | None) -> str:
        return "–" if value is None else f"{mark}{value:.0f}"

    parts = [
        f"TTFT {figures.ttft_ms} ms" if figures.ttft_ms is not None else "TTFT –",
        f"{rate(figures.tokens_per_second)} tok/s",
        f"fastest 10% {rate(figures.fastest_10)}",
        f"slowest 10% {rate(figures.slowest_10)}",
    ]
    silence = figures.longest_silence_ms
    if silence is not None:
        parts.append(
            f"longest silence {silence / 1000:.1f} s"
            if silence >= 1000
            else f"longest silence {silence} ms"
        )

    return " · ".join(parts)


def short_figures(figures: Figures) -> str:
    """The figures a pane's compact row has room for, on two short lines: TTFT and tok/s, then
    the longest stall (a silence of STALL seconds or more), if there was one."""
    mark = "~" if figures.estimated else ""
    parts = [f"TTFT {figures.ttft_ms} ms" if figures.ttft_ms is not None else "TTFT –"]
    rate = figures.tokens_per_second
    parts.append("– tok/s" if rate is None else f"{mark}{rate:.0f} tok/s")
    silence = figures.longest_silence_ms
    line = " · ".join(parts)
    if silence is not None and silence >= STALL * 1000:
        line += f"\nstall {silence / 1000:.1f} s"
    return line


__all__ = [
    "Arrival",
    "Figures",
    "Timeline",
    "figures_line",
    "shared_span",
    "short_figures",
]
