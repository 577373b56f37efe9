"""A long answer stays cheap: it is split over several Markdown widgets, the ones far from the
viewport sleep as blank placeholders of the same height, and they wake when scrolled to."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.pilot import Pilot

from app.demo.frames import Answer
from app.display import segments as segments_module
from app.display.markdown_height import NO_JOINS, Joins
from app.display.markdown_render import MarkdownPainter
from app.display.segments import CONSTRUCT_SEGMENT_LINES
from app.ui.app import TriptychApp
from app.ui.widgets.answer import FRAME_CHARS, AnswerView, SegmentPlaceholder
from app.ui.widgets.markdown_view import StreamedMarkdown
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import fake_config, make_app, screen_text, send, wait_drawn, wait_until

# A code block long enough to be cut into several segments (FENCE_SEGMENT_LINES), ending
# with a line that would close it if it were not indented.
LONG_FENCE = (
    "```python\n"
    + "".join(f"value_{i} = compute({i})  # line {i}\n" for i in range(70))
    + "    ```\nprint('done')\n```\n\n"
)


def long_markdown(sections: int) -> str:
    parts = []
    for n in range(sections):
        words = " ".join(f"word{i}" for i in range(40))
        parts.append(
            f"## Section {n}\n\n{words}\n\n- point one of {n}\n- point two\n\n"
            f"```python\nvalue_{n} = {n}\nprint(value_{n})\n```\n\n"
        )
    return "".join(parts) + "The end.\n"


def long_answer_app(fake_provider: FakeProvider, tmp_path: Path) -> tuple[TriptychApp, str]:
    """An app whose first answer is `long_markdown(20)`, streamed a word at a time."""
    text = long_markdown(20)
    pieces = tuple(re.findall(r"\s*\S+|\s+", text))
    fake_provider.push(fake.stream(Api.CHAT, Answer(text=pieces)))
    return make_app(fake_config(fake_provider), tmp_path), text


async def asked_the_long_answer(pilot: Pilot[Any]) -> AnswerView:
    """Send the prompt of `long_answer_app` and wait for its answer to be drawn."""
    app = pilot.app
    assert isinstance(app, TriptychApp)
    await send(pilot, "long please")
    await wait_drawn(pilot, timeout=20)
    view = app.pane.current
    assert view is not None
    return view.answer


async def test_a_long_answer_sleeps_far_segments_and_wakes_them_on_scroll(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app, text = long_answer_app(fake_provider, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        answer = await asked_the_long_answer(pilot)
        assert answer.source == text  # nothing lost or reordered across segments
        assert len(answer.segments) > 3
        await pilot.pause(0.3)
        asleep = [s for s in answer.segments if isinstance(s, SegmentPlaceholder)]
        assert asleep, "segments far above the viewport should sleep"
        widgets_now = sum(1 for _ in app.screen.walk_children())
        assert widgets_now < 400
        assert "The end." in screen_text(app)

        for _ in range(200):
            await pilot.press("pageup")
            if app.pane.transcript.scroll_y == 0:
                break
        await pilot.pause(0.3)
        assert isinstance(answer.segments[0], StreamedMarkdown)  # woken by scrolling to it
        assert "Section 0" in screen_text(app)
        await wait_until(pilot, lambda: isinstance(answer.segments[-1], SegmentPlaceholder))


def runs_cover_their_segments(answer: AnswerView) -> None:
    """Each sleeping index points at a run that covers it, and every widget shown is one of
    the answer's (a run left pointing past its span made virtualize loop forever)."""
    for index, widget in enumerate(answer.segments):
        if isinstance(widget, SegmentPlaceholder):
            assert widget.first <= index < widget.end, (index, widget.first, widget.end)
    shown = set(map(id, answer.segments))
    assert all(id(child) in shown for child in answer.children)


