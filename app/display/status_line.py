"""The status bar's content as plain data: (text, role) segments the widget styles by theme.

provider · model · state · TTFT · tok/s · usage · finish reason, then a failure's code: the full
message and the reason a turn ended early are shown once, in the transcript under the answer, so
the bar stays one line at 80 columns. Every piece of provider text goes through `clean_line`, and
the widget builds Content from the segments without any markup parsing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.display.sanitize import clean_line
from app.display.speed import estimate_tokens, format_ms, format_seconds, tokens_per_second
from app.display.turn_watch import STREAMING, WAITING, TurnWatch
from app.wire.turn_status import TurnStatus

if TYPE_CHECKING:
    from app.wire.events import Usage
    from app.wire.turn import Turn

SEPARATOR = " · "
STILL_WORKING_AFTER = 2.0  # seconds of silence before "still working" is shown
MAX_MESSAGE = 300  # characters of an error message shown in one line
MAX_CODE = 40  # characters of an error code in the status bar (the message is in the transcript)

# Roles the widget maps to theme colours.
PLAIN, DIM, STATE, GOOD, WARN, ERROR = "plain", "dim", "state", "good", "warn", "error"
Segment = tuple[str, str]


@dataclass(frozen=True, slots=True)
class StatusInput:
    provider: str
    model: str
    turn: Turn | None
    watch: TurnWatch | None
    now: float
    # TTFT as the client measured it (from the request to the first token's arrival), once
    # known: the watch sees the first token only at the next frame, up to 200 ms later.
    ttft: float | None = None


def _usage_text(turn: Turn, chars: int) -> str:
    """A reported output count is final only once the stream completed (Messages reports
    `output_tokens: 1` in `message_start` and the real count at the end); until then the count
    is estimated from the characters received and marked `~`."""
    usage = turn.usage

    def show(value: int | None) -> str:
        return "–" if value is None else str(value)

    output = usage.output_tokens if usage is not None else None
    if turn.status is not TurnStatus.COMPLETE or output is None:
        output_text = f"~{estimate_tokens(chars)}" if chars > 0 else show(output)
    else:
        output_text = str(output)
    if usage is None:
        return f"out {output_text}"  # kept short: the bar is one line at 80 columns
    cached = f" cached {usage.cached_tokens}" if usage.cached_tokens is not None else ""
    return f"in {show(usage.input_tokens)} out {output_text}{cached}"


def cache_share_text(usage: Usage | None) -> str:
    """The cache-hit share (cached input over all input) as a percentage: "87%", "<1%" for a
    hit too small to round up, "" when the provider reported no cached count."""
    share = None if usage is None else usage.cache_hit_share
    if share is None:
        return ""
    if 0 < share < 0.005:
        return "<1%"
    return f"{round(share * 100)}%"


def cache_segment(turn: Turn | None) -> list[Segment]:
    """`cache 87%` for a status bar (the chat's or a comparison pane's), beside the usage; none
    when the provider said nothing about its cache."""
    share = cache_share_text(turn.usage if turn is not None else None)
    return [(f"cache {share}", DIM)] if share else []


def sentence(text: str) -> str:
    """An error message as a sentence: its first letter a capital (the rest is left alone).
    One that opens with `provider 'name'` (the app's own words about a setting, e.g. a key
    never sent) stays as written, the same words `ask` prints and a search finds."""
    if text.startswith("provider '"):
        return text
    return text[:1].upper() + text[1:]


def answer_label(provider: str, model: str, attempt: int = 1) -> str:
    """The line naming who wrote an answer: `provider · model`, and `retry N` for a retry."""
    label = f"{clean_line(provider)}{SEPARATOR}{clean_line(model)}"
    return label + (f"{SEPARATOR}retry {attempt}" if attempt > 1 else "")


def _state_role(word: str) -> str:
    return {"complete": GOOD, "stopped": WARN, "interrupted": WARN, "failed": ERROR}.get(
        word, STATE
    )


def status_segments(info: StatusInput) -> list[Segment]:
    head: list[Segment] = [(clean_line(info.provider), PLAIN), (clean_line(info.model), PLAIN)]
    turn, watch = info.turn, info.watch
    if turn is None or watch is None:
        return [*head, ("ready", DIM)]
    word = watch.state_word(turn)
    parts: list[Segment] = [*head, (word, _state_role(word))]
    if word in (WAITING, STREAMING) and watch.silent_for(info.now) >= STILL_WORKING_AFTER:
        note = f"model still working {format_seconds(info.now - watch.started)}"
        if turn.keepalives:
            plural = "s" if turn.keepalives != 1 else ""
            note += f" ({turn.keepalives} keepalive{plural})"
        parts.append((note, WARN))
    elif word == WAITING:
        parts.append((format_seconds(max(0.0, info.now - watch.started)), DIM))
    ttft = info.ttft if info.ttft is not None else watch.ttft()
    parts.append((f"TTFT {format_ms(ttft)}" if ttft is not None else "TTFT –", DIM))
    complete = turn.status is TurnStatus.COMPLETE
    output = turn.usage.output_tokens if turn.usage is not None and complete else None
    rate = tokens_per_second(output, watch.chars, watch.first_token_at, watch.last_token_at)
    if rate is None:
        parts.append(("– tok/s", DIM))
    else:
        mark = "~" if rate.estimated else ""
        parts.append((f"{mark}{rate.tokens_per_second:.1f} tok/s", DIM))
    parts.append((_usage_text(turn, watch.chars), DIM))
    parts.extend(cache_segment(turn))
    if turn.finish_reason:
        detail = f" ({turn.finish_detail})" if turn.finish_detail else ""
        parts.append((clean_line(f"finish {turn.finish_reason}{detail}"), DIM))
    parts.extend(error_segment(turn))
    return parts


def error_segment(turn: Turn) -> list[Segment]:
    """A failed turn's code for a status bar (the chat's or a comparison pane's), none for any
    other: the full message is shown once, in the transcript under the answer."""
    if turn.error is None:
        return []
    return [(clean_line(turn.error.code or "error")[:MAX_CODE], ERROR)]


__all__ = [
    "SEPARATOR",
    "StatusInput",
    "answer_label",
    "cache_segment",
    "cache_share_text",
    "error_segment",
    "sentence",
    "status_segments",
]
