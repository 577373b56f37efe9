"""A turn's timing, apart from the client: the chat pane and the history's session records
name it, and importing the client would load httpx on the app's start-up path."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Timing:
    """When a turn started, first showed a token and ended (`time.monotonic()` seconds)."""

    started: float
    first_token: float | None = None
    ended: float | None = None

    @property
    def ttft_ms(self) -> int | None:
        return None if self.first_token is None else round((self.first_token - self.started) * 1000)

    @property
    def duration_ms(self) -> int | None:
        return None if self.ended is None else round((self.ended - self.started) * 1000)


__all__ = ["Timing"]