async def test_virtualize_passes_that_overlap_keep_the_runs_whole(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """Several callers virtualize at once (a scroll's pass, the pass queued after a refresh,
    PageUp's): each awaits mounts, so another may run meanwhile. Waking segments in the middle
    of a run, they must still leave every run covering exactly its segments."""
    import asyncio

    app, text = long_answer_app(fake_provider, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        answer = await asked_the_long_answer(pilot)
        await pilot.pause(0.3)
        transcript = app.pane.transcript
        assert any(isinstance(s, SegmentPlaceholder) for s in answer.segments)
        height = transcript.scrollable_content_region.height
        for depth in (8, 5, 12, 3):  # pages up from the end: the middle of the run of sleepers
            shifts = [-(depth + n) * height for n in range(3)]
            await asyncio.gather(*(transcript.virtualize(shift) for shift in shifts))
            runs_cover_their_segments(answer)
        await pilot.pause()
        runs_cover_their_segments(answer)
        assert answer.source == text


async def test_a_segment_put_to_sleep_lets_go_of_what_it_drew(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Removed, a sleeping segment is garbage; but one the render clock froze is freed only
    after the stream (app/ui/render_clock.py), so what it drew must not wait with it."""
    made: list[StreamedMarkdown] = []
    init = StreamedMarkdown.__init__

    def kept(self: StreamedMarkdown, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(StreamedMarkdown, "__init__", kept)
    app, text = long_answer_app(fake_provider, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        answer = await asked_the_long_answer(pilot)
        assert answer.source == text  # all of it arrived
        await pilot.pause(0.3)
        asleep = [m for m in made if not m.is_attached]
        awake = [m for m in made if m.is_attached]
        assert asleep
        assert awake
        assert all(m._lines for m in awake)  # the awake ones keep theirs: the check can fail
        for segment in asleep:
            assert not segment._lines
            assert not segment._painted
            assert not segment._code
            assert not segment._styles_cache._cache


async def test_resizing_remeasures_sleeping_segments_at_the_new_width(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    text = long_markdown(12)
    pieces = tuple(re.findall(r"\s*\S+|\s+", text))
    fake_provider.push(fake.stream(Api.CHAT, Answer(text=pieces)))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "long please")
        await wait_drawn(pilot, timeout=20)
        answer = app.pane.current.answer if app.pane.current else None
        assert answer is not None
        await wait_until(pilot, lambda: isinstance(answer.segments[0], SegmentPlaceholder))
        await pilot.resize_terminal(50, 24)
        await pilot.pause(0.5)
        asleep = [s for s in answer.segments if isinstance(s, SegmentPlaceholder)]
        assert asleep, "asleep again after the rebuild"
        assert all(s.measured_width == asleep[0].measured_width for s in asleep)
        assert asleep[0].measured_width < 50  # measured at the new width
        assert "The end." in screen_text(app)


class Shows(App[None]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class OneWidget(Shows):
    def compose(self) -> ComposeResult:
        yield StreamedMarkdown()

    async def on_mount(self) -> None:
        self.query_one(StreamedMarkdown).append(self.text)


class Segmented(Shows):  # not a subclass of OneWidget: Textual would run both on_mount handlers
    def compose(self) -> ComposeResult:
        yield AnswerView()

    async def on_mount(self) -> None:
        answer = self.query_one(AnswerView)
        for start in range(0, len(self.text), 7):  # streamed in small pieces
            await answer.append(self.text[start : start + 7])
        await answer.append("", final=True)
        self.segment_count = len(answer.segments)


async def rendered(app: Shows) -> list[str]:
    async with app.run_test(size=(80, 160)) as pilot:
        await pilot.pause(0.3)
        return [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]


async def test_segment_seams_are_invisible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(segments_module, "MIN_SEGMENT_LINES", 2)
    text = long_markdown(2) + (
        "### Small heading\n\ntext\n\n> a quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "after the table\n\n---\n\n1. one\n2. two\n\n# Big heading\n\n" + LONG_FENCE + "The end.\n"
    )
    segmented = Segmented(text)
    assert await rendered(segmented) == await rendered(OneWidget(text))
    assert segmented.segment_count >= 8


class Arrives(App[None]):
    """An answer whose start is on screen before the rest arrives in one go (a fast stream)."""

    def __init__(self, start: str, rest: str) -> None:
        super().__init__()
        self.start, self.rest = start, rest

    def compose(self) -> ComposeResult:
        from textual.containers import VerticalScroll

        with VerticalScroll():
            yield AnswerView()


async def test_segments_arriving_far_above_the_view_start_asleep_at_their_true_height() -> None:
    text = long_markdown(15) + LONG_FENCE + long_markdown(15)
    start, rest = text[:40], text[40:]
    app = Arrives(start, rest)
    async with app.run_test(size=(80, 24)) as pilot:
        answer = app.query_one(AnswerView)
        await answer.append(start)
        await pilot.pause(0.2)
        await answer.append(rest, final=True)
        await pilot.pause(0.3)
        assert answer.born_asleep > 10  # most of the answer was never rendered
        assert answer.source == text
        assert sum(answer.ends_in_fence) >= 2  # the long code block was cut
        estimated = [
            (index, segment.height_of(index))
            for index, segment in enumerate(answer.segments)
            if isinstance(segment, SegmentPlaceholder)
        ]
        runs = {id(s) for s in answer.segments if isinstance(s, SegmentPlaceholder)}
        assert len(runs) < len(estimated) / 5  # neighbouring sleepers share a placeholder
        for index, height in estimated:  # render each for real: same height as estimated
            await answer._wake(index)
            await pilot.pause()
            woken = answer.segments[index]
            assert isinstance(woken, StreamedMarkdown)
            assert woken.outer_size.height == height, f"segment {index}"


async def test_quitting_right_after_a_long_answer_never_mounts_into_a_closing_app(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """Ctrl+Q just after the final frame: segments still being put to sleep or woken (queued
    after that frame) or text still being appended must not mount into an app that is exiting
    (Textual raises MountError once `exit()` has been called: it was the crash report)."""
    text = long_markdown(40)
    pieces = tuple(re.findall(r"\s*\S+|\s+", text))
    fake_provider.push(fake.stream(Api.CHAT, Answer(text=pieces)))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "long please")
        await wait_drawn(pilot, timeout=20)
        answer = app.pane.current.answer if app.pane.current else None
        assert answer is not None
        awake = [s for s in answer.segments if isinstance(s, StreamedMarkdown)]
        assert awake
        app.exit(0)  # what Ctrl+Q ends with; the work queued before it runs next
        await answer.virtualize(Region(0, 10**6, 80, 1))  # everything is far: put to sleep
        await answer.append(long_markdown(3), final=True)  # new segments to mount
    assert app._exception is None
    assert app.return_code == 0
    assert answer.source == text + long_markdown(3)  # the text is kept all the same


def long_table(rows: int) -> str:
    """A table whose columns widen as it goes (longer numbers, a note that grows), with
    aligned columns, inline code and a column wide enough to wrap at 80 cells."""
    head = "| # | name | value | note |\n|---:|:---:|---|---|\n"
    body = "".join(
        f"| {n} | `item` {n} | {n * 1.5:.1f} | note {'x' * (n % 9)} "
        + ("and a longer remark that wraps " * (n // 50))
        + "|\n"
        for n in range(rows)
    )
    return f"Here is the table:\n{head}{body}\nAfter the table.\n"


def long_lists(items: int) -> str:
    bullets = "".join(
        f"- point {n} with **bold**\n" + ("  - nested detail\n" if n % 7 == 0 else "")
        for n in range(items)
    )
    loose = "".join(f"* loose {n}\n\n  a second paragraph of {n}\n\n" for n in range(items // 4))
    numbers = "".join(f"1. step {n}\n" for n in range(items))
    return f"Bullets:\n\n{bullets}\nLoose:\n\n{loose}Numbers:\n\n{numbers}\nThe end.\n"


async def rendered_tall(app: Shows, height: int) -> list[str]:
    async with app.run_test(size=(80, height)) as pilot:
        await pilot.pause(0.3)
        return [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]


@pytest.mark.parametrize("text", [long_table(130), long_lists(120)], ids=["table", "lists"])
async def test_a_long_table_or_list_is_cut_into_segments_without_visible_seams(text: str) -> None:
    segmented = Segmented(text)
    whole = await rendered_tall(OneWidget(text), 600)
    assert await rendered_tall(segmented, 600) == whole
    last = "After the table." if "After the table." in text else "The end."
    assert any(line.strip() == last for line in whole)  # all of it on screen
    assert segmented.segment_count >= 4


async def test_pieces_of_a_long_table_and_list_born_asleep_have_their_true_height() -> None:
    text = long_table(700) + long_lists(300)
    start, rest = text[:40], text[40:]
    app = Arrives(start, rest)
    async with app.run_test(size=(80, 24)) as pilot:
        answer = app.query_one(AnswerView)
        await answer.append(start)
        await pilot.pause(0.2)
        await answer.append(rest, final=True)
        first_take = len(answer.source) - len(start)
        calls = 1
        while not answer.caught_up:  # a bounded piece per call: the render clock calls again
            await answer.append("", final=True)
            calls += 1
        assert calls >= 2
        assert first_take <= FRAME_CHARS + max(map(len, answer.sources))  # a bounded piece
        await pilot.pause(0.3)
        assert answer.born_asleep > 10
        assert answer.source == text
        assert sum(carry is not None for carry in answer.carries) > 10  # cut inside them
        estimated = [
            (index, segment.height_of(index))
            for index, segment in enumerate(answer.segments)
            if isinstance(segment, SegmentPlaceholder)
        ]
        runs = {id(s) for s in answer.segments if isinstance(s, SegmentPlaceholder)}
        assert len(runs) < len(estimated) / 5  # neighbouring sleepers share a placeholder
        for index, height in estimated:
            await answer._wake(index)
            await pilot.pause()
            woken = answer.segments[index]
            assert isinstance(woken, StreamedMarkdown)
            assert woken.outer_size.height == height, f"segment {index}"


async def lines_rendered(
    fake_provider: FakeProvider, tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch
) -> list[int]:
    """Stream `text` over loopback (in 64-character events) and note the source lines of
    every render the answer's segments ask for."""
    rendered: list[int] = []
    paint = MarkdownPainter.paint  # what the segments render through

    def counting(
        self: MarkdownPainter, source: str, width: int, joins: Joins = NO_JOINS, **live: bool
    ) -> Any:
        rendered.append(source.count("\n") + 1)
        return paint(self, source, width, joins, **live)

    monkeypatch.setattr(MarkdownPainter, "paint", counting)
    chunks = tuple(text[i : i + 64] for i in range(0, len(text), 64))
    fake_provider.push(fake.stream(Api.CHAT, Answer(text=chunks)))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "a big table")
        await wait_drawn(pilot, timeout=60)
        answer = app.pane.current.answer if app.pane.current else None
        assert answer is not None
        assert answer.source == text
    monkeypatch.setattr(MarkdownPainter, "paint", paint)
    return rendered


def big_text(kind: str, rows: int) -> str:
    if kind == "table":
        head = "| # | name | note |\n|---:|---|---|\n"
        body = "".join(f"| {n:05} | item {n:05} | note for row {n:05} |\n" for n in range(rows))
    else:
        head = ""
        body = "".join(f"- point {n} of the list with *some* words\n" for n in range(rows))
    return f"Here it is:\n\n{head}{body}\nThat is all.\n"


@pytest.mark.parametrize("kind", ["table", "list"])
async def test_streaming_a_huge_table_or_list_renders_no_more_than_a_segment_at_a_time(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Over loopback: no render covers more than a segment (a few dozen lines; the whole table
    or list used to be re-rendered on every frame)."""
    rendered = await lines_rendered(fake_provider, tmp_path, big_text(kind, 3_000), monkeypatch)
    assert rendered  # (most pieces arrive far above the view: never rendered at all)
    assert max(rendered) <= CONSTRUCT_SEGMENT_LINES + 8


@pytest.mark.parametrize("kind", ["table", "list"])
async def test_the_lines_rendered_grow_linearly_with_a_table_or_list(
    monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Twice the rows, streamed in the same pieces with a frame every 20 of them, cost about
    twice the lines rendered (quadratic before: each frame rendered all rows so far). The
    rows keep their width: a wider column draws every piece of the table again, a cost
    bounded by how often widths change, not by the rows."""

    async def total(rows: int) -> int:
        rendered: list[int] = []
        lines = MarkdownPainter.paint  # what the segments render through

        def counting(
            self: MarkdownPainter, source: str, width: int, joins: Joins = NO_JOINS, **live: bool
        ) -> Any:
            rendered.append(source.count("\n") + 1)
            return lines(self, source, width, joins, **live)

        monkeypatch.setattr(MarkdownPainter, "paint", counting)
        text = big_text(kind, rows)
        app = Arrives("", "")
        async with app.run_test(size=(80, 24)) as pilot:
            answer = app.query_one(AnswerView)
            for number, start in enumerate(range(0, len(text), 64)):
                await answer.append(text[start : start + 64])
                if number % 20 == 19:
                    await pilot.pause()
            await answer.append("", final=True)
            await pilot.pause()
            assert answer.source == text
        monkeypatch.setattr(MarkdownPainter, "paint", lines)
        return sum(rendered)

    small, large = await total(600), await total(1_200)
    assert large < 2.6 * small
