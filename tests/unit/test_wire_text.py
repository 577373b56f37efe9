"""What the inspector writes for frames and raw bytes (app/display/wire_text.py): exact, escaped,
cut to the width, and cheap for a huge frame."""

from __future__ import annotations

from app.display.wire_text import (
    compact,
    escaped_bytes,
    frame_line,
    gap_line,
    pretty,
    size_text,
    visible,
)


def test_raw_bytes_show_what_they_are() -> None:
    raw = b'\xef\xbb\xbfdata: {"a":"caf\xc3\xa9"}\r\n\r\n'
    assert escaped_bytes(raw) == '\\ufeffdata: {"a":"café"}\\r\\n\\r\\n'
    assert escaped_bytes(b"ok\xff\xc3(\x1b[31m\x00") == "ok\\xff\\xc3(\\x1b[31m\\x00"
    assert escaped_bytes(b"a\\b\tc") == "a\\\\b\\tc"  # a backslash is doubled: nothing ambiguous
    assert escaped_bytes("\u202e".encode()) == "\\u202e"  # a bidi override, not drawn
    assert escaped_bytes(b"\xe2\x82") == "\\xe2\\x82"  # a character cut short


def test_text_escapes_controls_but_keeps_printable_unicode() -> None:
    assert visible("plain text ✓ 日本") == "plain text ✓ 日本"
    assert visible("a\x1b]0;title\x07b") == "a\\x1b]0;title\\x07b"
    assert visible("x\u200by\ud800") == "x\\u200by\\ud800"
    assert visible("line\nnext\r") == "line\\nnext\\r"


def test_compact_and_pretty_json() -> None:
    data = '{ "type": "delta",\n  "text": "hi [b]there[/b]" }'
    assert compact(data) == '{"type":"delta","text":"hi [b]there[/b]"}'
    assert pretty(data) == '{\n  "type": "delta",\n  "text": "hi [b]there[/b]"\n}'
    assert compact("[DONE]") == "[DONE]"  # not JSON: as it came
    assert compact("{broken") == "{broken"
    assert pretty("two\nlines\x1b") == "two\nlines\\x1b"


def test_a_frame_line_fits_the_width_and_keeps_its_size() -> None:
    line = frame_line(
        1234, "content_block_delta", '{"delta": {"text": "' + "x" * 300 + '"}}', 331, 80
    )
    assert len(line) == 80
    assert line.startswith("   1234 ms  content_block_delta")
    assert line.endswith("  331 B")
    assert "…" in line
    short = frame_line(5, "", "[DONE]", 6, 80)
    assert "message" in short  # no event: line, the SSE default name
    assert frame_line(5, None, " ping", 5, 80).startswith("      5 ms  :  ")  # a comment
    assert short.rstrip().endswith("6 B")
    assert len(frame_line(5, "ping", "{}", 2, 20)) <= 20  # too narrow: the size gives way


def test_an_event_name_with_control_characters_is_escaped() -> None:
    line = frame_line(1, "evil\x1b[2J", "{}", 2, 80)
    assert "\x1b" not in line
    assert "evil\\x1b[2J" in line


def test_a_huge_frame_is_not_parsed_for_one_line() -> None:
    data = '{"text": "' + "y" * 20_000_000 + '"}'
    line = frame_line(1, "big", data, len(data), 100)
    assert len(line) == 100
    assert line.endswith("MiB")
    assert size_text(2048) == "2.0 KiB"


def test_gap_line() -> None:
    assert "2.5 s silent" in gap_line(2.5, 60)
    assert len(gap_line(2.5, 10)) == 10
