"""The inspector: one answer's exchange on the wire, beside the conversation.

From the top: the request as sent (redacted: it is the captured one), the response's status and
headers, a filter (Enter, Down or Tab go on to the list), every frame as it arrived and what it
decoded to (FrameList), the selected frame whole: its JSON and the events Triptych decoded
from it (or its exact bytes, `r`), and the stream's timeline. Everything a server sent is shown
literally: no markup, no escapes reach the terminal.

It is told what to show (`show`, `grow`) and says what the user asked for with messages: copy a
frame, save the exchange as a recording. The screen or app does those.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from app.display.timeline import Arrival, Timeline
from app.display.wire_text import cut, escaped_bytes, event_name, pretty, size_text, visible
from app.ui.render_clock import RenderClock
from app.ui.widgets.frame_list import FrameList
from app.ui.widgets.timeline import StreamTimeline
from app.wire.events import ReasoningDelta, TextDelta, Usage
from app.wire.exchange import CapturedExchange, WireFrame


class FrameFilter(Input):
    """The filter's input: Down and Tab go on to the list (as Enter does), so a key meant for
    the list (`r`, `c`) is not typed into the filter."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "leave", "Frames", show=False),
        Binding("tab", "leave", "Frames", show=False),
    ]

    class Leave(Message):
        """Go on to the list of frames."""

    def action_leave(self) -> None:
        self.post_message(self.Leave())


DECODED_WIDTH = 300
POLL = 0.25  # seconds between looks at a streaming exchange (the frames' own pace is higher)
TIMELINE_EVERY = 1.0  # seconds between redraws of a streaming exchange's timeline (O(frames))


def request_text(exchange: CapturedExchange) -> str:
    request = exchange.request
    lines = [f"{request.method} {visible(request.url)}"]
    lines += [f"{visible(name)}: {visible(value)}" for name, value in request.headers.items()]
    if request.body is not None:
        body = request.body if isinstance(request.body, str) else json.dumps(request.body)
        lines += ["", pretty(body)]
    return "\n".join(lines)


def response_text(exchange: CapturedExchange) -> str:
    """The status and headers, and what is worth knowing about the whole exchange."""
    if exchange.status is None:
        words = f"Response: {exchange.detail or 'none'}" if exchange.done else "Response: waiting…"
    else:
        headers = " · ".join(f"{visible(n)}: {visible(v)}" for n, v in exchange.headers.items())
        words = f"Response {exchange.status}" + (f" · {headers}" if headers else "")
    notes = []
    if exchange.status is not None and exchange.detail:
        notes.append(f"Ended: {visible(exchange.detail)}")  # e.g. no [DONE] after finish_reason
    if exchange.cut:
        notes.append(
            f"kept {size_text(exchange.kept_bytes)} of {size_text(exchange.total_bytes)}"
            f" ({exchange.cut_frames} frames not kept: keep_stream_mib)"
        )
    if exchange.retried is not None:
        first = exchange.retried.status
        notes.append(f"asked again: the first request got {first}" if first else "asked again")
    return "\n".join([words, *notes])


def decoded_lines(frame: WireFrame) -> list[str]:
    """What Triptych made of a frame, one event a line, as Python writes it (quotes escaped,
    control characters as escapes), cut so a huge delta stays a line."""
    if not frame.events:
        return ["nothing decoded" if frame.event is not None else "a comment: nothing decoded"]
    return [cut(repr(event), DECODED_WIDTH) for event in frame.events]


def frame_detail(exchange: CapturedExchange, frame: WireFrame, raw: bool) -> str:
    head = f"{round(frame.at_ms)} ms · {event_name(frame.event)} · {size_text(frame.size)}"
    if raw:
        if not 0 <= frame.read < len(exchange.reads):
            return f"{head}\n\nits bytes were not kept"
        read = exchange.reads[frame.read]
        where = f"{size_text(len(read.data))} at {round(read.at_ms)} ms"
        return (
            f"{head} · the network read that completed it, exact bytes ({where})"
            f"\n\n{escaped_bytes(read.data)}"
        )
    decoded = "\n".join(f"→ {line}" for line in decoded_lines(frame))
    return f"{head}\n\n{pretty(frame.data)}\n\n{decoded}"


def carried(frame: WireFrame) -> int:
    return sum(len(e.text) for e in frame.events if isinstance(e, TextDelta | ReasoningDelta))


def frame_timeline(exchange: CapturedExchange) -> Timeline:
    return Arrivals().timeline(exchange)


