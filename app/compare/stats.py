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

from app.display.speed import Rate, format_ms, format_seconds, tokens_per_second
from app.providers.timing import to_ms
from app.settings.config import ProviderConfig
from app.wire.api import Api
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
    if chars is None:
        chars = sum(map(len, turn.text_parts)) + sum(map(len, turn.reasoning_parts))
    # In whole ms, as the history keeps them and the timeline shows them: one number everywhere.
    ttft = None if times.first_token is None else to_ms(times.first_token - times.started) / 1000
    duration = None if times.ended is None else to_ms(times.ended - times.started) / 1000
    # tok/s over the first token to the end of the stream (the saved figures can say no more),
    # to the last token while it streams
    last = times.last_token - times.started if times.last_token is not None else None
    end = duration if duration is not None else last
    return PaneStats(
        label=label,
        status=turn.status,
        ttft=ttft,
        duration=duration,
        rate=tokens_per_second(output, chars, ttft, end),
        usage=turn.usage,
        finish_reason=turn.finish_reason,
        cost=turn_cost(provider, turn.usage),
    )


# -- the ranking line ---------------------------------------------------------------------------

LOWER_IS_BETTER = "lower is better"
ALL_STOPPED = "every pane was stopped: nothing to rank"
TIED = " = "
AHEAD = " › "


@dataclass(frozen=True, slots=True)
class _Figure:
    """One part of the ranking: its name and the panes in order, tied ones grouped."""

    name: str
    groups: list[list[tuple[str, str]]]  # [[(label, shown value)], ...], best group first
    without: list[str]  # "label why" for panes left unranked

    def full(self) -> str:
        ranked = [TIED.join(f"{label} {shown}" for label, shown in g) for g in self.groups]
        return f"{self.name}: " + AHEAD.join([*ranked, *self.without])

    def best(self) -> str:
        if not self.groups:
            return self.full()
        first = self.groups[0]
        more = AHEAD + "…" if len(self.groups) > 1 or self.without else ""
        return f"{self.name}: " + TIED.join(label for label, _ in first) + f" {first[0][1]}{more}"


def _figure(
    name: str,
    stats: Sequence[PaneStats],
    value: Callable[[PaneStats], float | None],
    show: Callable[[float], str],
    eligible: Callable[[PaneStats], bool] = lambda s: True,
) -> _Figure:
    """Smallest first; panes whose values show the same are tied (told apart by digits the
    line does not show, the order would be a guess); panes without a value follow, with why."""
    have = [(v, s) for s in stats if eligible(s) and (v := value(s)) is not None]
    have.sort(key=lambda pair: pair[0])
    order = {id(s): index for index, s in enumerate(stats)}
    grouped: list[list[tuple[PaneStats, str]]] = []
    for v, s in have:
        shown = show(v)
        if grouped and grouped[-1][0][1] == shown:
            grouped[-1].append((s, shown))
        else:
            grouped.append([(s, shown)])
    groups = [  # tied panes in pane order
        [(s.label, shown) for s, shown in sorted(group, key=lambda pair: order[id(pair[0])])]
        for group in grouped
    ]
    ranked = {id(s) for _, s in have}
    without = [
        f"{s.label} {'–' if s.status is TurnStatus.COMPLETE else s.status.value}"
        for s in stats
        if id(s) not in ranked
    ]
    return _Figure(name, groups, without)


def _nothing_to_rank(stats: Sequence[PaneStats]) -> str | None:
    """What the line says when no pane completed (a stopped answer is short and cheap for
    the wrong reason, so nothing is ranked)."""
    if any(s.status is TurnStatus.COMPLETE for s in stats):
        return None
    if all(s.status is TurnStatus.STOPPED for s in stats):
        return ALL_STOPPED
    ended = ", ".join(f"{s.label} {s.status.value}" for s in stats)
    return f"no pane finished ({ended}): nothing to rank"


