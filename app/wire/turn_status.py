"""A turn's status, apart from the turn: the first frame shows statuses but no turn, and the
turn's module loads the whole event model."""

from __future__ import annotations

from enum import StrEnum


class TurnStatus(StrEnum):
    STREAMING = "streaming"
    COMPLETE = "complete"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    STOPPED = "stopped"


__all__ = ["TurnStatus"]
