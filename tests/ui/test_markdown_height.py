"""The height estimate of a Markdown segment, held to real widgets.

Every document of the corpus is mounted as a StreamedMarkdown inside an AnswerView (with and
without `-continued`) at several widths, and its `outer_size.height` compared with
`estimate_rows`. The corpus covers what a model writes: the render benchmark's sections cut
into segments as the app cuts them, long words and URLs, nested lists, quotes, every heading
level, fences (long lines, unclosed while streaming), tables, rules, wide characters, text that
looks like Rich markup. Every block kind is held to exact equality: no tolerance was needed.
Widths include 12, where table columns get narrower than their padding. (Only one `append` is
the contract: Textual's incremental append can leave a streamed widget different from a rebuilt
one, e.g. an hr inside a list item, which no estimate from the source can follow.)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import pytest
from rich.cells import cell_len
from textual._resolve import resolve
from textual.app import App, ComposeResult
from textual.content import Content
from textual.css.scalar import Scalar
from textual.geometry import Size
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownParagraph

from app.display.markdown_height import (
    BULLETS,
    Box,
    default_parser,
    estimate_rows,
    inline_text,
    resolve_columns,
    stack_rows,
    wrapped_rows,
)
from app.display.segments import SegmentCutter
from app.ui.widgets.answer import AnswerView
from app.ui.widgets.markdown_view import StreamedMarkdown

WIDTHS = (158, 80, 40, 12)  # 12: table columns squeezed narrower than their padding


# -- the corpus ----------------------------------------------------------------------------------


def section(n: int) -> str:
    """One section of the render benchmark's answer (bench/bench_render.py), copied."""
    words = " ".join(f"word{(n * 7 + i) % 97}" for i in range(60))
    code = "\n".join(
        f"    total_{i} = compute(value_{i}, factor={i}) + offset  # step {i}" for i in range(14)
    )
    return (
        f"## Section {n}\n\n{words} with **bold**, `inline code` and *emphasis*.\n\n"
        f"- first point about item {n}\n- second point with `code`\n- third point\n"
        f"  - nested detail {n}\n- fourth point\n\n"
        f"```python\ndef step_{n}(value: int) -> int:\n{code}\n    return total_0\n```\n\n"
    )


def bench_segments(sections: int) -> list[str]:
    """The benchmark answer cut where the app cuts it (SegmentCutter, fed in small pieces)."""
    text = "".join(section(n) for n in range(sections)) + "That is all.\n"
    cutter = SegmentCutter.new()
    segments = [""]
    for start in range(0, len(text), 9):
        first, *rest = cutter.feed(text[start : start + 9])
        segments[-1] += first
        segments.extend(rest)
    segments[-1] += cutter.flush()
    return segments


LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt "
    "ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation."
)
URL = "https://example.com/a/very/long/path/that/keeps/going/and/going?query=" + "x" * 90

