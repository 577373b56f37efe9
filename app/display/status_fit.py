"""The chat's status line made to fit one line of the bar's width, least useful pieces first.

`status_segments` says everything; at 80 columns that no longer fits (`in 11 out 165 cached 5
· cache 45% · finish stop` wrapped onto a second line). Shortened in this order, each only
while the line is still too long:

1. the cached token count, when the cache share beside it says the same (`cache 45%`);
2. the speed's decimal (`32.8 tok/s` → `33 tok/s`);
3. a normal finish reason after `complete` (`finish stop`, `end_turn`, `completed`): the
   state already says it; an early one (`finish length`) stays;
4. the cache share;
5. the model's name, then the provider's, cut with `…` (never below MIN_NAME characters).

What still does not fit (a long error code) is left to the bar, which then wraps. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from app.display.status_line import SEPARATOR, Segment

NORMAL_FINISHES = frozenset({"finish stop", "finish end_turn", "finish completed"})
MIN_NAME = 6
_CACHED = re.compile(r"^(in \S+ out \S+) cached \d+$")
_RATE = re.compile(r"^(~?)(\d+)\.\d tok/s$")


def line_length(segments: list[Segment]) -> int:
    return len(SEPARATOR.join(text for text, _ in segments))


def _texts(segments: list[Segment]) -> list[str]:
    return [text for text, _ in segments]


def _drop_cached_count(segments: list[Segment]) -> list[Segment]:
    if not any(text.startswith("cache ") for text in _texts(segments)):
        return segments
    return [(_CACHED.sub(r"\1", text), role) for text, role in segments]


def _round_rate(segments: list[Segment]) -> list[Segment]:
    shown = []
    for text, role in segments:
        found = _RATE.match(text)
        if found is not None:
            whole = round(float(text.split()[0].lstrip("~")))
            text = f"{found.group(1)}{whole} tok/s"
        shown.append((text, role))
    return shown


def _drop_normal_finish(segments: list[Segment]) -> list[Segment]:
    if "complete" not in _texts(segments)[2:3]:
        return segments
    return [(text, role) for text, role in segments if text not in NORMAL_FINISHES]


def _drop_cache_share(segments: list[Segment]) -> list[Segment]:
    return [(t, r) for t, r in segments if not (t.startswith("cache ") and t.endswith("%"))]


STEPS: tuple[Callable[[list[Segment]], list[Segment]], ...] = (
    _drop_cached_count,
    _round_rate,
    _drop_normal_finish,
    _drop_cache_share,
)


def _cut(text: str, over: int) -> str:
    keep = max(MIN_NAME, len(text) - over - 1)
    return text if keep >= len(text) else text[:keep] + "…"


def fit_status(segments: list[Segment], width: int) -> list[Segment]:
    """`segments` shortened until the line is at most `width` characters (or as short as
    they go); `width` 0 or less: as they are (the bar has no size yet)."""
    if width <= 0:
        return segments
    for step in STEPS:
        if line_length(segments) <= width:
            return segments
        segments = step(segments)
    for index in (1, 0):  # the model, then the provider
        over = line_length(segments) - width
        if over <= 0 or len(segments) <= index:
            break
        text, role = segments[index]
        segments = [*segments[:index], (_cut(text, over), role), *segments[index + 1 :]]
    return segments


__all__ = ["NORMAL_FINISHES", "fit_status", "line_length"]
