"""A reopened conversation in the transcript. Each stored answer reports itself with the same
status segments the live status bar showed (provider · model · state · TTFT · tok/s · usage ·
finish · error), rebuilt from the saved timings, as one dim line under the answer.

Drawing is the cost (Textual's Markdown makes ~60 widgets of a 3 KB answer, and layout grows with
the DOM), so a long conversation is drawn from its end within a size budget, and the part before
it when the user asks for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget
from textual.widgets import Button, Static

from app.display.status_line import Segment, StatusInput, answer_label, status_segments
from app.display.turn_watch import TurnWatch, settled_watch
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.status_bar import segments_content
from app.ui.widgets.user_message import UserMessage

if TYPE_CHECKING:
    from app.store.records import StoredMessage


def stored_watch(message: StoredMessage) -> TurnWatch:
    """A TurnWatch on a clock that starts at 0 with the request, from the saved milliseconds."""
    turn = message.turn
    chars = len(turn.text) + len(turn.reasoning) if turn is not None else 0
    return settled_watch(message.ttft_ms, message.duration_ms, chars)


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


# -- a reopened conversation in the transcript ---------------------------------------------

SHOWN_CHARS = 12_000  # about how much stored text is drawn at once (~0.25 s per 3 KB answer)
# And at most this many messages: short ones cost their widgets, whatever their text. Reopening
# 6,000 one-line messages drew the last 1,000 (12,000 characters of them) and held the loop for
# seconds; 40 are a few screens, and the rest is drawn as it is scrolled to.
SHOWN_MESSAGES = 40


def window_start(
    messages: list[StoredMessage], budget: int = SHOWN_CHARS, most: int = SHOWN_MESSAGES
) -> int:
    """Where the newest whole exchanges that fit in `budget` characters and `most` messages
    begin (the last exchange is always shown, whatever its size)."""
    used = 0
    start = len(messages)
    for index in reversed(range(len(messages))):
        message = messages[index]
        used += len(message.text) + (len(message.turn.reasoning) if message.turn else 0)
        if message.role == "user" or index == 0:  # an exchange begins here
            over = used > budget or len(messages) - index > most
            if over and start != len(messages):
                return start
            start = index
    return start


class EarlierMessages(Button):
    """The top of a long reopened conversation: press to draw the part before."""

    DEFAULT_CSS = """
    EarlierMessages { width: 1fr; margin: 0 1 1 1; }
    """

    def __init__(self, count: int) -> None:
        super().__init__(self.label_for(count), variant="default", compact=True)

    @staticmethod
    def label_for(count: int) -> str:
        return f"▲ {count} earlier message{'s' if count != 1 else ''} · press to show"


async def mount_stored(
    transcript: Widget,
    messages: list[StoredMessage],
    pane: int,
    *,
    keep_reasoning_open: bool,
    after: Widget | None = None,
) -> list[AssistantTurn]:
    """Draw finished messages (prompts, this pane's answers with their saved status line) and
    return the answer views. The newest answers are drawn first: they are the ones in view."""
    widgets: list[Widget] = []
    views: list[AssistantTurn] = []
    attempt = 0  # answers to the prompt above: the second one is `retry 2`
    for message in messages:
        if message.role == "user":
            widgets.append(UserMessage(message.text, message.attachments))
            attempt = 0
        elif message.pane == pane and message.turn is not None:
            attempt += 1
            view = AssistantTurn(
                message.turn,
                stored_watch(message),
                keep_reasoning_open=keep_reasoning_open,
                label=answer_label(message.provider or "?", message.model or "?", attempt),
            )
            views.append(view)
            widgets += [view, StoredTurnInfo(message)]
    if after is None:
        await transcript.mount_all(widgets)
    else:
        await transcript.mount_all(widgets, after=after)
    for view in reversed(views):
        await view.show_settled()
    return views


__all__ = [
    "SHOWN_CHARS",
    "SHOWN_MESSAGES",
    "EarlierMessages",
    "StoredTurnInfo",
    "mount_stored",
    "stored_segments",
    "stored_watch",
    "window_start",
]
