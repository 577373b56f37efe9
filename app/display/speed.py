"""Time to first token and tokens per second, from timestamps the UI records.

Tokens per second is measured over the generation phase only (first token to last token), not
over the whole turn, so a long wait before the first byte does not drag it down. When the
provider has not reported an output count (yet), the count is estimated from the characters
received and the figure is marked as an estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

CHARS_PER_TOKEN = 4.0  # the usual rule of thumb for English text and code
MIN_SPAN = 0.25  # seconds: below this a rate is noise, so none is shown


@dataclass(frozen=True, slots=True)
class Rate:
    tokens_per_second: float
    estimated: bool


def estimate_tokens(chars: int) -> int:
    return round(chars / CHARS_PER_TOKEN)


def tokens_per_second(
    output_tokens: int | None,
    chars: int,
    first_token_at: float | None,
    last_token_at: float | None,
) -> Rate | None:
    """The generation rate, or None before there is enough to measure."""
    if first_token_at is None or last_token_at is None:
        return None
    span = last_token_at - first_token_at
    if span < MIN_SPAN:
        return None
    if output_tokens is not None and output_tokens > 0:
        return Rate(output_tokens / span, estimated=False)
    if chars <= 0:
        return None
    return Rate(estimate_tokens(chars) / span, estimated=True)


def format_seconds(seconds: float) -> str:
    """Short human durations: 0.42s, 12.3s, 2m05s."""
    if seconds < 10:
        return f"{seconds:.2f}s"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s"


def format_ms(seconds: float) -> str:
    """A time to first token in whole ms (403 ms), as the inspector's timeline, the leaderboard
    and `ask` show it: a comparison's panes and ranking say the same number."""
    return f"{round(round(seconds * 1000, 1))} ms"


def format_size(chars: int) -> str:
    """Reasoning size for a title: characters, with k for thousands."""
    if chars < 1000:
        return f"{chars} chars"
    return f"{chars / 1000:.1f}k chars"


__all__ = [
    "Rate",
    "estimate_tokens",
    "format_ms",
    "format_seconds",
    "format_size",
    "tokens_per_second",
]
