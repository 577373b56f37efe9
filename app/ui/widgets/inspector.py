"""The inspector: one answer's exchange on the wire, beside the conversation.

From the top: the request as sent (redacted: it is the captured one), the response's status and
headers, a filter, every frame as it arrived (FrameList), the selected frame whole with what
Triptych decoded from it (or its exact bytes, `r`), and the stream's timeline. Everything a
server sent is shown literally: no markup, no escapes reach the terminal.

It is told what to show (`show`, `grow`) and says what the user asked for with messages: copy a
frame, save the exchange as a recording. The screen or app does those.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from app.display.timeline import Arrival, Timeline
from app.display.wire_text import cut, escaped_bytes, event_name, pretty, size_text, visible
from app.ui.widgets.frame_list import FrameList
from app.ui.widgets.timeline import StreamTimeline
from app.wire.events import ReasoningDelta, TextDelta, Usage
from app.wire.exchange import CapturedExchange, WireFrame

DECODED_WIDTH = 300
POLL = 0.25  # seconds between looks at a streaming exchange (the frames' own pace is higher)


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
    frames = exchange.frames
    sizes = [carried(f) for f in frames]
    if not any(sizes):  # a stream with no text yet: its bytes
        sizes = [f.size for f in frames]
    arrivals = tuple(Arrival(f.at_ms / 1000, n) for f, n in zip(frames, sizes, strict=True))
    ended = None if exchange.ended_ms is None else exchange.ended_ms / 1000
    counts = [e.output_tokens for f in frames for e in f.events if isinstance(e, Usage)]
    reported = next((n for n in reversed(counts) if n), None)  # as the status bar counts
    return Timeline(arrivals, ended=ended, output_tokens=reported if any(sizes) else None)


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
        """Copy this frame's text (its data, or its bytes escaped in the raw view)."""

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

    def on_mount(self) -> None:
        self._poll_timer = self.set_interval(POLL, self._poll, pause=True)

    def follow(self, source: Callable[[], CapturedExchange | None]) -> None:
        """Show what `source` gives (the selected answer's exchange) and keep up with it while
        it streams or the selection changes, four times a second, until `unfollow`."""
        self.source = source
        self.show(source())
        self._poll_timer.resume()

    def unfollow(self) -> None:
        self._poll_timer.pause()

    def _poll(self) -> None:
        exchange = self.source()
        if exchange is not self.exchange:
            self.show(exchange)
        elif exchange is not None:
            seen = (len(exchange.frames), exchange.status, exchange.outcome)
            if seen != self._seen:
                self.grow()

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="inspector-request"):
            yield Static("Request", classes="inspector--title")
            yield Static("", id="inspector-request-text", markup=False)
        yield Static("", id="inspector-response", markup=False)
        yield Input(
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
        if exchange is None:
            self.query_one("#inspector-request-text", Static).update(
                "No stream kept for this answer."
            )
            self.query_one("#inspector-response", Static).update("")
            self.query_one(FrameList).show(())
            self._detail()
            return
        self.query_one("#inspector-request-text", Static).update(request_text(exchange))
        self.grow()

    def grow(self) -> None:
        """Take in what arrived since the last call (the render clock calls it while streaming)."""
        exchange = self.exchange
        if exchange is None:
            return
        self._seen = (len(exchange.frames), exchange.status, exchange.outcome)
        self.query_one("#inspector-response", Static).update(response_text(exchange))
        count = len(exchange.frames)
        frames = f"{count} frame{'s' if count != 1 else ''}"
        hint = f"Filter {frames} (event or text) · / · r raw · c copy · s save"
        self.query_one("#inspector-filter", Input).placeholder = hint
        self.query_one(FrameList).show(exchange.frames)
        self.query_one(StreamTimeline).show(frame_timeline(exchange))
        self._detail()

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
                self.post_message(self.CopyFrame(escaped_bytes(exchange.reads[frame.read].data)))
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
        self.query_one("#inspector-detail-text", Static).update(text)


__all__ = ["Inspector", "frame_detail", "request_text", "response_text"]