class Arrivals:
    """A stream's timeline, built from its frames as they arrive: each call looks only at the
    frames that came since the last (20,000 frames are not walked again four times a second)."""

    def __init__(self) -> None:
        self._start(None)

    def _start(self, exchange: CapturedExchange | None) -> None:
        self.exchange = exchange
        self.seen = 0
        self.text: list[Arrival] = []  # characters of answer and reasoning per frame
        self.bytes: list[Arrival] = []  # bytes per frame, for a stream with no text (yet)
        self.has_text = False
        self.reported: int | None = None  # the provider's last nonzero output token count

    def timeline(self, exchange: CapturedExchange) -> Timeline:
        if exchange is not self.exchange:
            self._start(exchange)
        frames = exchange.frames
        for frame in frames[self.seen :]:
            at = frame.at_ms / 1000
            size = carried(frame)
            self.text.append(Arrival(at, size))
            if not self.has_text:
                self.bytes.append(Arrival(at, frame.size))
                if size > 0:  # the bytes are only shown while no text came: not kept on
                    self.has_text, self.bytes = True, []
            for event in frame.events:
                if isinstance(event, Usage) and event.output_tokens:
                    self.reported = event.output_tokens  # as the status bar counts
        self.seen = len(frames)
        ended = None if exchange.ended_ms is None else exchange.ended_ms / 1000
        if not self.has_text:
            return Timeline(tuple(self.bytes), ended=ended)
        return Timeline(tuple(self.text), ended=ended, output_tokens=self.reported)


