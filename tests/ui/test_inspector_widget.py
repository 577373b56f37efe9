"""The inspector widget on a captured exchange: the request (redacted as captured), the response,
every frame literally, the selected frame with what was decoded from it, its raw bytes, copy and
save asked for with messages."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from app.ui.widgets.frame_list import FrameList
from app.ui.widgets.inspector import Arrivals, Inspector
from app.wire.events import EndOfStream, Event, Finish, Keepalive, TextDelta, Usage
from app.wire.exchange import CapturedExchange, WireFrame, WireRead, WireRequest


def exchange_of(frames: list[tuple[float, str | None, str, tuple[Event, ...]]]) -> CapturedExchange:
    """An exchange as the capture fills it: one read per frame, its exact SSE bytes."""
    request = WireRequest(
        "POST",
        "https://api.example.test/v1/messages",
        {"content-type": "application/json", "x-api-key": "[redacted]"},
        {"model": "claude-x", "stream": True, "messages": [{"role": "user", "content": "hi"}]},
    )
    exchange = CapturedExchange(request, 200, {"content-type": "text/event-stream"}, 300.0)
    add(exchange, frames)
    return exchange


def add(
    exchange: CapturedExchange, frames: list[tuple[float, str | None, str, tuple[Event, ...]]]
) -> None:
    for at_ms, event, data, events in frames:
        raw = (f"event: {event}\r\ndata: {data}\r\n\r\n" if event else f":{data}\r\n").encode()
        exchange.reads.append(WireRead(at_ms, raw))
        exchange.frames.append(
            WireFrame(at_ms, event, data, len(raw), len(exchange.reads) - 1, events)
        )


DELTA = '{"type":"content_block_delta","delta":{"type":"text_delta","text":"[red]Hi\\u001b[2J"}}'
FRAMES: list[tuple[float, str | None, str, tuple[Event, ...]]] = [
    (310, "message_start", '{"type":"message_start","message":{"id":"msg_1"}}', ()),
    (320, None, " keepalive", (Keepalive(),)),
    (400, "content_block_delta", DELTA, (TextDelta("[red]Hi\x1b[2J"),)),
    (
        1900,
        "content_block_delta",
        '{"delta":{"type":"text_delta","text":" there"}}',
        (TextDelta(" there"),),
    ),
    (
        1950,
        "message_delta",
        '{"type":"message_delta","usage":{"output_tokens":3}}',
        (Usage(output_tokens=3), Finish("end_turn")),
    ),
    (1960, "message_stop", '{"type":"message_stop"}', (EndOfStream(),)),
]


class Host(App[None]):
    def __init__(self, exchange: CapturedExchange) -> None:
        super().__init__()
        self.exchange = exchange
        self.copied: list[str] = []
        self.saved = 0

    def compose(self) -> ComposeResult:
        yield Inspector()

    def on_mount(self) -> None:
        self.query_one(Inspector).show(self.exchange)

    def on_inspector_copy_frame(self, message: Inspector.CopyFrame) -> None:
        self.copied.append(message.text)

    def on_inspector_save_exchange(self, _message: Inspector.SaveExchange) -> None:
        self.saved += 1


def text_of(app: App[None], selector: str) -> str:
    return str(app.query_one(selector, Static).render())


async def test_the_exchange_is_shown_literally_and_frames_open_whole() -> None:
    exchange = exchange_of(FRAMES[:2])
    app = Host(exchange)
    async with app.run_test(size=(100, 50)) as pilot:
        await pilot.pause()
        request = text_of(app, "#inspector-request-text")
        assert request.startswith("POST https://api.example.test/v1/messages")
        assert "x-api-key: [redacted]" in request
        assert '  "model": "claude-x",' in request  # the body indented
        assert (
            text_of(app, "#inspector-response") == "Response 200 · content-type: text/event-stream"
        )
        add(exchange, FRAMES[2:])  # the stream goes on
        exchange.ended_ms = 2000.0
        exchange.outcome = "done"
        app.query_one(Inspector).grow()
        await pilot.pause()
        frames = app.query_one(FrameList)
        assert frames.selected == 5  # following the newest
        frames.focus()
        await pilot.press("home", "down", "down")
        detail = text_of(app, "#inspector-detail-text")
        assert detail.startswith("400 ms · content_block_delta · ")
        assert '"text": "[red]Hi\\u001b[2J"' in detail  # no markup, no escape sequence
        assert "→ TextDelta(text='[red]Hi\\x1b[2J')" in detail  # as Python writes it
        await pilot.press("r")
        raw = text_of(app, "#inspector-detail-text")
        assert "the network read that completed it, exact bytes" in raw
        assert "event: content_block_delta\\r\\ndata: " in raw
        await pilot.press("c")
        await pilot.pause()
        assert app.copied[-1] == exchange.reads[2].data.decode()  # the bytes as received
        assert app.copied[-1].startswith("event: content_block_delta\r\ndata: ")
        await pilot.press("r", "c", "s")
        await pilot.pause()
        assert app.copied[-1] == DELTA
        assert app.saved == 1
        figures = text_of(app, ".timeline--figures")
        assert figures.startswith("TTFT 400 ms")


async def test_the_filter_narrows_the_frames() -> None:
    app = Host(exchange_of(FRAMES))
    async with app.run_test(size=(100, 50)) as pilot:
        await pilot.pause()
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"usage")
        await pilot.pause()
        frames = app.query_one(FrameList)
        assert len(frames.rows) == 1
        assert frames.selected == 4
        detail = text_of(app, "#inspector-detail-text")
        assert "→ Usage(" in detail
        assert "→ Finish(" in detail


async def test_down_and_tab_leave_the_filter_for_the_list() -> None:
    """A key meant for the list (`r`, `c`) after moving down is not typed into the filter."""
    app = Host(exchange_of(FRAMES))
    async with app.run_test(size=(100, 50)) as pilot:
        await pilot.pause()
        frames = app.query_one(FrameList)
        for leave in ("down", "tab"):
            await pilot.press("slash", *"delta")
            assert isinstance(app.focused, Input)
            await pilot.press(leave, "r")
            assert app.focused is frames
            assert app.query_one("#inspector-filter", Input).value == "delta"
            assert app.query_one(Inspector).raw
            await pilot.press("r")
            app.query_one("#inspector-filter", Input).value = ""


async def test_an_answer_without_a_kept_stream_says_so() -> None:
    app = Host(exchange_of([]))
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(Inspector).show(None)
        await pilot.pause()
        assert text_of(app, "#inspector-request-text") == "No stream kept for this answer."


def test_inspector_snapshot(snap_compare: Callable[..., bool]) -> None:
    exchange = exchange_of(FRAMES)
    exchange.ended_ms = 2000.0
    assert snap_compare(Host(exchange), terminal_size=(100, 60))


def test_the_timeline_is_built_from_the_new_frames_only() -> None:
    """While a stream grows, each look takes in only the frames since the last one, and ends
    where building it from scratch ends (a 20,000-frame stream is not walked 4 times a second)."""
    exchange = exchange_of(FRAMES[:3])
    arrivals = Arrivals()
    early = arrivals.timeline(exchange)
    assert arrivals.seen == 3
    assert early.first == 0.4  # the keepalive and message_start carry no text
    add(exchange, [(2000.0 + i, "content_block_delta", "{}", (TextDelta("x"),)) for i in range(50)])
    exchange.ended_ms = 2100.0
    grown = arrivals.timeline(exchange)
    assert arrivals.seen == 53
    assert grown == Arrivals().timeline(exchange)
    assert grown.ended == 2.1
    other = exchange_of(FRAMES)
    assert arrivals.timeline(other) == Arrivals().timeline(other)  # another exchange: afresh
    assert arrivals.timeline(other).output_tokens == 3  # the provider's count, from Usage
