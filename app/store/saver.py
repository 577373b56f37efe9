"""Saving a streaming turn at most about a second behind, without a write per token.

The app asks `SaveSchedule.due` on every render tick and saves once more when the turn settles.
A save is skipped while nothing has changed, except for an occasional heartbeat that tells other
instances the writer is still alive (see liveness.STALE_AFTER).
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import TYPE_CHECKING

from app.store.liveness import HEARTBEAT

if TYPE_CHECKING:
    from app.store.db import Store
    from app.wire.turn import Turn


class SaveSchedule:
    """When the next save of a streaming turn is due: at most every `interval` seconds while it
    changes, and every HEARTBEAT while it does not. Kept apart from writing, so the app can
    decide on its loop and write from its writer thread."""

    def __init__(self, interval: float = 1.0) -> None:
        self.interval = interval
        self.saves = 0
        self._last_at: float | None = None
        self._last_shape: Hashable = None

    def due(self, turn: Turn, now: float | None = None) -> bool:
        """True if a save is due now; it then counts as taken.

        `now` is a monotonic time in seconds (time.monotonic() when omitted).
        """
        now = time.monotonic() if now is None else now
        last = self._last_at
        if last is not None and now - last < self.interval:
            return False
        shape = _shape(turn)
        if last is not None and shape == self._last_shape and now - last < HEARTBEAT:
            return False
        self._last_at, self._last_shape = now, shape
        self.saves += 1
        return True


class TurnSaver:
    """A SaveSchedule writing straight to a store (headless callers, tests)."""

    def __init__(self, store: Store, turn_id: int, *, interval: float = 1.0) -> None:
        self.store = store
        self.turn_id = turn_id
        self.schedule = SaveSchedule(interval)
        self.finals = 0
        self.gone = False  # the row was deleted under us; saving goes on harmlessly

    @property
    def interval(self) -> float:
        return self.schedule.interval

    @property
    def saves(self) -> int:
        return self.schedule.saves + self.finals

    def maybe_save(self, turn: Turn, now: float | None = None) -> bool:
        """Save if `interval` has passed since the last save and the turn changed; True if saved.

        `now` is a monotonic time in seconds (time.monotonic() when omitted).
        """
        if not self.schedule.due(turn, now):
            return False
        self.gone = not self.store.save_turn(self.turn_id, turn)
        return True

    def final(
        self, turn: Turn, *, ttft_ms: int | None = None, duration_ms: int | None = None
    ) -> None:
        """The last save, with timings; the turn must be settled (turn.end())."""
        self.gone = not self.store.save_turn(
            self.turn_id, turn, ttft_ms=ttft_ms, duration_ms=duration_ms, final=True
        )
        self.finals += 1


def _shape(turn: Turn) -> Hashable:
    """Cheap fingerprint of a turn's progress: every part list only grows while streaming."""
    return (
        turn.status,
        len(turn.text_parts),
        len(turn.reasoning_parts),
        tuple((c.index, len(c.parts), c.closed, c.id, c.name) for c in turn.calls.values()),
        len(turn.sources),
        len(turn.redacted_reasoning),
        turn.reasoning_signature,
        turn.usage,
        turn.finish_reason,
        turn.error,
        turn.interruption,
        turn.terminal_seen,
    )


__all__ = ["HEARTBEAT", "SaveSchedule", "TurnSaver"]
