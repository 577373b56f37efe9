"""A turn's timing, apart from the client: the chat pane and the history's session records
name it, and importing the client would load httpx on the app's start-up path."""

from __future__ import annotations

from dataclasses import dataclass


def to_ms(seconds: float) -> int:
    """Whole milliseconds, the one rounding every figure of a turn goes through: to a tenth
    first (the capture's resolution), so `started + at - started` and `at` itself, which
    differ in the last float digit, never round to two numbers."""
    return round(round(seconds * 1000, 1))


@dataclass(slots=True)
class Timing:
    """When a turn started, first showed a token and ended (`time.monotonic()` seconds)."""

    started: float
    first_token: float | None = None
    ended: float | None = None

    @property
    def ttft_ms(self) -> int | None:
        return None if self.first_token is None else to_ms(self.first_token - self.started)

    @property
    def duration_ms(self) -> int | None:
        return None if self.ended is None else to_ms(self.ended - self.started)


__all__ = ["Timing", "to_ms"]
