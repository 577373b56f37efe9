"""The `‹ 2/3 ›` row above a prompt or answer that has siblings (other branches), and which
message widgets of a transcript stand for which stored messages.

A chat is a tree in the history (app/store/branches.py); the transcript shows its chosen path.
Markers are drawn from the stored path each time it is shown (reopened, or after an edit,
regeneration or switch), matched to the message widgets from the end: a long conversation shows
only its end, and its prompts and answers are drawn one widget each, in order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget
from textual.widgets import Static

from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.user_message import UserMessage

if TYPE_CHECKING:
    from app.store.records import StoredMessage

SWITCH_HINT = "[ ] switch branch"


def branch_label(number: int, count: int) -> str:
    return f"‹ {number}/{count} ›"


class BranchMarker(Static):
    """Which of its siblings the message below is: `‹ 2/3 ›`."""

    DEFAULT_CSS = """
    BranchMarker {
        height: 1;
        width: auto;
        margin: 1 1 0 1;
        padding: 0 1;
        color: $text-muted;
    }
    BranchMarker.-selected { color: $text-accent; text-style: bold; }
    """

    def __init__(self, message: Widget, number: int, count: int) -> None:
        super().__init__(branch_label(number, count), markup=False)
        self.message = message
        self.number = number
        self.count = count

    def show_hint(self, selected: bool) -> None:
        """With the message selected, say how to switch."""
        label = branch_label(self.number, self.count)
        self.update(f"{label}  {SWITCH_HINT}" if selected else label)
        self.set_class(selected, "-selected")


def message_widgets(transcript: Widget) -> list[Widget]:
    """The prompts and answers on screen, in order."""
    return [c for c in transcript.children if isinstance(c, UserMessage | AssistantTurn)]


def shown_messages(messages: list[StoredMessage], pane: int) -> list[StoredMessage]:
    """The stored messages a pane draws (as mount_stored does): prompts, and its answers."""
    return [m for m in messages if m.role == "user" or (m.pane == pane and m.turn is not None)]


def pair_from_end(
    widgets: list[Widget], messages: list[StoredMessage]
) -> list[tuple[Widget, StoredMessage]]:
    """Each widget with the stored message it shows, matched from the end (stopping at the
    first pair whose roles differ: the transcript and the history no longer agree there)."""
    pairs: list[tuple[Widget, StoredMessage]] = []
    for widget, message in zip(reversed(widgets), reversed(messages), strict=False):
        if not shows(widget, message):
            break
        pairs.append((widget, message))
    pairs.reverse()
    return pairs


def shows(widget: Widget, message: StoredMessage) -> bool:
    """Whether the widget draws this stored message (its role, and a prompt's or a settled
    answer's text): a transcript that no longer matches the history is never acted on."""
    if isinstance(widget, UserMessage):
        return message.role == "user" and widget.text == message.text
    if isinstance(widget, AssistantTurn):
        settled = widget.turn.done and message.turn is not None and message.turn.done
        return message.role == "assistant" and (not settled or widget.turn.text == message.text)
    return False


async def mark_drawn(
    transcript: Widget, widgets: list[Widget], messages: list[StoredMessage], pane: int
) -> None:
    """Markers for widgets just drawn from `messages` (the earlier part of a long chat)."""
    for widget, message in zip(widgets, shown_messages(messages, pane), strict=False):
        if len(message.siblings) > 1 and message.id in message.siblings:
            await mark(
                transcript, widget, message.siblings.index(message.id) + 1, len(message.siblings)
            )


async def mark_branches(transcript: Widget, messages: list[StoredMessage], pane: int) -> None:
    """Put a marker above every message on screen that has siblings (after removing old ones)."""
    await transcript.remove_children(BranchMarker)
    for widget, message in pair_from_end(
        message_widgets(transcript), shown_messages(messages, pane)
    ):
        if len(message.siblings) > 1 and message.id in message.siblings:
            number = message.siblings.index(message.id) + 1
            await mark(transcript, widget, number, len(message.siblings))


async def mark(transcript: Widget, widget: Widget, number: int, count: int) -> BranchMarker:
    """The message's marker, made or brought up to date: one per message, though marking all
    that are shown (`mark_branches`, as a chat opens) may overlap with marking the earlier part
    just drawn (`mark_drawn`), each awaiting its mounts."""
    marker = marker_of(transcript, widget)
    if marker is not None:
        marker.number, marker.count = number, count
        marker.show_hint(marker.has_class("-selected"))
        return marker
    marker = BranchMarker(widget, number, count)
    widget.add_class("-branched")
    await transcript.mount(marker, before=widget)
    return marker


def marker_of(transcript: Widget, widget: Widget) -> BranchMarker | None:
    for marker in transcript.query_children(BranchMarker):
        if marker.message is widget:
            return marker
    return None


__all__ = [
    "SWITCH_HINT",
    "BranchMarker",
    "branch_label",
    "mark",
    "mark_branches",
    "mark_drawn",
    "marker_of",
    "message_widgets",
    "pair_from_end",
    "shown_messages",
    "shows",
]
