"""`@path` mentions and their completion (app/ui/widgets/at_paths.py), and the compact
"sent with" summary of an answer's header (app/display/sent_with.py): what the Pilot tests lean
on, with the edge cases spelled out."""

from __future__ import annotations

from pathlib import Path

from app.display.sent_with import sent_summary
from app.ui.widgets.at_paths import (
    MAX_SHOWN,
    complete,
    existing,
    looks_like_a_file,
    mention_before,
    mentions,
)


def test_a_mention_starts_the_text_or_follows_whitespace() -> None:
    assert mention_before("see @src/ap", 11) == "src/ap"
    assert mention_before("@x", 2) == "x"
    assert mention_before("me@example.com", 14) is None  # an e-mail address
    assert mention_before("see @a b", 8) is None  # the cursor is past it
    assert mentions("a @one b\n@two, and x@no @three") == ["one", "two,", "three"]
    assert mentions("a @one b @two", closed_only=True) == ["one"]


def test_trailing_punctuation_is_not_part_of_the_path(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("x")
    assert existing("notes.md,", tmp_path) == tmp_path / "notes.md"
    assert existing("someone", tmp_path) is None
    assert looks_like_a_file("nothere.md)")
    assert not looks_like_a_file("dataclass")
    assert not looks_like_a_file("app.route")


def test_completion_takes_the_common_part_and_marks_folders(tmp_path: Path) -> None:
    for name in ("notes.md", "notes.txt", ".hidden", "shot.png"):
        (tmp_path / name).write_text("x")
    (tmp_path / "src").mkdir()
    assert complete("no", tmp_path).insert == "tes."
    assert complete("no", tmp_path).candidates == ("notes.md", "notes.txt")
    assert complete("sr", tmp_path).insert == "c/"
    assert complete("s", tmp_path).candidates == ("shot.png", "src/")
    assert complete("", tmp_path).candidates == ("notes.md", "notes.txt", "shot.png", "src/")
    assert complete(".h", tmp_path).candidates == (".hidden",)  # only when asked for
    assert complete("zz", tmp_path).candidates == ()
    assert complete("missing/x", tmp_path).candidates == ()  # no such folder: nothing
    assert complete(str(tmp_path) + "/sh", Path("/")).insert == "ot.png"  # absolute


def test_a_big_folder_lists_a_few_and_says_there_are_more(tmp_path: Path) -> None:
    for number in range(MAX_SHOWN + 3):
        (tmp_path / f"f{number:02}.txt").write_text("x")
    found = complete("f", tmp_path)
    assert len(found.candidates) == MAX_SHOWN
    assert found.more
    assert found.insert == "0"  # f00.txt … f08.txt all go on with 0


def test_the_summary_names_each_knob_shortly_whatever_the_formats_field() -> None:
    assert sent_summary({"stream_options": {"include_usage": True}}) == ""
    assert sent_summary({"temperature": 0.2, "max_tokens": 256}) == "temp 0.2 · max 256"
    assert sent_summary({"max_output_tokens": 300, "reasoning": {"effort": "low"}}) == (
        "max 300 · effort low"
    )
    assert sent_summary({"thinking": {"type": "enabled", "budget_tokens": 2048}}) == "think 2048"
    assert sent_summary({"stop_sequences": ["END"], "stop": ["a", "b"]}) == ('stop "END" · stop ×2')
    assert sent_summary({"temperature": 1.0}) == "temp 1"
    assert sent_summary({"metadata": {"user_id": "x" * 40}}) == (
        'metadata {"user_id":"xxxxxxxxxxx…'
    )
    assert sent_summary({"user": "\x1b[31mred"}) == 'user "\\u001b[31mred"'  # never an escape