def _figures(stats: Sequence[PaneStats]) -> tuple[list[_Figure], _Figure | None]:
    """(first token, total, output tokens), and cost when any pane is priced."""
    complete: Callable[[PaneStats], bool] = lambda s: s.status is TurnStatus.COMPLETE  # noqa: E731
    figures = [
        _figure("first token", stats, lambda s: s.ttft, format_ms),
        _figure("total", stats, lambda s: s.duration, format_seconds, complete),
        _figure(
            "output tokens",
            stats,
            lambda s: None if s.output_tokens is None else float(s.output_tokens),
            _int,
            complete,
        ),
    ]
    cost = None
    if any(s.cost is not None for s in stats):
        cost = _figure("cost", stats, lambda s: s.cost, format_cost, complete)
    return figures, cost


def ranking_line(stats: Sequence[PaneStats]) -> str:
    """time and cost: lower is better · first token · total · output tokens (fewest first) ·
    cost; each smallest first, ties joined by `=`. One rule for the TUI and `ask --compare`.

    Only complete answers are ranked by total, tokens and cost (a stopped answer is short and
    cheap for the wrong reason); the others follow, named with how they ended."""
    nothing = _nothing_to_rank(stats)
    if nothing is not None:
        return nothing
    figures, cost = _figures(stats)
    parts = [f"time and cost: {LOWER_IS_BETTER}", *(f.full() for f in figures)]
    parts.append(cost.full() if cost is not None else "cost: no prices set")
    return " · ".join(parts)


def ranking_brief(stats: Sequence[PaneStats]) -> str:
    """The ranking in a line a small terminal fits: the best pane of each time and of the
    cost (when priced), the rest left to `ranking_line`."""
    return ranking_forms(stats)[1]


def ranking_forms(stats: Sequence[PaneStats]) -> list[str]:
    """The ranking, longest first: the whole line, then the best pane of each time and the
    cost, then of the total and the cost, then of the total alone."""
    nothing = _nothing_to_rank(stats)
    if nothing is not None:
        return [nothing, nothing]
    figures, cost = _figures(stats)
    first_token, total, _tokens = figures
    priced = [] if cost is None else [cost.best()]
    forms = [
        ranking_line(stats),
        " · ".join([LOWER_IS_BETTER, first_token.best(), total.best(), *priced]),
        " · ".join([LOWER_IS_BETTER, total.best(), *priced]),
        " · ".join([LOWER_IS_BETTER, total.best()]),
    ]
    return list(dict.fromkeys(forms))


def ranking_parts(stats: Sequence[PaneStats]) -> list[str]:
    """Each figure's whole order, one part each ("first token: b 399 ms › a 403 ms"), or the
    one sentence saying why nothing is ranked."""
    nothing = _nothing_to_rank(stats)
    if nothing is not None:
        return [nothing]
    figures, cost = _figures(stats)
    return [
        *(f.full() for f in figures),
        cost.full() if cost is not None else "cost: no prices set",
    ]


def ranking_rows(parts: Sequence[str], width: int) -> list[str]:
    """The whole ranking in `width` columns: one row when it fits, else two, split between
    figures where the longer row is shortest (a row still too long is cut by the screen, and
    "Show the full ranking" has it whole). No figure's order is ever left out for room."""
    if len(parts) == 1 and not parts[0].partition(": ")[1]:
        return list(parts)  # "every pane was stopped: nothing to rank"
    one = " · ".join([f"time and cost: {LOWER_IS_BETTER}", *parts])
    if len(one) <= width or len(parts) < 2:
        return [one]
    splits = [
        (" · ".join([LOWER_IS_BETTER, *parts[:k]]), " · ".join(parts[k:]))
        for k in range(1, len(parts))
    ]
    first, second = min(splits, key=lambda pair: max(map(len, pair)))
    return [first, second]


def _int(value: float) -> str:
    return str(int(value))


__all__ = [
    "PaneStats",
    "PaneTimes",
    "format_cost",
    "pane_stats",
    "ranking_brief",
    "ranking_forms",
    "ranking_line",
    "ranking_parts",
    "ranking_rows",
    "turn_cost",
]
