"""How a stored answer reports itself when a conversation is reopened: the same status segments
the live status bar showed (provider · model · state · TTFT · tok/s · usage · finish · error),
rebuilt from the saved timings, as one dim line under the answer.
"""

from __future__ import annotations

from textual.widgets import Static

from app.display.status_line import Segment, StatusInput, status_segments
from app.display.turn_watch import TurnWatch
from app.store import StoredMessage
from app.ui.widgets.status_bar import segments_content


def stored_watch(message: StoredMessage) -> TurnWatch:
    """A TurnWatch on a clock that starts at 0 with the request, from the saved milliseconds."""
    turn = message.turn
    watch = TurnWatch(started=0.0)
    if message.ttft_ms is not None:
        watch.first_token_at = message.ttft_ms / 1000
    if message.duration_ms is not None:
        watch.ended_at = message.duration_ms / 1000
        watch.last_token_at = watch.ended_at if watch.first_token_at is not None else None
    if turn is not None:
        watch.chars = len(turn.text) + len(turn.reasoning)
    return watch


def stored_segments(message: StoredMessage) -> list[Segment]:
    watch = stored_watch(message)
    now = watch.ended_at if watch.ended_at is not None else 0.0
    info = StatusInput(message.provider or "?", message.model or "?", message.turn, watch, now)
    return status_segments(info)


class StoredTurnInfo(Static):
    """The saved status line of one reopened answer."""

    DEFAULT_CSS = """
    StoredTurnInfo {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        color: $text-muted;
        text-style: dim;
    }
    """

    def __init__(self, message: StoredMessage) -> None:
        self.segments = stored_segments(message)
        super().__init__(segments_content(self.segments), markup=False)

    @property
    def plain(self) -> str:
        return " · ".join(text for text, _ in self.segments)


__all__ = ["StoredTurnInfo", "stored_segments", "stored_watch"]
