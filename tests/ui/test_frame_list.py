"""The inspector's frame list: lines as the frames arrived, silences marked, a cursor that tells
the screen what it selected, a filter, and only the visible lines drawn (a million frames)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import overload

from textual.app import App, ComposeResult

from app.ui.widgets.frame_list import FrameList
from app.wire.events import Event, Keepalive, TextDelta


@dataclass(frozen=True, slots=True)
class Frame:
    at_ms: float
    event: str | None
    data: str
    size: int
    events: tuple[Event, ...] = field(default=())


def frame(at: float, event: str | None, data: str, *events: Event) -> Frame:
    return Frame(at * 1000, event, data, len(data.encode()), events)


class Counting(Sequence[Frame]):
    """Frames that count how often one is read: drawing must read only what is on screen."""

    def __init__(self, frames: list[Frame]) -> None:
        self.frames = frames
        self.reads = 0

    def __len__(self) -> int:
        return len(self.frames)

    @overload
    def __getitem__(self, index: int) -> Frame: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Frame]: ...
    def __getitem__(self, index: int | slice) -> Frame | Sequence[Frame]:
        self.reads += 1
        return self.frames[index]


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.selected: list[int] = []

    def compose(self) -> ComposeResult:
        yield FrameList(id="frames")

    def on_frame_list_selected(self, message: FrameList.Selected) -> None:
        self.selected.append(message.index)


def screen_lines(widget: FrameList) -> list[str]:
    return [
        widget.render_line(y).text.rstrip() for y in range(widget.scrollable_content_region.height)
    ]


STREAM = [
    frame(0.120, "message_start", '{"type": "message_start"}'),
    frame(0.130, None, " keepalive", Keepalive()),
    frame(
        0.200,
        "content_block_delta",
        '{"delta": {"text": "[bold]Hi\\u001b[2J"}}',
        TextDelta("[bold]Hi\x1b[2J"),
    ),
    frame(2.700, "content_block_delta", '{"delta": {"text": " there"}}', TextDelta(" there")),
    frame(2.800, "message_stop", '{"type": "message_stop"}'),
]


async def test_frames_show_as_they_arrived_with_the_silence_marked() -> None:
    app = Host()
    async with app.run_test(size=(90, 12)) as pilot:
        frames = app.query_one(FrameList)
        frames.show(STREAM[:3])
        await pilot.pause()
        frames.show(STREAM)  # a new list: the exchange grew (as the client's frames do)
        await pilot.pause()
        lines = screen_lines(frames)
        assert lines[0].startswith("    120 ms  message_start        {")  # nothing decoded
        assert lines[1].startswith("    130 ms  :                    keepalive")  # a comment
        assert lines[1].endswith("10 B")
        # what it decoded to, quoted, its escape shown (never drawn)
        assert lines[2].startswith('    200 ms  content_block_delta  text "[bold]Hi\\u001b[2J"')
        assert "2.5 s silent" in lines[3]
        assert lines[4].startswith("   2700 ms  content_block_delta")
        assert frames.selected == 4  # the cursor rides on the newest frame
        await pilot.click(FrameList, offset=(2, 0))
        frames.focus()
        await pilot.press("home", "down")
        assert frames.selected == 1
        assert app.selected[-2:] == [0, 1]  # each move is told up
        await pilot.press("down", "down")  # onto the silence: it selects the frame after it
        assert frames.selected == 3


async def test_the_filter_narrows_by_event_or_text_and_keeps_the_selection() -> None:
    app = Host()
    async with app.run_test(size=(90, 12)) as pilot:
        frames = app.query_one(FrameList)
        frames.show(STREAM)
        frames.focus()
        await pilot.press("home", "down", "down")
        assert frames.selected == 2
        frames.filter("DELTA")
        await pilot.pause()
        lines = [line for line in screen_lines(frames) if line]
        assert len(lines) == 2  # two deltas, no silence mark
        assert frames.selected == 2
        frames.filter("there")
        assert frames.selected == 3
        frames.filter("nothing like this")
        assert frames.selected is None
        assert not any(screen_lines(frames))
        frames.filter("")
        assert len(frames.rows) == 6


async def test_a_million_frames_draw_only_what_is_on_screen() -> None:
    frames_data = Counting([frame(i * 0.001, "delta", f'{{"i": {i}}}') for i in range(1_000_000)])
    app = Host()
    async with app.run_test(size=(90, 20)) as pilot:
        frames = app.query_one(FrameList)
        frames.show(frames_data)
        await pilot.pause()
        frames_data.reads = 0
        frames.focus()
        await pilot.press("home", "pagedown", "end")
        await pilot.pause()
        assert frames.selected == 999_999
        assert screen_lines(frames)[-1].startswith(" 999999 ms  delta")
        assert frames_data.reads < 400  # a few screens, not the million
