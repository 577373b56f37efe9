"""Per-pane figures of a comparison, the cost of a turn, and the line that ranks the panes.

Cost. Prices are per million tokens. The formats count cached input differently: Chat
Completions and Responses include cached tokens in the input count, Messages reports them apart
(`cache_read_input_tokens`), so fresh input is `input - cached` on the first two and `input` on
Messages. Cached tokens cost `price_cached`, or `price_in` when no cached price is set. Tokens
written to Anthropic's cache are not reported by the stream engine and so are not priced.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.config import ProviderConfig
from app.display.speed import Rate, format_seconds, tokens_per_second
from app.wire.engine import Api
from app.wire.events import Usage
from app.wire.turn import Turn, TurnStatus

PER_MILLION = 1_000_000


def turn_cost(provider: ProviderConfig, usage: Usage | None) -> float | None:
    """Dollars (or whatever unit the prices are in); None without prices or counts."""
    price_in, price_out = provider.price_in, provider.price_out
    if usage is None or price_in is None or price_out is None:
        return None
    if usage.input_tokens is None or usage.output_tokens is None:
        return None
    cached = usage.cached_tokens or 0
    fresh = usage.input_tokens if provider.api is Api.MESSAGES else usage.input_tokens - cached
    price_cached = provider.price_cached if provider.price_cached is not None else price_in
    total = max(0, fresh) * price_in + cached * price_cached + usage.output_tokens * price_out
    return total / PER_MILLION


def format_cost(cost: float) -> str:
    """$1.25, $0.0042, $0.000012: three significant digits below a dollar, so cheap answers
    still tell apart."""
    if cost >= 1:
        return f"${cost:.2f}"
    if cost <= 0:
        return "$0"
    decimals = min(12, 2 - math.floor(math.log10(cost)))
    return "$" + f"{cost:.{decimals}f}".rstrip("0").rstrip(".")


@dataclass(frozen=True, slots=True)
class PaneStats:
    """One pane's finished (or current) turn in numbers; times in seconds."""

    label: str
    status: TurnStatus
    ttft: float | None  # from this pane's own request start
    duration: float | None  # request start to the end of the stream
    rate: Rate | None  # output tokens per second over the generation phase
    usage: Usage | None
    finish_reason: str | None
    cost: float | None

    @property
    def output_tokens(self) -> int | None:
        return None if self.usage is None else self.usage.output_tokens


@dataclass(frozen=True, slots=True)
class PaneTimes:
    """Clock readings (any one clock, seconds) taken for one pane's turn."""

    started: float
    first_token: float | None = None
    last_token: float | None = None
    ended: float | None = None


def pane_stats(
    label: str, provider: ProviderConfig, turn: Turn, times: PaneTimes, chars: int | None = None
) -> PaneStats:
    """`chars` (answer and reasoning characters, counted from the turn when not given) estimates
    the rate when the provider sent no output count."""
    # A count is final only once the stream completed: Messages reports `output_tokens: 1` at
    # the start, so a stopped or failed turn's count says nothing; estimate from the text then.
    complete = turn.status is TurnStatus.COMPLETE
    output = turn.usage.output_tokens if turn.usage is not None and complete else None
    last = times.last_token if times.last_token is not None else times.ended
    if chars is None:
        chars = sum(map(len, turn.text_parts)) + sum(map(len, turn.reasoning_parts))
    return PaneStats(
        label=label,
        status=turn.status,
        ttft=None if times.first_token is None else times.first_token - times.started,
        duration=None if times.ended is None else times.ended - times.started,
        rate=tokens_per_second(output, chars, times.first_token, last),
        usage=turn.usage,
        finish_reason=turn.finish_reason,
        cost=turn_cost(provider, turn.usage),
    )


# -- the ranking line ---------------------------------------------------------------------------


def _ranked(
    stats: Sequence[PaneStats],
    value: Callable[[PaneStats], float | None],
    show: Callable[[float], str],
    eligible: Callable[[PaneStats], bool] = lambda s: True,
) -> str:
    """Best (smallest) first; panes without a value follow, marked with why."""
    have = [(v, s) for s in stats if eligible(s) and (v := value(s)) is not None]
    have.sort(key=lambda pair: pair[0])  # stable: ties keep pane order
    ranked = [f"{s.label} {show(v)}" for v, s in have]
    shown = {id(s) for _, s in have}
    for s in stats:
        if id(s) not in shown:
            why = "–" if s.status is TurnStatus.COMPLETE else s.status.value
            ranked.append(f"{s.label} {why}")
    return " › ".join(ranked)


def ranking_line(stats: Sequence[PaneStats]) -> str:
    """first token · finish · output tokens (fewest first) · cost; smallest first in each.

    Only complete answers are ranked by finish, tokens and cost (a stopped answer is short and
    cheap for the wrong reason); the others follow, named with how they ended."""
    complete: Callable[[PaneStats], bool] = lambda s: s.status is TurnStatus.COMPLETE  # noqa: E731
    parts = [
        "first token: " + _ranked(stats, lambda s: s.ttft, format_seconds),
        "finish: " + _ranked(stats, lambda s: s.duration, format_seconds, complete),
        "output tokens: "
        + _ranked(
            stats,
            lambda s: None if s.output_tokens is None else float(s.output_tokens),
            _int,
            complete,
        ),
    ]
    if any(s.cost is not None for s in stats):
        parts.append("cost: " + _ranked(stats, lambda s: s.cost, format_cost, complete))
    else:
        parts.append("cost: no prices set")
    return " · ".join(parts)


def _int(value: float) -> str:
    return str(int(value))


__all__ = [
    "PaneStats",
    "PaneTimes",
    "format_cost",
    "pane_stats",
    "ranking_line",
    "turn_cost",
]
