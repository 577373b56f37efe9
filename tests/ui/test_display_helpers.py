"""The pure helpers behind the UI: sanitising, fence pacing, speed figures, status segments,
code blocks and theme files. No screen needed."""

from __future__ import annotations

import pytest

from app.display import segments as segments_module
from app.display.code_blocks import CodeBlock, code_blocks
from app.display.fences import FencePacer, FenceTracker, flush_interval
from app.display.sanitize import clean, clean_line
from app.display.segments import SegmentCutter, can_start_segment
from app.display.speed import format_seconds, tokens_per_second
from app.display.status_line import ERROR, WARN, StatusInput, status_segments
from app.display.turn_watch import TurnWatch
from app.ui.themes import ThemeFileError, theme_from_mapping
from app.wire.events import EndOfStream, Finish, Keepalive, StreamError, TextDelta, Usage
from app.wire.turn import Turn


def test_control_characters_become_visible_and_text_is_untouched() -> None:
    assert clean("plain [bold]text[/]\n\tindented") == "plain [bold]text[/]\n\tindented"
    assert clean("a\x1b[31mb\x07c\r\n") == "a␛[31mb␇c\n"
    assert clean("x\x9by\u202ez\x7f") == "x\ufffdy\ufffdz␡"
    assert clean_line("one\ntwo\tthree") == "one two three"


def test_fence_tracker_follows_open_and_close_across_pieces() -> None:
    tracker = FenceTracker()
    tracker.feed("intro\n``")
    assert tracker.open_lines is None
    tracker.feed("`python\nx = 1\ny")
    assert tracker.open_lines == 1
    tracker.feed(" = 2\n```\n")
    assert tracker.open_lines is None
    tracker.feed("~~~~\n```\nstill inside\n~~~~\n")
    assert tracker.open_lines is None
    tracker.feed("inline ```code``` is not a fence\n")
    assert tracker.open_lines is None


def test_pacer_flushes_a_long_open_fence_less_often() -> None:
    """Only a fence that cannot be cut into segments (here: in a quote) is paced."""
    pacer = FencePacer(FenceTracker())
    pacer.tracker.feed("> ```\n" + "> line\n" * 10)
    assert pacer.due(0.0)  # a short fence flushes every tick
    pacer.flushed(0.0)
    pacer.tracker.feed("> line\n" * 390)  # 400 lines: interval 1 s (capped)
    assert not pacer.due(0.5)
    assert pacer.due(1.0)
    pacer.tracker.feed("> ```\n")
    assert pacer.due(0.51)  # closed: back to every tick


def test_a_fence_at_the_margin_is_cut_not_paced() -> None:
    pacer = FencePacer(FenceTracker())
    pacer.tracker.feed("```python\n" + "line\n" * 400)
    pacer.flushed(0.0)
    assert pacer.due(0.1)  # only its last FENCE_CUT_LINES lines are rendered again


def test_tokens_per_second_uses_the_generation_phase() -> None:
    rate = tokens_per_second(100, 0, 1.0, 3.0)
    assert rate is not None
    assert (rate.tokens_per_second, rate.estimated) == (50.0, False)
    estimated = tokens_per_second(None, 400, 0.0, 2.0)
    assert estimated is not None
    assert (estimated.tokens_per_second, estimated.estimated) == (
        50.0,
        True,
    )
    assert tokens_per_second(10, 40, 1.0, 1.1) is None  # too short to mean anything
    assert format_seconds(0.4234) == "0.42s"
    assert format_seconds(125) == "2m05s"


def test_status_segments_for_a_complete_and_a_failed_turn() -> None:
    turn = Turn()
    watch = TurnWatch(started=10.0)
    turn.apply(TextDelta("x" * 200))
    watch.observe(turn, 10.5)
    turn.apply_all([TextDelta("x" * 200), Usage(12, 100, 3), Finish("stop"), EndOfStream()])
    turn.end()
    watch.observe(turn, 12.5)
    texts = [text for text, _ in status_segments(StatusInput("p", "m", turn, watch, 12.5))]
    assert texts == ["p", "m", "complete", "TTFT 500 ms", "50.0 tok/s", "in 12 out 100 cached 3",
                     "cache 25%", "finish stop"]  # fmt: skip
    failed = Turn()
    failed.apply(StreamError("overloaded_error", "Overloaded \x1b[2J"))
    failed.end()
    segments = status_segments(StatusInput("p", "m", failed, TurnWatch(started=0.0), 1.0))
    assert ("failed", ERROR) in segments
    assert segments[-1] == ("overloaded_error", ERROR)  # the message itself is in the transcript
    assert not any("Overloaded" in text for text, _ in segments)


