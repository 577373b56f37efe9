"""Which exchange the inspector and the timelines show for a pane: its last answer's.

Shared by the chat and the comparison: the answer streaming or just done, else the pane's last
stored answer, whose kept stream is read back from the history once (an answer with no kept
stream stays None, and is not asked for again).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from app.ui.widgets.chat_pane import ChatPane

if TYPE_CHECKING:
    from app.wire.exchange import CapturedExchange

StreamReader: TypeAlias = "Callable[[int], CapturedExchange | None]"


class KeptStreams:
    """A pane's last exchange, reading a reopened answer's kept stream (by history id) once."""

    def __init__(self, read: StreamReader = lambda _id: None) -> None:
        self.read = read
        self._asked: set[int] = set()

    def last_exchange(self, pane: ChatPane) -> CapturedExchange | None:
        turn = pane.turn
        if turn is not None and (turn.exchange is not None or not turn.done):
            return turn.exchange  # streaming (None until the request is sent) or just done
        for message in reversed(pane.conversation.messages):
            if message.role != "assistant" or message.turn is None:
                continue
            stored = message.stored_id
            if message.turn.exchange is None and stored is not None and stored not in self._asked:
                self._asked.add(stored)
                message.turn.exchange = self.read(stored)
            return message.turn.exchange
        return None


__all__ = ["KeptStreams", "StreamReader"]
