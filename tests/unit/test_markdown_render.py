"""Markdown rendered with Rich for the answer view (app/display/markdown_render.py)."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style

from app.display.markdown_render import MarkdownLook, MarkdownPainter, plain, tidy

LOOK = MarkdownLook.from_colors(
    {"primary": "#112233", "secondary": "#445566", "foreground": "#eeeeee"}, dark=True
)


def render(source: str, width: int = 40) -> str:
    return plain(MarkdownPainter(LOOK).lines(source, width))


def test_markup_and_emoji_codes_stay_literal() -> None:
    text = render("say [bold red]x[/] and [/] and [link=https://e.x]y[/link] :smile:")
    assert "[bold red]x[/]" in text
    assert "[link=https://e.x]y[/link]" in text
    assert ":smile:" in text


def test_links_show_their_address_and_are_not_clickable() -> None:
    lines = MarkdownPainter(LOOK).lines("see [the docs](https://example.com/a)", 60)
    assert "the docs (https://example.com/a)" in plain(lines)
    assert all(s.style is None or not s.style.link for line in lines for s in line)


def test_headings_are_left_aligned_in_the_theme_colour() -> None:
    lines = MarkdownPainter(LOOK).lines("## Title", 40)
    assert plain(lines) == "Title"
    styles = [s.style for s in lines[0] if s.text.strip()]
    assert styles
    assert all(s is not None and s.color is not None for s in styles)
    assert styles[0] is not None
    assert styles[0].color is not None
    assert styles[0].color.triplet is not None
    assert styles[0].color.triplet.hex == "#112233"


def test_ordered_lists_are_numbered_with_a_dot_and_wrap_under_the_text() -> None:
    text = render("1. one\n2. two words that wrap around here\n", width=20)
    assert text.splitlines() == [" 1. one", " 2. two words that", "    wrap around here"]


def test_code_blocks_keep_their_blank_lines_and_are_highlighted() -> None:
    lines = MarkdownPainter(LOOK).lines("```python\nx = 1\n\n\ny = 2\n```\n", 30)
    text = plain(lines)
    assert "x = 1" in text
    assert "y = 2" in text
    between = text.split("x = 1")[1].split("y = 2")[0]
    assert between.count("\n") == 3  # the two blank code lines survive tidying
    colours = {s.style.color for line in lines for s in line if s.style and s.text.strip()}
    assert len(colours) > 1  # keyword, name and number in different colours


def test_one_blank_line_between_blocks_and_none_at_the_ends() -> None:
    text = render("para\n\n> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nafter\n")
    lines = text.splitlines()
    assert lines[0] == "para"
    assert lines[-1] == "after"
    assert "\n\n\n" not in text


def test_tidy_keeps_a_blank_line_on_a_background() -> None:
    shaded = [Segment("   ", Style(bgcolor="#000000"))]
    blank = [Segment("   ")]
    word = [Segment("x")]
    assert tidy([blank, word, blank, blank, shaded, shaded, word, blank]) == [
        word,
        blank,
        shaded,
        shaded,
        word,
    ]


def test_wide_characters_wrap_by_cells() -> None:
    text = render("漢字" * 12, width=10)
    assert all(len(line) <= 5 for line in text.splitlines())  # 5 wide chars = 10 cells


def test_empty_source_has_no_lines() -> None:
    assert MarkdownPainter(LOOK).lines("  \n\n", 20) == []


def test_input_rich_trips_on_is_shown_as_plain_text() -> None:
    text = render("a </kbd> b and \\<kbd>x</kbd>")
    assert "</kbd>" in text
