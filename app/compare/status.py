"""A compare pane's header and status line as plain (text, role) segments.

The header names what the pane asks (provider · model · api), so the status line under it can
leave those out and stay short enough for a pane a third of the screen wide:

    complete · TTFT 420 ms · 61.0 tok/s · total 2.91s · in 12 out 180 · finish stop · $0.0012
"""

from __future__ import annotations

from app.compare.stats import PaneStats, format_cost
from app.display.sanitize import clean_line
from app.display.speed import estimate_tokens, format_ms, format_seconds
from app.display.status_line import (
    DIM,
    ERROR,
    GOOD,
    PLAIN,
    STATE,
    STILL_WORKING_AFTER,
    WARN,
    Segment,
    cache_segment,
    error_segment,
)
from app.display.turn_watch import STREAMING, WAITING, TurnWatch
from app.settings.config import ProviderConfig
from app.wire.turn import Turn, TurnStatus

READY = "ready"  # a pane asked nothing yet
_ROLES = {READY: DIM, "complete": GOOD, "stopped": WARN, "interrupted": WARN, "failed": ERROR}


def header_segments(number: int, provider: ProviderConfig, model: str) -> list[Segment]:
    return [
        (str(number), STATE),
        (clean_line(provider.name), PLAIN),
        (clean_line(model), PLAIN),
        (provider.api.value, DIM),
    ]


def tab_segments(number: int, label: str, state: str) -> list[Segment]:
    """A pane's tab on a small terminal: "2 am · streaming"."""
    return [(clean_line(f"{number} {label}"), PLAIN), (state, _ROLES.get(state, STATE))]


def pane_status_segments(
    stats: PaneStats | None,
    turn: Turn | None,
    watch: TurnWatch | None,
    now: float,
    *,
    blind: bool = False,
) -> list[Segment]:
    """`stats` describe the turn as it stands (live while it streams); None before a prompt.
    `blind`: without a failure's code, whose words can name the provider, and without the
    input and cache counts: each format counts the same prompt's input differently (9, 14 and
    16 tokens for one demo prompt) and only some report a cache at all (Responses always says
    `cache 0%`), so either would tell the formats apart."""
    if stats is None or turn is None or watch is None:
        return [(READY, DIM)]
    word = watch.state_word(turn)
    parts: list[Segment] = [(word, _ROLES.get(word, STATE))]
    live = word in (WAITING, STREAMING)
    if live and watch.silent_for(now) >= STILL_WORKING_AFTER:
        parts.append((f"still working {format_seconds(now - watch.started)}", WARN))
    parts.append((f"TTFT {format_ms(stats.ttft)}" if stats.ttft is not None else "TTFT –", DIM))
    if stats.rate is not None:
        mark = "~" if stats.rate.estimated else ""
        parts.append((f"{mark}{stats.rate.tokens_per_second:.1f} tok/s", DIM))
    else:
        parts.append(("– tok/s", DIM))
    if stats.duration is not None or live:
        elapsed = stats.duration if stats.duration is not None else now - watch.started
        parts.append((f"total {format_seconds(max(0.0, elapsed))}", DIM))
    else:  # a stored answer cut off by a crash has no end time
        parts.append(("total –", DIM))
    if stats.usage is not None:
        parts.append((_usage(stats, turn, watch.chars, blind=blind), DIM))
        if not blind:
            parts.extend(cache_segment(turn))
    if stats.finish_reason:
        parts.append((clean_line(f"finish {stats.finish_reason}"), DIM))
    if stats.cost is not None:
        parts.append((format_cost(stats.cost), DIM))
    if not blind:
        parts.extend(error_segment(turn))
    return parts


def _usage(stats: PaneStats, turn: Turn, chars: int, *, blind: bool = False) -> str:
    """As in the chat's status bar: a reported output count is final only once the stream
    completed (Messages' `message_start` says 1); until then it is estimated and marked `~`."""
    usage = stats.usage
    assert usage is not None

    def show(value: int | None) -> str:
        return "–" if value is None else str(value)

    output = show(usage.output_tokens)
    if turn.status is not TurnStatus.COMPLETE or usage.output_tokens is None:
        output = f"~{estimate_tokens(chars)}" if chars > 0 else "–"
    if blind:
        return f"out {output}"
    cached = f" cached {usage.cached_tokens}" if usage.cached_tokens else ""
    return f"in {show(usage.input_tokens)} out {output}{cached}"


__all__ = ["READY", "header_segments", "pane_status_segments", "tab_segments"]