CORPUS: dict[str, str] = {
    "empty": "",
    "blank lines": "\n\n\n",
    "one word": "hello\n",
    "paragraphs": f"{LOREM}\n\n{LOREM} {LOREM}\n\nshort\n",
    "soft and hard breaks": f"line one\nline two  \nline three\\\nline four {LOREM}\n",
    "long word": f"before {'x' * 170} after\n\n{'y' * 39}\n\n{'z' * 41} tail\n",
    "url": f"See {URL} for details, and <{URL}> too.\n\nwww.example.com/{'p' * 60}\n",
    "inline styles": (
        "Some **bold**, *italic*, ~~struck~~, `inline code`, [a link](https://x.y/z) and "
        "![an image](https://x.y/i.png) with `a much longer piece of inline code that wraps` "
        + LOREM
        + "\n"
    ),
    "rich markup lookalike": "[bold]not bold[/] [red]x[/red] [link=http://a]y[/link] \\[z]\n" * 4,
    "cjk": "中文的段落，没有空格，所以只能按字符折行。" * 6
    + "\n\n日本語の文章と English words mixed 한국어 텍스트도 있습니다 "
    + "全角" * 30
    + "\n",
    "emoji": "Emoji 🎉🎉 family 👨‍👩‍👧‍👦 flags 🇫🇷🇯🇵 thumbs 👍🏽 " * 5 + "\n\n" + "🙂" * 50 + "\n",
    "tabs in code": "a `x\ty` b\n",
    "html": "<div>\nblock html\n</div>\n\ntext with <span>inline</span> html\n",
    "entities": "&copy; &amp; &lt;tag&gt; &#128512; " * 8 + "\n",
    "headings": "# One\n\n## Two\n\n### Three\n\n#### Four\n\n##### Five\n\n###### Six\n\ntext\n",
    "h1 first": "# Title at the top\n\ntext\n",
    "h2 first long": f"## {LOREM}\n\ntext\n",
    "h3 first long": f"### {LOREM}\n\ntext\n",
    "h4 first": f"#### {LOREM}\n\ntext\n",
    "h5 first": "##### Five\n\ntext\n",
    "h6 first": "###### Six\n\ntext\n",
    "empty heading": "#\n\n##\n\n###\n",
    "setext": "Title line one\nline two\n===\n\nSub  \nwith a hard break\n---\n",
    "hr": "above\n\n---\n\nbelow\n\n***\n\n___\n",
    "hr first": "---\n\ntext\n",
    "bullets": "- one\n- two\n- three\n",
    "bullets long": f"- {LOREM}\n- {LOREM} {LOREM}\n",
    "nested bullets": (
        "- level one\n  - level two\n    - level three\n      - level four\n"
        f"        - level five\n          - level six {LOREM}\n- back {LOREM}\n"
    ),
    "ordered": "1. one\n2. two\n3. three\n",
    "ordered to ten": "".join(f"{n}. item {n} {LOREM[: n * 9]}\n" for n in range(1, 12)),
    "ordered start": "07. seven\n08. eight\n\n98. ninety-eight\n99. ninety-nine\n100. hundred\n",
    "mixed lists": (
        f"1. first\n   - sub a {LOREM}\n   - sub b\n2. second\n   1. inner\n   2. inner two\n"
    ),
    "loose list": f"- item one\n\n  second paragraph {LOREM}\n\n- item two\n\n\n- item three\n",
    "list with fence": "- item\n\n  ```\n  code in item\n  ```\n- ```\n  first in item\n  ```\n",
    "list with quote": "- > quoted in item\n- text\n\n  > quote after text\n",
    "list with heading": "- # heading in item\n- ### small\n",
    "empty items": "-\n- \n- x\n-\n",
    "star and plus": "* star\n+ plus\n",
    "quote": f"> {LOREM}\n> {LOREM}\n",
    "quote paragraphs": f"> one\n>\n> {LOREM}\n",
    "nested quotes": f"> outer\n>> inner {LOREM}\n>>> innermost\n",
    "quote first": f"> {LOREM}\n\nafter\n",
    "empty quote": ">\n\ntext\n",
    "quote with list and code": "> - a\n>   - b\n>\n> ```\n> code\n> ```\n> # head\n",
    "fence": "```python\ndef f(x):\n    return x\n```\n\nafter\n",
    "fence long lines": "```\n" + ("very long line " * 20 + "\n") * 3 + "```\n",
    "fence first": "```\ncode\n```\n",
    "fence blank lines": "```\n\n\nx\n\n\n```\n",
    "empty fence": "```\n```\n",
    "unclosed fence": "text\n\n```python\ndef f():\n    pass\n",
    "unclosed fence at start": "```\npartial line",
    "tilde fence": "~~~\ntilde\n~~~\n",
    "indented code": "para\n\n    indented code\n    more\n\nafter\n",
    "indented code first": "    indented code\n\nafter\n",
    "fence in fence text": "````\n```\ninner\n```\n````\n",
    "table": "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n",
    "table first then text": "| h |\n|---|\n| c |\n\ntext\n",
    "table wide": (
        "| name | description | value |\n|---|---|---|\n"
        f"| alpha | {LOREM} | 1 |\n| beta | short | {'9' * 30} |\n"
    ),
    "table long words": f"| {'w' * 50} | b |\n|:--|--:|\n| `{'c' * 60}` | {URL} |\n| x | y |\n",
    "table many columns": "".join(
        "|" + "|".join(cell.format(i) for i in range(12)) + "|\n"
        for cell in (" col{} ", "---", " value {} ")
    ),
    "table ragged": "| a | b | c |\n|---|---|---|\n| 1 |\n| 1 | 2 | 3 | 4 |\n|\n",
    "table header only": "| only | header |\n|---|---|\n",
    "table in list": "- | a | b |\n  |---|---|\n  | 1 | 2 |\n",
    "table wide cjk": "| 名前 | 説明 |\n|---|---|\n| テスト | " + "長い説明文" * 20 + " |\n",
    "table in quote": "> | a | b |\n> |---|---|\n> | 1 | 2 |\n>\n> after\n",
    "table markup lookalike": "| [bold]h[/] | `a \\| b` |\n|---|---|\n| **x** | [red]y[/red] |\n",
    "hr in list": "- one\n\n  ---\n\n  two\n- three\n",
    "heading in quote": "> ## Quoted heading\n>\n> ### Small\n> text\n",
    "list in quote in list": "- item\n  > - quoted list\n  >   - deeper\n- after\n",
    "ordered in unordered": "- a\n  1. one\n     - b\n       - c\n  2. two\n",
    "ordered widths": "8. eight\n9. nine\n10. ten\n\n0. zero\n\n123456789. big\n",
    "deep nesting": "".join("  " * depth + f"- depth {depth} {LOREM[:60]}\n" for depth in range(9)),
    "deep quotes": "".join(
        ">" * depth + f" depth {depth} {LOREM[:50]}\n\n" for depth in range(1, 9)
    ),
    "exact fits": "".join(
        f"{'a' * n}\n\n{'b' * (n - 5)} {'c' * 4}\n\n" for n in (37, 38, 39, 77, 78, 79)
    ),
    "wide straddling": "a" + "漢字" * 60 + "\n\nab " + "漢" * 77 + "\n\n" + "☀️ ✈️ ❤️ " * 30 + "\n",
    "heading markup": "# **Bold** `code` [link](x) title\n\n## Trailing hashes ##\n",
    "everything": (
        f"# Title\n\n{LOREM}\n\n> quote\n\n1. a\n2. b\n\n---\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n"
        "```\ncode\n```\n\n### End\n"
    ),
}


