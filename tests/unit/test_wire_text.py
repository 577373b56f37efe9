"""What the inspector writes for frames and raw bytes (app/display/wire_text.py): exact, escaped,
cut to the width, and cheap for a huge frame."""

from __future__ import annotations

from app.display.wire_text import (
    compact,
    escaped_bytes,
    frame_label,
    frame_line,
    gap_line,
    pretty,
    size_text,
    visible,
)
from app.wire.events import (
    Finish,
    Keepalive,
    ReasoningDelta,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    Usage,
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
    for width in (4, 12, 20, 30, 44):  # narrow: the name, the label, the time give way
        narrow = frame_line(5, "response.output_text.delta", 'text "abc"', 2, width)
        assert len(narrow) == width
        assert narrow.endswith("2 B"[-width:])  # never the size
    named = frame_line(5, "response.output_text.delta", 'text "abc"', 2, 60, 16)
    assert "…tput_text.delta  " in named  # a long name keeps its end, which tells it apart


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


def test_a_frame_label_says_what_was_decoded() -> None:
    tools = {0: "lookup"}
    assert frame_label([TextDelta("amet, ")], "{}", tools) == 'text "amet, "'
    assert frame_label([ReasoningDelta('say "hi"\n')], "{}", tools) == 'reasoning "say \\"hi\\"\\n"'
    assert frame_label([ToolCallArgsDelta(0, '{"a":')], "{}", tools) == "tool lookup args +5 B"
    assert frame_label([ToolCallArgsDelta(3, "é")], "{}", tools) == "tool #3 args +2 B"
    both = frame_label([Usage(12, 105), Finish("stop")], "{}", tools)
    assert both == "usage 12/105 · finish stop"
    assert frame_label([Keepalive()], " ping", tools) == "keepalive"
    assert frame_label([StreamError("overloaded", "busy\x1b[2J")], "", tools) == (
        "error overloaded: busy\\x1b[2J"
    )
    assert frame_label([], '{"id": "chatcmpl-1"}', tools) == '{"id":"chatcmpl-1"}'  # nothing
    huge = frame_label([TextDelta("z" * 10_000_000)], "", tools, 50)
    assert len(huge) < 80
    assert huge.endswith('…"')


def test_gap_line() -> None:
    assert "2.5 s silent" in gap_line(2.5, 60)
    assert len(gap_line(2.5, 10)) == 10
