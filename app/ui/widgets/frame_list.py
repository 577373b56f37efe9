"""The inspector's list of frames: one line per frame as it arrived, saying what it decoded to
(`text "amet, "`, `usage 12/105`: the decoder's events, never the bytes parsed again here), a
mark where the stream was silent, a cursor kept in view, and a filter. Only the lines on screen
are ever drawn (Textual's line API), so a million frames or a 16 MiB one cost what a screenful
costs.

Rows are kept as one array of ints (a frame's index, or -1 - index for the silence before it):
four bytes a row, grown as frames arrive, rebuilt only when the filter changes.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import ClassVar, Protocol

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from app.display.wire_text import GAP, event_name, frame_label, frame_line, gap_line
from app.wire.events import Event, ToolCallStart


class ShownFrame(Protocol):
    """What the list reads of a frame (the captured exchange's frames have these)."""

    @property
    def at_ms(self) -> float: ...  # since the request was sent

    @property
    def event(self) -> str | None: ...  # None for a comment line, "" for no `event:` line

    @property
    def data(self) -> str: ...

    @property
    def size(self) -> int: ...

    @property
    def events(self) -> Sequence[Event]: ...  # what the decoder made of it


NAME_WIDTH = 24  # the event column at its widest (Responses' names are long)


def matches(frame: ShownFrame, needle: str, tools: dict[int, str] | None = None) -> bool:
    """The filter: by event name, by what it decoded to (as its row says it) or by text in
    the data, case-insensitive."""
    if needle in event_name(frame.event).lower() or needle in frame.data.lower():
        return True
    return bool(frame.events) and needle in frame_label(frame.events, "", tools or {}).lower()


class FrameList(ScrollView, can_focus=True):
    DEFAULT_CSS = """
    FrameList {
        height: 1fr;
        overflow-x: hidden;
        background: $surface;
        color: $foreground;
        & > .frame-list--cursor { background: $accent 40%; }
        & > .frame-list--gap { color: $text-warning; }
        & > .frame-list--time { color: $text-muted; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "frame-list--cursor",
        "frame-list--gap",
        "frame-list--time",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Previous frame", show=False),
        Binding("down", "cursor(1)", "Next frame", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "first", "First frame", show=False),
        Binding("end", "last", "Last frame", show=False),
    ]

    class Selected(Message):
        """The cursor is on another frame (its index in the exchange's frames)."""

        def __init__(self, frame_list: FrameList, index: int) -> None:
            super().__init__()
            self.frame_list = frame_list
            self.index = index

        @property
        def control(self) -> FrameList:
            return self.frame_list

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.frames: Sequence[ShownFrame] = ()
        self.needle = ""
        self.rows = array("i")
        self.seen = 0  # frames looked at for rows so far
        self.cursor = -1  # a row, or -1 before any
        self.follow = True  # the cursor rides on the newest frame until moved
        self.tools: dict[int, str] = {}  # tool calls' names by index, for their argument rows
        self.name_width = 7  # the event column: as wide as the longest name seen (to 24)

    # -- attributes down ------------------------------------------------------------------------

    def show(self, frames: Sequence[ShownFrame]) -> None:
        """Show another exchange's frames (or the same, grown: then only the new rows are built)."""
        if frames is not self.frames:
            self.frames, self.seen, self.rows, self.cursor = frames, 0, array("i"), -1
            self.follow, self.tools, self.name_width = True, {}, 7
        self.grow()

    def grow(self) -> None:
        """Take in the frames that arrived since the last call."""
        frames, rows, previous = self.frames, self.rows, None
        if self.seen:
            previous = frames[self.seen - 1]
        for index in range(self.seen, len(frames)):
            frame = frames[index]
            for event in frame.events:
                if type(event) is ToolCallStart:
                    self.tools[event.index] = event.name
            if len(name := event_name(frame.event)) > self.name_width:
                self.name_width = min(len(name), NAME_WIDTH)
            if self.needle and not matches(frame, self.needle, self.tools):
                previous = frame
                continue
            if (
                previous is not None
                and frame.at_ms - previous.at_ms >= GAP * 1000
                and not self.needle
            ):
                rows.append(-1 - index)
            rows.append(index)
            previous = frame
        self.seen = len(frames)
        self.virtual_size = Size(self.scrollable_content_region.width, len(rows))
        if self.follow and rows:  # not told up: the owner shows the newest frame at its pace
            self._move(len(rows) - 1, tell=False)
        self.refresh()

    def filter(self, needle: str) -> None:
        """Only frames whose event or data contain `needle` (silences are not shown then)."""
        selected = self.selected
        self.needle, self.rows, self.seen = needle.strip().lower(), array("i"), 0
        self.grow()
        if selected is not None and selected in self.rows:
            self._move(self.rows.index(selected), tell=False)
        elif self.rows:
            self._move(0, tell=True)
        else:
            self.cursor = -1

    @property
    def selected(self) -> int | None:
        """The frame under the cursor (a silence row selects the frame after it)."""
        if not 0 <= self.cursor < len(self.rows):
            return None
        row = self.rows[self.cursor]
        return row if row >= 0 else -1 - row

    # -- keys -----------------------------------------------------------------------------------

    def action_cursor(self, step: int) -> None:
        self._move(self.cursor + step)

    def action_page(self, step: int) -> None:
        self._move(self.cursor + step * max(self.scrollable_content_region.height - 1, 1))

    def action_first(self) -> None:
        self._move(0)

    def action_last(self) -> None:
        self._move(len(self.rows) - 1)

    def _move(self, row: int, *, tell: bool = True) -> None:
        if not self.rows:
            return
        row = max(0, min(row, len(self.rows) - 1))
        self.follow = row == len(self.rows) - 1
        changed = row != self.cursor
        self.cursor = row
        self.keep_in_view()
        self.refresh()
        selected = self.selected
        if changed and tell and selected is not None:
            self.post_message(self.Selected(self, selected))

    def keep_in_view(self) -> None:
        """Scroll so the selected row shows (the list shrinks as the frame below it grows)."""
        if 0 <= self.cursor < len(self.rows):
            self.scroll_to_region(Region(0, self.cursor, 1, 1), animate=False, force=True)

    def on_resize(self) -> None:
        self.keep_in_view()

    # -- drawing --------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        _, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        if not 0 <= row < len(self.rows):
            return Strip.blank(width, self.rich_style)
        index = self.rows[row]
        if index < 0:
            frame, before = self.frames[-1 - index], self.frames[-2 - index]
            text = gap_line((frame.at_ms - before.at_ms) / 1000, width)
            style = self.get_component_rich_style("frame-list--gap")
        else:
            frame = self.frames[index]
            label = frame_label(frame.events, frame.data, self.tools, width)
            text = frame_line(frame.at_ms, frame.event, label, frame.size, width, self.name_width)
            style = Style()
        base = self.rich_style
        if row == self.cursor:
            base += self.get_component_rich_style("frame-list--cursor")
        return Strip([Segment(text.ljust(width), base + style)], width)


__all__ = ["NAME_WIDTH", "FrameList", "ShownFrame", "matches"]