# Segments after an answer's first carry `-continued`, which trims the top margin of a first
# heading, fence or quote; these documents are measured both ways (the rest only without it).
CONTINUED = (
    "empty",
    "paragraphs",
    "headings",
    "h1 first",
    "h2 first long",
    "h3 first long",
    "h4 first",
    "h5 first",
    "h6 first",
    "empty heading",
    "setext",
    "heading markup",
    "hr first",
    "bullets",
    "ordered start",
    "quote first",
    "nested quotes",
    "empty quote",
    "fence first",
    "empty fence",
    "unclosed fence at start",
    "tilde fence",
    "indented code first",
    "table first then text",
)


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    source: str
    continued: bool


def cases() -> list[Case]:
    found = [Case(name, text, False) for name, text in CORPUS.items()]
    found += [Case(f"{name} (continued)", CORPUS[name], True) for name in CONTINUED]
    for index, segment in enumerate(bench_segments(4)):
        found.append(Case(f"bench segment {index}", segment, index > 0))
    found.append(Case("bench answer whole", "".join(section(n) for n in range(3)), False))
    return found


# -- measuring real widgets ----------------------------------------------------------------------


class Measure(App[None]):
    """Every case as a StreamedMarkdown in one AnswerView, given its source in one append (as
    AnswerView wakes a sleeping segment)."""

    CSS = "Screen { overflow: hidden hidden; }"  # no scrollbar: the answer gets the full width

    def __init__(self, corpus: list[Case]) -> None:
        super().__init__()
        self.corpus = corpus
        self.widgets: list[StreamedMarkdown] = []

    def compose(self) -> ComposeResult:
        yield AnswerView()

    async def on_mount(self) -> None:
        view = self.query_one(AnswerView)
        for case in self.corpus:
            widget = StreamedMarkdown(classes="-continued" if case.continued else None)
            self.widgets.append(widget)
            await view.mount(widget)
            await widget.append(case.source)


def mismatches(corpus: list[Case], heights: list[int], width: int) -> list[str]:
    return [
        f"width {width}, {case.name}: widgets {height}, estimate {estimate}"
        for case, height in zip(corpus, heights, strict=True)
        if (estimate := estimate_rows(case.source, width, continued=case.continued)) != height
    ]


