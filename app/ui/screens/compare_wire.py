"""The comparison's view of the wire: the inspector beside the panes (F2) on the selected pane's
stream, and a compact timeline row under each pane's header (F4) on one shared time axis.

A base class of CompareScreen, so the comparison screen itself only lays the inspector out
beside its panes and lists these commands in its palette. The inspector follows whichever pane
is selected (it polls its source, so a change of selection, a new answer or a growing stream is
picked up alike); a reopened comparison's answers show their streams kept in the history.

While a blind round hides who is who, neither opens: the request names the provider, its URL
and its model. The rows carry no names and stay.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.screen import Screen

from app.display.timeline import Timeline, shared_span
from app.ui.clipboard import copy_text
from app.ui.palette import Choice
from app.ui.screens.chat import ChatScreen
from app.ui.widgets.compare_pane import ComparePane
from app.ui.widgets.frame_list import FrameList
from app.ui.widgets.inspector import TIMELINE_EVERY, Arrivals, Inspector
from app.ui.widgets.pane_streams import KeptStreams, StreamReader
from app.ui.widgets.timeline import PaneTimeline
from app.wire.exchange import CapturedExchange

HIDDEN = "Not while the comparison is blind: the wire names who is who. Vote first."


class CompareWire(Screen[None]):
    DEFAULT_CSS = """
    CompareWire {
        & > #compare-body { height: 1fr; }
        & > #compare-body > ComparePanes { width: 1fr; }
        & > #compare-body > Inspector { width: 1fr; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f2", "inspect", "inspect", tooltip="the selected pane's wire, beside the panes"),
        Binding(
            "f4",
            "toggle_timelines",
            "timelines",
            show=False,  # the footer is full at 80 columns; the key sheet and palette list it
            tooltip="one row per pane, one time axis",
        ),
    ]

    panes: list[ComparePane]  # the comparison's, in their order on screen

    def __init__(self) -> None:
        super().__init__()
        self.streams = KeptStreams()
        self.inspector = Inspector(id="inspector")
        self.inspector.display = False
        self.timelines_shown = False
        self._drawn: tuple[tuple[int, int, float | None], ...] = ()
        self._arrivals: dict[int, Arrivals] = {}  # id(pane) -> its stream's timeline so far

    # -- what the comparison provides ----------------------------------------------------------

    @property
    def selected_pane(self) -> ComparePane:
        raise NotImplementedError

    @property
    def hidden(self) -> bool:
        raise NotImplementedError

    def _arrange(self, width: int) -> None:
        raise NotImplementedError

    def read_streams(self, read: StreamReader) -> None:
        """Where a reopened answer's kept stream is read from (the app's history)."""
        self.streams = KeptStreams(read)

    def panes_width(self, width: int) -> int:
        """The columns left to the panes beside the inspector (which takes half when open)."""
        return width - width // 2 if self.inspector.display else width

    def wire_commands(self) -> list[Choice]:
        """The palette's commands for the wire: inspect, the timelines, record the session."""
        rows = "hide" if self.timelines_shown else "show"
        choices = [Choice("Toggle timelines", self.action_toggle_timelines, f"f4: {rows} them")]
        if self.hidden:
            return choices
        where = f"f2: pane {self.selected_pane.number}'s frames"
        choices.insert(0, Choice("Inspect the wire", self.action_inspect, where))
        recording = self.recording_to()
        post = self.post_message
        if recording is not None:
            choices.append(
                Choice(
                    "Stop recording the session",
                    lambda: post(ChatScreen.RecordSessionRequested()),
                    f"now: {recording}",
                )
            )
        else:
            choices.append(
                Choice(
                    "Record the session",
                    lambda: post(ChatScreen.RecordSessionRequested()),
                    "every exchange to a file, until stopped",
                )
            )
        return choices

    def recording_to(self) -> Path | None:
        """The session's recording file, if one runs (the app keeps it on the chat screen)."""
        for screen in self.app.screen_stack:
            if isinstance(screen, ChatScreen):
                return screen.recording_to
        return None

    # -- the inspector (F2) --------------------------------------------------------------------

    def action_inspect(self) -> None:
        """Open the inspector on the selected pane's last answer, or close it."""
        inspector = self.inspector
        if inspector.display:
            self._close_inspector()
            return
        if self.hidden:
            self.notify(HIDDEN, severity="warning")
            return
        inspector.display = True
        inspector.follow(self.inspected_exchange, self.selected_pane.clock)
        self._arrange(self.size.width)
        inspector.query_one(FrameList).focus()

    def _close_inspector(self) -> None:
        if not self.inspector.display:
            return
        self.inspector.unfollow()
        self.inspector.display = False
        self._arrange(self.size.width)
        self.query_one("#prompt").focus()

    def inspected_exchange(self) -> CapturedExchange | None:
        """The selected pane's last exchange; a blind round that starts closes the inspector."""
        if self.hidden:
            self.call_later(self._close_inspector)
            return None
        return self.streams.last_exchange(self.selected_pane)

    def on_inspector_copy_frame(self, message: Inspector.CopyFrame) -> None:
        message.stop()
        copy_text(self.app, message.text)

    def on_inspector_save_exchange(self, message: Inspector.SaveExchange) -> None:
        message.stop()
        exchange = self.inspector.exchange
        if exchange is None or self.hidden:
            return
        pane = self.selected_pane
        self.post_message(ChatScreen.SaveRecordingRequested(exchange, pane.provider.name))

    # -- the timelines (F4) --------------------------------------------------------------------

    def action_toggle_timelines(self) -> None:
        """Show a timeline row under every pane's header, or take them away."""
        self.timelines_shown = not self.timelines_shown
        if not self.timelines_shown:
            self._timeline_timer.pause()
            for pane in self.panes:
                for row in pane.query_children(PaneTimeline):
                    row.remove()
            return
        self._drawn = ()
        self.draw_timelines()
        self._timeline_timer.resume()

    def on_mount(self) -> None:
        every = TIMELINE_EVERY / 2  # each redraw walks every pane's frames (Timeline's figures)
        self._timeline_timer = self.set_interval(every, self.draw_timelines, pause=True)

    def draw_timelines(self) -> None:
        """Every pane's row on one axis, as long as the longest stream: redrawn when a stream
        grew, a pane came or went, or a pane's answer changed."""
        panes = list(self.panes)
        exchanges = [self.streams.last_exchange(pane) for pane in panes]
        drawn = tuple(_drawn_key(e) for e in exchanges)
        rows = [self._row(pane) for pane in panes]
        fresh = any(not row.is_mounted for row in rows)
        if drawn == self._drawn and not fresh:
            return
        self._drawn = drawn
        timelines = [
            Timeline(()) if e is None else self._arrivals.setdefault(id(p), Arrivals()).timeline(e)
            for p, e in zip(panes, exchanges, strict=True)
        ]
        span = shared_span(timelines)
        for row, timeline in zip(rows, timelines, strict=True):
            row.show(timeline, span)

    def _row(self, pane: ComparePane) -> PaneTimeline:
        found = list(pane.query_children(PaneTimeline))
        if found:
            return found[0]
        row = PaneTimeline()
        pane.mount(row, after=pane.header)
        return row


def _drawn_key(exchange: CapturedExchange | None) -> tuple[int, int, float | None]:
    if exchange is None:
        return (0, 0, None)
    return (id(exchange), len(exchange.frames), exchange.ended_ms)


def visible_rows(panes: Sequence[ComparePane]) -> list[PaneTimeline]:
    """The timeline rows shown, one per pane that has one (for tests and the screen)."""
    return [row for pane in panes for row in pane.query_children(PaneTimeline)]


__all__ = ["HIDDEN", "CompareWire", "visible_rows"]