def test_status_says_the_model_is_still_working_during_keepalives() -> None:
    turn = Turn()
    turn.apply_all([Keepalive(), Keepalive()])
    watch = TurnWatch(started=0.0)
    watch.observe(turn, 5.0)
    segments = status_segments(StatusInput("p", "m", turn, watch, 5.0))
    assert segments[2][0] == "waiting"
    assert ("model still working 5.00s (2 keepalives)", WARN) in segments


def test_code_blocks_are_raw_text() -> None:
    text = "a\n```python\nx = 1\n```\n- item\n  ~~~\n  indented\n  ~~~\n```sh\necho open\n"
    assert code_blocks(text) == [
        CodeBlock("python", "x = 1"),
        CodeBlock("", "indented"),
        CodeBlock("sh", "echo open"),
    ]


def test_theme_files_are_validated() -> None:
    theme = theme_from_mapping({"name": "t", "primary": "#123456", "dark": False}, "t.toml")
    assert (theme.name, theme.dark) == ("t", False)
    with pytest.raises(ThemeFileError, match="unknown keys: colour"):
        theme_from_mapping({"name": "t", "primary": "#123456", "colour": "red"}, "t.toml")
    with pytest.raises(ThemeFileError, match="primary"):
        theme_from_mapping({"name": "t"}, "t.toml")


def rebuild(pieces_per_feed: list[list[str]], tail: str) -> list[str]:
    segments = [""]
    for pieces in pieces_per_feed:
        segments[-1] += pieces[0]
        segments.extend(pieces[1:])
    segments[-1] += tail
    return segments


def test_segments_cut_only_where_markdown_cannot_continue(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(segments_module, "MIN_SEGMENT_LINES", 2)
    text = (
        "# Title\n\nfirst para\nstill first\n\n- item one\n\n  continued item\n- item two\n\n"
        "```\ncode\n\nmore code\n```\n\nafter code\n## Next\nlast line\n"
    )
    for size in (1, 3, 7, len(text)):
        cutter = SegmentCutter.new()
        fed = [cutter.feed(text[i : i + size]) for i in range(0, len(text), size)]
        segments = rebuild(fed, cutter.flush())
        assert "".join(segments) == text
        assert segments == [
            "# Title\n\n",
            "first para\nstill first\n\n- item one\n\n  continued item\n- item two\n\n",
            "```\ncode\n\nmore code\n```\n\n",
            "after code\n## Next\nlast line\n",
        ], size


def test_a_long_code_block_is_cut_and_each_cut_names_the_block_it_continues() -> None:
    code = "".join(f"line {i}\n" for i in range(60))
    text = "intro\n\n```python\n" + code + "    ```\n```\n\nafter\n"
    for size in (1, 5, len(text)):
        cutter = SegmentCutter.new()
        pieces: list[str] = []
        openers: list[str] = []
        for i in range(0, len(text), size):
            fed = cutter.feed(text[i : i + size])
            if pieces:
                pieces[-1] += fed[0]
            else:
                pieces.append(fed[0])
            pieces += fed[1:]
            openers += cutter.openers[1:]
        pieces[-1] += cutter.flush()
        pieces = [p for p in pieces if p]
        assert "".join(pieces) == text
        cuts = [o for o in openers if o]
        assert cuts == ["```python"] * len(cuts)
        assert len(cuts) >= 2, size  # 60 lines, cut every FENCE_SEGMENT_LINES
        assert all(not p.startswith("```\n") for p in pieces)  # never just the closing line
        assert pieces[-1].endswith("after\n")


def test_a_segment_never_starts_inside_a_list_or_fence() -> None:
    assert not can_start_segment("- item", previous_blank=True)
    assert not can_start_segment("12. item", previous_blank=True)
    assert not can_start_segment("  indented", previous_blank=True)
    assert not can_start_segment("text", previous_blank=False)
    assert can_start_segment("## heading", previous_blank=False)
    assert can_start_segment("text", previous_blank=True)


def test_pacer_holds_long_lists_back_in_proportion() -> None:
    tracker = FenceTracker()
    tracker.feed("- a\n- b\n")
    assert flush_interval(tracker) == 0.0
    tracker.feed("- c\n  more\n- d\n")
    assert flush_interval(tracker) == pytest.approx(0.1)
    tracker.feed("\nParagraph after the list\n")
    assert tracker.list_lines is None
    assert flush_interval(tracker) == 0.0


def test_status_counts_one_keepalive_in_the_singular_and_times_the_wait() -> None:
    turn = Turn()
    turn.apply(Keepalive())
    watch = TurnWatch(started=0.0)
    watch.observe(turn, 3.0)
    segments = status_segments(StatusInput("p", "m", turn, watch, 3.0))
    assert ("model still working 3.00s (1 keepalive)", WARN) in segments
    early = status_segments(StatusInput("p", "m", Turn(), TurnWatch(started=0.0), 0.8))
    assert [text for text, _ in early][2:4] == ["waiting", "0.80s"]  # elapsed before any byte