async def test_the_estimate_is_exact_and_costs_a_small_fraction_of_building_widgets() -> None:
    """Built at the first width, then re-laid out at the others by resizing the terminal (the
    same heights as building afresh at each width, checked while writing this; a build per
    width would cost a second more each). Building is timed up to the first layout."""
    corpus = cases()
    app = Measure(corpus)
    started = time.perf_counter()
    wrong: list[str] = []
    async with app.run_test(size=(WIDTHS[0], 40)) as pilot:
        await pilot.pause()
        building = time.perf_counter() - started
        for width in WIDTHS:
            await pilot.resize_terminal(width, 40)
            await pilot.pause()
            assert app.query_one(AnswerView).size.width == width
            heights = [widget.outer_size.height for widget in app.widgets]
            assert sum(heights) > len(corpus)  # measured something
            wrong += mismatches(corpus, heights, width)
    assert not wrong, "\n".join(wrong)

    estimating = min(timed(lambda: estimate_all(corpus, WIDTHS[0])) for _ in range(3))
    assert estimating < building / 10, (estimating, building)


def estimate_all(corpus: list[Case], width: int) -> None:
    for case in corpus:
        estimate_rows(case.source, width, continued=case.continued)


def timed(work: Callable[[], None]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


# -- the pure helpers ----------------------------------------------------------------------------

WRAP_SAMPLES = (
    "",
    "word",
    "two words",
    LOREM,
    "x" * 50,
    f"short {'y' * 45} short again",
    "   leading and trailing spaces   ",
    "a\nb\n\nc",
    "中文的段落没有空格" * 5,
    "a" + "漢字" * 20,
    "👨‍👩‍👧‍👦 🇫🇷 👍🏽 ☀️ " * 6,
    URL,
)


@pytest.mark.parametrize("width", [1, 2, 3, 7, 10, 39])
@pytest.mark.parametrize("overflow", ["fold", "ellipsis"])
def test_wrapped_rows_counts_the_lines_textual_wraps_content_into(
    width: int, overflow: Literal["fold", "ellipsis"]
) -> None:
    for text in WRAP_SAMPLES:
        expected = len(Content(text).wrap(width, overflow=overflow))
        assert wrapped_rows(text, width, fold=overflow == "fold") == expected, (text, width)


def test_a_zero_width_has_no_rows_and_a_negative_one_a_row_per_word() -> None:
    assert wrapped_rows(LOREM, 0) == 0
    assert wrapped_rows("one two three", -2, fold=False) == 3
    assert estimate_rows("text\n", 2, continued=False) == 0


def test_inline_text_is_what_textual_shows_for_the_inline_token() -> None:
    source = (
        "a  *b*\\\nc `d\te` ![x *y*](y.png) **z** ~~s~~ https://x.y &amp; [l](u) <b>h</b>\nsoft"
    )
    tokens = default_parser().parse(source)
    block = MarkdownParagraph(Markdown(), tokens[0])
    assert inline_text(tokens[1]) == block._token_to_content(tokens[1]).plain
    assert inline_text(tokens[1]).startswith("a b\nc d\te 🖼  x y z s")


def test_stacked_margins_collapse_between_siblings_and_stay_at_the_ends() -> None:
    assert stack_rows([]) == 0
    assert stack_rows([Box(3)]) == 3
    assert stack_rows([Box(1, 0, 1), Box(3, 2, 1), Box(2, 1, 0)]) == 0 + 1 + 2 + 3 + 1 + 2 + 0
    assert stack_rows([Box(0, 1, 1)]) == 2


def test_table_columns_stretch_in_proportion_and_shrink_first_columns_first() -> None:
    assert resolve_columns([4, 6], [3, 3], 21, 1) == [8, 12]  # 20 cells shared 2:3
    assert resolve_columns([30, 10], [8, 5], 21, 1) == [10, 10]  # the first gives up 20
    # both down to their minimums (25 + 5), then the 10 still over taken in proportion
    assert resolve_columns([30, 10], [25, 5], 21, 1) == [16, 4]


@pytest.mark.parametrize("total", [8, 21, 40, 77])
def test_table_columns_are_the_ones_textuals_grid_resolves(total: int) -> None:
    samples = ([4, 6], [30, 10, 3], [12, 40, 9, 9], [3] * 12, [7, 90, 2])
    for wanted in samples:
        minimum = [max(1, value // 3) for value in wanted]
        scalars = [Scalar.from_number(value) for value in wanted]
        size = Size(total, 0)
        expected = resolve(
            scalars, total, 1, size, size, expand=True, shrink=True, minimums=minimum
        )
        assert resolve_columns(wanted, minimum, total, 1) == [width for _, width in expected]


def test_bullets_are_textuals() -> None:
    assert tuple(Markdown.BULLETS) == BULLETS
    assert [cell_len(bullet) for bullet in BULLETS] == [2] * len(BULLETS)
