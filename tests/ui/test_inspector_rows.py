"""The inspector's rows read like a log in each format: each frame says what the decoder made of
it (`text "Hello"`, `reasoning "…"`, `tool get_weather args +7 B`, `usage 11/9`, `finish …`,
`keepalive`), the size column stays at any width, and the selected row stays in view.

The exchanges are the fake provider's frames (byte for byte what each format's providers send)
decoded by the real engine as a capture, at fixed times, so the snapshots are stable."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from app.demo.frames import frames
from app.display.wire_text import frame_label, frame_line
from app.providers.capture import rebuild
from app.providers.record import Exchange
from app.settings.config import ENDPOINTS
from app.ui.widgets.frame_list import FrameList
from app.ui.widgets.inspector import Inspector
from app.wire.engine import Api
from app.wire.events import TextDelta, ToolCallStart
from app.wire.exchange import CapturedExchange
from tests.fakes.provider import ANSWER

KEEPALIVE = b": keepalive\n\n"


def exchange_for(api: Api) -> CapturedExchange:
    sent = [*frames(api, ANSWER)]
    sent.insert(2, KEEPALIVE)
    recorded = Exchange(
        request={
            "method": "POST",
            "url": f"https://api.example.test/v1{ENDPOINTS[api]}",
            "headers": {"authorization": "[redacted]"},
            "body": {"model": "m-1", "stream": True},
        },
        status=200,
        headers={"content-type": "text/event-stream"},
        pieces=[(0.3 + 0.021 * n, piece) for n, piece in enumerate(sent)],
        outcome="eof",
        response_t=0.25,
        end_t=0.3 + 0.021 * len(sent),
    )
    return rebuild(recorded, api)


class Host(App[None]):
    def __init__(self, exchange: CapturedExchange) -> None:
        super().__init__()
        self.exchange = exchange

    def compose(self) -> ComposeResult:
        yield Inspector()

    def on_mount(self) -> None:
        self.query_one(Inspector).show(self.exchange)


def rows(frames_list: FrameList) -> list[str]:
    height = frames_list.scrollable_content_region.height
    return [frames_list.render_line(y).text.rstrip() for y in range(height)]


def labels(api: Api) -> list[str]:
    """Every row of the exchange's list, drawn 120 columns wide (all rows, not only a screen)."""
    exchange = exchange_for(api)
    tools: dict[int, str] = {}
    out = []
    for frame in exchange.frames:
        for event in frame.events:
            if isinstance(event, ToolCallStart):
                tools[event.index] = event.name
        label = frame_label(frame.events, frame.data, tools, 120)
        out.append(frame_line(frame.at_ms, frame.event, label, frame.size, 120, 26))
    return out


@pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])
def test_each_row_says_what_its_frame_decoded_to(api: Api) -> None:
    lines = labels(api)
    text = "\n".join(lines)
    assert 'text "Hello"' in text
    assert 'text ", "' in text
    assert 'reasoning "Thinking"' in text
    assert "tool get_weather start call_1" in text
    assert "tool get_weather args +7 B" in text  # `{"city"`: the index named by its start
    assert "usage 11/9" in text or "usage ?/9" in text
    assert "finish " in text
    assert "keepalive" in text
    assert all(line.rstrip().endswith(" B") for line in lines)  # the size on every row
    if api is Api.CHAT:  # the delta shows, not the chunk's id cut short
        deltas = [line for line in lines if '{"id"' in line]
        assert len(deltas) <= 1  # only the role chunk, which decodes to nothing
        assert "end of stream" in lines[-1]


@pytest.mark.parametrize("width", [30, 40, 60])
async def test_the_size_stays_and_the_selected_row_stays_in_view(width: int) -> None:
    app = Host(exchange_for(Api.MESSAGES))
    async with app.run_test(size=(width, 40)) as pilot:
        await pilot.pause()
        frame_list = app.query_one(FrameList)
        frame_list.focus()
        drawn = [row for row in rows(frame_list) if row]
        assert drawn
        assert all(row.endswith(" B") for row in drawn), drawn
        await pilot.press("home")
        for _ in range(12):
            await pilot.press("down")
            await pilot.pause()
            top = frame_list.scroll_offset.y
            height = frame_list.scrollable_content_region.height
            assert top <= frame_list.cursor < top + height  # the detail below grew: still seen


@pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])
def test_inspector_rows_snapshot(snap_compare: Callable[..., bool], api: Api) -> None:
    async def select_text_row(pilot: Pilot[None]) -> None:
        """The first answer text's row selected: its JSON and decoded events below."""
        frame_list = app.query_one(FrameList)
        frame_list.focus()
        first = next(
            n
            for n, frame in enumerate(app.exchange.frames)
            if any(isinstance(e, TextDelta) for e in frame.events)
        )
        await pilot.press("home", *["down"] * list(frame_list.rows).index(first))

    app = Host(exchange_for(api))
    assert snap_compare(app, terminal_size=(110, 56), run_before=select_text_row)
