"""The status bar's content as plain data: (text, role) segments the widget styles by theme.

provider · model · state · TTFT · tok/s · usage · finish reason, then the error or the reason a
turn ended early. Every piece of provider text goes through `clean_line`, and the widget builds
Content from the segments without any markup parsing.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.display.sanitize import clean_line
from app.display.speed import format_seconds, tokens_per_second
from app.display.turn_watch import STREAMING, WAITING, TurnWatch
from app.wire.turn import Turn

SEPARATOR = " · "
STILL_WORKING_AFTER = 2.0  # seconds of silence before "still working" is shown
MAX_MESSAGE = 300  # characters of an error message shown in one line

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


def _usage_text(turn: Turn) -> str:
    usage = turn.usage
    if usage is None:
        return "in – out – cached –"

    def show(value: int | None) -> str:
        return "–" if value is None else str(value)

    return (
        f"in {show(usage.input_tokens)} out {show(usage.output_tokens)}"
        f" cached {show(usage.cached_tokens)}"
    )


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
            note += f" ({turn.keepalives} keepalives)"
        parts.append((note, WARN))
    ttft = watch.ttft()
    parts.append((f"TTFT {format_seconds(ttft)}" if ttft is not None else "TTFT –", DIM))
    output = turn.usage.output_tokens if turn.usage else None
    rate = tokens_per_second(output, watch.chars, watch.first_token_at, watch.last_token_at)
    if rate is None:
        parts.append(("– tok/s", DIM))
    else:
        mark = "~" if rate.estimated else ""
        parts.append((f"{mark}{rate.tokens_per_second:.1f} tok/s", DIM))
    parts.append((_usage_text(turn), DIM))
    if turn.finish_reason:
        detail = f" ({turn.finish_detail})" if turn.finish_detail else ""
        parts.append((clean_line(f"finish {turn.finish_reason}{detail}"), DIM))
    if turn.error is not None:
        code = f"{turn.error.code}: " if turn.error.code else ""
        parts.append((clean_line(code + turn.error.message)[:MAX_MESSAGE], ERROR))
    elif turn.interruption:
        parts.append((clean_line(turn.interruption)[:MAX_MESSAGE], WARN))
    return parts


__all__ = ["SEPARATOR", "StatusInput", "status_segments"]
