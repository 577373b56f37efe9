"""The inspector widget on a captured exchange: the request (redacted as captured), the response,
every frame literally, the selected frame with what was decoded from it, its raw bytes, copy and
save asked for with messages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from app.ui.widgets.frame_list import FrameList
from app.ui.widgets.inspector import Inspector


@dataclass(frozen=True, slots=True)
class Frame:
    at: float
    event: str | None
    data: str
    raw: bytes
    decoded: Sequence[str] = ()
    chars: int = 0

    @property
    def size(self) -> int:
        return len(self.raw)


def sse(at: float, event: str, data: str, decoded: Sequence[str] = (), chars: int = 0) -> Frame:
    raw = f"event: {event}\r\ndata: {data}\r\n\r\n".encode()
    return Frame(at, event, data, raw, decoded, chars)


@dataclass
class Exchange:
    method: str = "POST"
    url: str = "https://api.example.test/v1/messages"
    request_headers: Sequence[tuple[str, str]] = (
        ("content-type", "application/json"),
        ("x-api-key", "[redacted]"),
    )
    request_body: str = (
        '{"model": "claude-x", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'
    )
    status: int | None = 200
    response_headers: Sequence[tuple[str, str]] = (("content-type", "text/event-stream"),)
    frames: list[Frame] = field(default_factory=list)
    ended: float | None = None


FRAMES = [
    sse(
        0.31,
        "message_start",
        '{"type":"message_start","message":{"id":"msg_1"}}',
        ["message start"],
    ),
    sse(0.32, "ping", '{"type":"ping"}'),
    sse(
        0.40,
        "content_block_delta",
        '{"type":"content_block_delta","delta":{"type":"text_delta","text":"[red]Hi\\u001b[2J"}}',
        ["text delta '[red]Hi\\x1b[2J'"],
        12,
    ),
    sse(
        1.90,
        "content_block_delta",
        '{"type":"content_block_delta","delta":{"type":"text_delta","text":" there"}}',
        ["text delta ' there'"],
        6,
    ),
    sse(
        1.95,
        "message_delta",
        '{"type":"message_delta","usage":{"output_tokens":3}}',
        ["usage out 3", "finish end_turn"],
    ),
    sse(1.96, "message_stop", '{"type":"message_stop"}', ["end of stream"]),
]


class Host(App[None]):
    def __init__(self, exchange: Exchange) -> None:
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
    exchange = Exchange(frames=FRAMES[:2])
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
        exchange.frames.extend(FRAMES[2:])  # the stream goes on
        exchange.ended = 2.0
        app.query_one(Inspector).grow()
        await pilot.pause()
        frames = app.query_one(FrameList)
        assert frames.selected == 5  # following the newest
        frames.focus()
        await pilot.press("home", "down", "down")
        detail = text_of(app, "#inspector-detail-text")
        assert detail.startswith("400 ms · content_block_delta · ")
        assert '"text": "[red]Hi\\u001b[2J"' in detail  # no markup, no escape sequence
        assert "→ text delta '[red]Hi\\x1b[2J'" in detail
        await pilot.press("r")
        raw = text_of(app, "#inspector-detail-text")
        assert "exact bytes" in raw
        assert "event: content_block_delta\\r\\ndata: " in raw
        await pilot.press("c")
        await pilot.pause()
        assert app.copied[-1].startswith("event: content_block_delta\\r\\n")  # as shown: raw
        await pilot.press("r", "c", "s")
        await pilot.pause()
        assert app.copied[-1] == FRAMES[2].data
        assert app.saved == 1
        figures = text_of(app, ".timeline--figures")
        assert figures.startswith("TTFT 400 ms")


async def test_the_filter_narrows_the_frames() -> None:
    app = Host(Exchange(frames=list(FRAMES)))
    async with app.run_test(size=(100, 50)) as pilot:
        await pilot.pause()
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"usage")
        await pilot.pause()
        frames = app.query_one(FrameList)
        assert len(frames.rows) == 1
        assert frames.selected == 4
        assert "usage out 3" in text_of(app, "#inspector-detail-text")


async def test_an_answer_without_a_kept_stream_says_so() -> None:
    app = Host(Exchange())
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(Inspector).show(None)
        await pilot.pause()
        assert text_of(app, "#inspector-request-text") == "No stream kept for this answer."


def test_inspector_snapshot(snap_compare: Callable[..., bool]) -> None:
    exchange = Exchange(frames=list(FRAMES), ended=2.0)
    assert snap_compare(Host(exchange), terminal_size=(100, 60))
