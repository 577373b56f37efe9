"""What the UI learns by looking at a growing Turn on each render tick: when tokens started and
stopped arriving, how long the reasoning phase lasted, and which state word to show.

The Turn itself carries no timestamps (it is plain data shared with `ask` and the store), so the
UI records them here at the render clock's resolution. `now` is always passed in, which lets
snapshot tests use a fixed clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.wire.turn_status import TurnStatus

if TYPE_CHECKING:
    from app.wire.turn import Turn

WAITING = "waiting"
STREAMING = "streaming"


@dataclass(slots=True)
class TurnWatch:
    started: float
    first_token_at: float | None = None
    last_token_at: float | None = None
    reasoning_started: float | None = None
    reasoning_ended: float | None = None
    ended_at: float | None = None
    chars: int = 0  # answer + reasoning characters seen, counted incrementally
    _text_seen: int = 0
    _reasoning_seen: int = 0
    _seen: int = 0

    def observe(self, turn: Turn, now: float) -> None:
        text, reasoning = turn.text_parts, turn.reasoning_parts
        for part in text[self._text_seen :]:
            self.chars += len(part)
        for part in reasoning[self._reasoning_seen :]:
            self.chars += len(part)
        self._text_seen, self._reasoning_seen = len(text), len(reasoning)
        seen = len(text) + len(reasoning) + len(turn.calls)
        for call in turn.calls.values():
            seen += len(call.parts)
        if seen != self._seen:
            self._seen = seen
            if self.first_token_at is None:
                self.first_token_at = now
            self.last_token_at = now
        if turn.reasoning_parts and self.reasoning_started is None:
            self.reasoning_started = now
        if (
            self.reasoning_started is not None
            and self.reasoning_ended is None
            and (turn.text_parts or turn.calls or turn.done)
        ):
            self.reasoning_ended = now
        if turn.done and self.ended_at is None:
            self.ended_at = now

    def state_word(self, turn: Turn) -> str:
        if turn.status is TurnStatus.STREAMING:
            return WAITING if self.first_token_at is None else STREAMING
        return turn.status.value

    def ttft(self) -> float | None:
        if self.first_token_at is None:
            return None
        return self.first_token_at - self.started

    def reasoning_seconds(self, now: float) -> float:
        if self.reasoning_started is None:
            return 0.0
        end = self.reasoning_ended if self.reasoning_ended is not None else now
        return max(0.0, end - self.reasoning_started)

    def silent_for(self, now: float) -> float:
        """Seconds since the last token (or since the request, before any)."""
        since = self.last_token_at if self.last_token_at is not None else self.started
        return max(0.0, now - since)


def settled_watch(ttft_ms: int | None, duration_ms: int | None, chars: int) -> TurnWatch:
    """A finished turn's watch from its saved milliseconds, on a clock that starts at 0 with
    the request: what a reopened answer is measured by, and the live one once it settles."""
    watch = TurnWatch(started=0.0, chars=chars)
    if ttft_ms is not None:
        watch.first_token_at = ttft_ms / 1000
    if duration_ms is not None:
        watch.ended_at = duration_ms / 1000
        watch.last_token_at = watch.ended_at if watch.first_token_at is not None else None
    return watch


__all__ = ["STREAMING", "WAITING", "TurnWatch", "settled_watch"]
