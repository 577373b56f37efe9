"""The inspector: one answer's exchange on the wire, beside the conversation.

From the top: the request as sent (redacted: it is the captured one), the response's status and
headers, a filter, every frame as it arrived (FrameList), the selected frame whole with what
Triptych decoded from it (or its exact bytes, `r`), and the stream's timeline. Everything a
server sent is shown literally: no markup, no escapes reach the terminal.

It is told what to show (`show`, `grow`) and says what the user asked for with messages: copy a
frame, save the exchange as a recording. The screen or app does those.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from app.display.timeline import Arrival, Timeline
from app.display.wire_text import escaped_bytes, pretty, size_text, visible
from app.ui.widgets.frame_list import FrameList, ShownFrame
from app.ui.widgets.timeline import StreamTimeline


class InspectedFrame(ShownFrame, Protocol):
    @property
    def raw(self) -> bytes: ...  # the exact bytes of the frame, as they came

    @property
    def decoded(self) -> Sequence[str]: ...  # what Triptych made of it, one line each

    @property
    def chars(self) -> int: ...  # characters of answer and reasoning it carried


class Exchange(Protocol):
    """What the inspector reads of a captured exchange."""

    @property
    def method(self) -> str: ...

    @property
    def url(self) -> str: ...

    @property
    def request_headers(self) -> Sequence[tuple[str, str]]: ...

    @property
    def request_body(self) -> str: ...

    @property
    def status(self) -> int | None: ...

    @property
    def response_headers(self) -> Sequence[tuple[str, str]]: ...

    @property
    def frames(self) -> Sequence[InspectedFrame]: ...

    @property
    def ended(self) -> float | None: ...  # seconds since the request, when the stream ended


def request_text(exchange: Exchange) -> str:
    lines = [f"{exchange.method} {visible(exchange.url)}"]
    lines += [f"{visible(name)}: {visible(value)}" for name, value in exchange.request_headers]
    if exchange.request_body:
        lines += ["", pretty(exchange.request_body)]
    return "\n".join(lines)


def response_text(exchange: Exchange) -> str:
    if exchange.status is None:
        return "waiting for the response…"
    headers = " · ".join(f"{visible(n)}: {visible(v)}" for n, v in exchange.response_headers)
    return f"Response {exchange.status} · {headers}" if headers else f"Response {exchange.status}"


def frame_detail(frame: InspectedFrame, raw: bool) -> str:
    event = visible(frame.event or "message")
    head = f"{round(frame.at * 1000)} ms · {event} · {size_text(frame.size)}"
    if raw:
        return f"{head} · exact bytes\n\n{escaped_bytes(frame.raw)}"
    decoded = "\n".join(f"→ {line}" for line in frame.decoded) or "→ nothing decoded"
    return f"{head}\n\n{pretty(frame.data)}\n\n{decoded}"


def frame_timeline(exchange: Exchange) -> Timeline:
    frames = exchange.frames
    carried = any(f.chars for f in frames)
    arrivals = tuple(Arrival(f.at, f.chars if carried else f.size) for f in frames)
    return Timeline(arrivals, ended=exchange.ended)


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
        self.exchange: Exchange | None = None
        self.raw = False

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

    def show(self, exchange: Exchange | None) -> None:
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
            self.post_message(self.CopyFrame(escaped_bytes(frame.raw) if self.raw else frame.data))

    def action_save(self) -> None:
        if self.exchange is not None:
            self.post_message(self.SaveExchange())

    def _selected(self) -> InspectedFrame | None:
        index = self.query_one(FrameList).selected
        if self.exchange is None or index is None:
            return None
        return self.exchange.frames[index]

    def _detail(self) -> None:
        frame = self._selected()
        text = "" if frame is None else frame_detail(frame, self.raw)
        self.query_one("#inspector-detail-text", Static).update(text)


__all__ = ["Exchange", "InspectedFrame", "Inspector", "frame_detail", "request_text"]