class Inspector(Vertical):
    DEFAULT_CSS = """
    Inspector {
        width: 1fr;
        height: 1fr;
        border-left: vkey $panel;
        background: $surface;
        & > #inspector-request { max-height: 40%; height: auto; padding: 0 1; }
        & > #inspector-response { height: auto; max-height: 3; padding: 0 1; color: $text-muted; }
        & > #inspector-filter { margin: 0 1; }
        & > FrameList { height: 1fr; min-height: 5; }
        & > #inspector-detail { height: auto; max-height: 35%; padding: 0 1;
            border-top: hkey $panel; }
        & .inspector--title { color: $text-primary; text-style: bold; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "raw", "Raw bytes"),
        Binding("c", "copy_frame", "Copy frame"),
        Binding("s", "save", "Save recording"),
        Binding("slash", "filter", "Filter", show=False),
    ]

    class CopyFrame(Message):
        """Copy this frame's text: its data, or in the raw view the bytes of the read that
        completed it, as they came (UTF-8; a byte that is not stands as U+FFFD)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class SaveExchange(Message):
        """Save the exchange shown as a recording file."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.exchange: CapturedExchange | None = None
        self.raw = False
        self.source: Callable[[], CapturedExchange | None] = lambda: None
        self._seen: tuple[int, int | None, str] = (-1, None, "")
        self._arrivals = Arrivals()
        self._timeline_at = -TIMELINE_EVERY  # monotonic time of the last timeline drawn
        self._shown: dict[str, str] = {}  # each Static's text, not updated when unchanged
        self.clock: RenderClock | None = None
        self._on_clock = False

    def on_mount(self) -> None:
        self._poll_timer = self.set_interval(POLL, self._poll, pause=True)

    def follow(
        self, source: Callable[[], CapturedExchange | None], clock: RenderClock | None = None
    ) -> None:
        """Show what `source` gives (the selected answer's exchange) and keep up with it while
        it streams or the selection changes, until `unfollow`. The selection is looked at four
        times a second; a streaming exchange grows on the render clock's ticks (when given), in
        the panes' own batch: its frames, like theirs, are then laid out in the same pass."""
        self.source = source
        self.clock = clock
        self.show(source())
        self._poll_timer.resume()

    def focus_frames(self) -> None:
        self.query_one(FrameList).focus()

    def unfollow(self) -> None:
        self._poll_timer.pause()
        self.source = lambda: None

    def _poll(self) -> None:
        exchange = self.source()
        if exchange is not self.exchange:
            self.show(exchange)
        elif exchange is not None and self._changed(exchange):
            self._grow_soon(exchange)

    def _changed(self, exchange: CapturedExchange) -> bool:
        return (len(exchange.frames), exchange.status, exchange.outcome) != self._seen

    def _grow_soon(self, exchange: CapturedExchange) -> None:
        """On the clock's next tick while it streams (if there is a clock), else now."""
        if self.clock is None or exchange.done:
            self.grow()
        elif not self._on_clock:
            self._on_clock = True
            self.clock.add(self)

    async def flush(self, now: float) -> bool:
        """A tick of the render clock: take in what arrived; True (off the clock) once the
        exchange is over or another one, or none, is shown."""
        exchange = self.exchange
        if exchange is not None and self.display and self._changed(exchange):
            if exchange.done:  # the answer's last frame goes to the screen first, then this
                self.call_after_refresh(self.grow)
            else:
                self.grow()
        over = exchange is None or exchange.done or not self.display
        if over:
            self._on_clock = False
        return over

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="inspector-request"):
            yield Static("Request", classes="inspector--title")
            yield Static("", id="inspector-request-text", markup=False)
        yield Static("", id="inspector-response", markup=False)
        yield FrameFilter(
            placeholder="Filter frames (event or text)", id="inspector-filter", compact=True
        )
        yield FrameList(id="inspector-frames")
        with VerticalScroll(id="inspector-detail"):
            yield Static("", id="inspector-detail-text", markup=False)
        yield StreamTimeline(id="inspector-timeline")

    # -- attributes down ------------------------------------------------------------------------

    def show(self, exchange: CapturedExchange | None) -> None:
        """Show another exchange (None: the answer has none, e.g. from before streams were kept)."""
        self.exchange = exchange
        self._timeline_at = -TIMELINE_EVERY
        if exchange is None:
            self._update("#inspector-request-text", "No stream kept for this answer.")
            self._update("#inspector-response", "")
            self.query_one(FrameList).show(())
            self.query_one(StreamTimeline).show(Timeline(()))
            self._detail()
            return
        self._update("#inspector-request-text", request_text(exchange))
        self.grow()
        if not exchange.done:
            self._grow_soon(exchange)

    def grow(self) -> None:
        """Take in what arrived since the last call (on the render clock's ticks while the
        answer streams). Only what changed is updated (each update of a Static asks for a
        layout of the whole screen), and a streaming timeline once a second (it walks every
        frame)."""
        exchange = self.exchange
        if exchange is None:
            return
        self._seen = (len(exchange.frames), exchange.status, exchange.outcome)
        self._update("#inspector-response", response_text(exchange))
        count = len(exchange.frames)
        frames = f"{count} frame{'s' if count != 1 else ''}"
        hint = f"Filter {frames} (event or text) · / · r raw · c copy · s save"
        self.query_one("#inspector-filter", Input).placeholder = hint
        self.query_one(FrameList).show(exchange.frames)
        now = time.monotonic()
        if exchange.done or now - self._timeline_at >= TIMELINE_EVERY:
            self._timeline_at = now
            self.query_one(StreamTimeline).show(self._arrivals.timeline(exchange))
        self._detail()  # the newest frame while the list follows it: laid out in the same pass

    def _update(self, selector: str, text: str) -> None:
        if self._shown.get(selector) != text:
            self._shown[selector] = text
            self.query_one(selector, Static).update(text)

    # -- what the user does ---------------------------------------------------------------------

    def on_frame_list_selected(self, message: FrameList.Selected) -> None:
        message.stop()
        self._detail()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.query_one(FrameList).filter(event.value)
        self._detail()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one(FrameList).focus()

    def on_frame_filter_leave(self, message: FrameFilter.Leave) -> None:
        message.stop()
        self.query_one(FrameList).focus()

    def action_filter(self) -> None:
        self.query_one("#inspector-filter", Input).focus()

    def action_raw(self) -> None:
        self.raw = not self.raw
        self._detail()

    def action_copy_frame(self) -> None:
        frame = self._selected()
        if frame is not None:
            exchange = self.exchange
            if self.raw and exchange is not None and 0 <= frame.read < len(exchange.reads):
                data = exchange.reads[frame.read].data
                self.post_message(self.CopyFrame(data.decode("utf-8", "replace")))
            else:
                self.post_message(self.CopyFrame(frame.data))

    def action_save(self) -> None:
        if self.exchange is not None:
            self.post_message(self.SaveExchange())

    def _selected(self) -> WireFrame | None:
        index = self.query_one(FrameList).selected
        if self.exchange is None or index is None:
            return None
        return self.exchange.frames[index]

    def _detail(self) -> None:
        frame = self._selected()
        exchange = self.exchange
        text = "" if frame is None or exchange is None else frame_detail(exchange, frame, self.raw)
        self._update("#inspector-detail-text", text)


__all__ = [
    "Arrivals",
    "Inspector",
    "frame_detail",
    "frame_timeline",
    "request_text",
    "response_text",
]
