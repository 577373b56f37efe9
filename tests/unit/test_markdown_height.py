"""The line estimate of a Markdown segment, held to the painter that renders it.

Every document of the corpus is rendered by `MarkdownPainter` (app/display/markdown_render.py)
at the widths below and its number of lines compared with `estimate_rows`. The corpus covers
what a model writes: the render benchmark's answer cut into segments as the app cuts it, long
words and URLs, wide characters, nested and numbered and loose lists, quotes, every heading
level, fences (long lines, unclosed while streaming), tables, rules, images, HTML, text that
looks like Rich markup; and Rich's own quirks (a blank line before a first list, quote or table,
which the painter's `tidy` removes; an image printed before its paragraph; lines that only
white space or inline code's background makes). Every case is held to exact equality at every
width: no tolerance was needed. Width 10 puts deep nesting into columns one or two cells wide.
(Random documents, 6,000 at painter widths 2 to 78 and 2,000 at 1 to 12, found the estimate
off only at a painter width of 1, by a line, where an image is followed by text.)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pytest
from markdown_it.token import Token
from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from app.display.markdown_height import (
    BLANK,
    INK,
    NONE,
    Lines,
    estimate_rows,
    rich_parser,
    text_lines,
)
from app.display.markdown_render import MarkdownLook, MarkdownPainter
from app.display.segments import SegmentCutter

WIDTHS = (156, 78, 38, 10)


@pytest.fixture(scope="module")
def painter() -> MarkdownPainter:
    return MarkdownPainter(MarkdownLook.from_colors({}, dark=True))


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
    # -- beyond what the old widget-based test needed: Rich's own quirks
    "images": (
        "![alt text](http://x/y.png) after\n\ntext ![](http://x/dir/pic.png/) more "
        * 3
        + "\n\n- ![i](a.png) item\n\n# ![h](h.png) head\n\n| a | ![c](c.png) |\n|---|---|\n"
        "| 1 | 2 |\n"
    ),
    "image first then list": "![a](b)\n- x\n",
    "image only": "![](http://h/p/q/)\n",
    "html blocks": "para\n\n<div>\nx\n</div>\n\n<!-- c -->\n\nafter\n\n- <p>\n  item html\n",
    "kbd": "press <kbd>Ctrl</kbd>+<kbd>C</kbd> now " * 10 + "\n",
    "links": (
        "[text](http://example.com/long/path) and [more text here](<a b>) " * 6
        + "\n\n<http://auto.link/x?y=1>\n\n[`code` in a link](u)\n"
    ),
    "tabs": "a\tb\tc 漢\td\n\n```\n\tx\ty\n```\n\n| a\tb | c |\n|---|---|\n| d\te | f |\n",
    "list first": "- a\n- b\n\ntext\n",
    "quote only": "> q\n",
    "hr last": "text\n\n---\n",
    "hr then hr": "---\n---\n***\n",
    "hr then table": "---\n\n| t |\n|---|\n| u |\n",
    "hr in item end": "- a\n\n  ---\n- b\n\n---\n\n| t |\n|---|\n| u |\n",
    "code in quote in list": (
        "1. > ```\n   > code line that is quite long indeed and goes on and on and on\n   > ```\n"
    ),
    "big numbers": "".join(f"{n}. x\n" for n in range(95, 105)),
    "table align": "| l | c | r |\n|:--|:-:|--:|\n| " + LOREM + " | mid | " + LOREM[:40] + " |\n",
    "table empty cells": "| | |\n|-|-|\n| | x |\n",
    "table blank middle row": "| a | b |\n|---|---|\n| | |\n| x | y |\n\ntext\n",
    "table nbsp": "| &nbsp; | |\n|---|---|\n| x | &nbsp; |\n",
    "table code space": "| ` ` | `  ` |\n|--:|:--|\n| ` ` | |\n",
    "nbsp paragraphs": ("a\n\n&nbsp;\n\nb\n\n" + "&nbsp;" * 18 + "x\n"),
    "hard breaks to blank lines": "\\\nfirst line after a break\n\npara\\\n\\\nend\n",
    "long words then spaces": ("x" * 30 + " " * 10 + "y" * 30 + " ") * 3 + "\n",
    "words a multiple of the width": ("z" * 36 + " " + "w" * 50 + " ") * 2 + "\n",
    "inline code spaces": "` ` and `  x  `\n\n` `\n\n`\t`\n",
    "empty code": "```\n```\n\n```\n\n\n```\n",
    "bracket markup": "[bold]x[/] [link=https://a]b[/link] :smile: \\[x]\n",
}


def cases() -> dict[str, str]:
    found = dict(CORPUS)
    for index, segment in enumerate(bench_segments(4)):
        found[f"bench segment {index}"] = segment
    found["bench answer whole"] = "".join(section(n) for n in range(3))
    return found


# -- the estimate against the painter ------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_the_estimate_is_the_number_of_lines_the_painter_renders(
    painter: MarkdownPainter, width: int
) -> None:
    corpus = cases()
    wrong = []
    rendered = 0
    for name, source in corpus.items():
        lines = len(painter.lines(source, width))
        rendered += lines
        estimate = estimate_rows(source, width)
        if estimate != lines:
            wrong.append(f"width {width}, {name}: painter {lines}, estimate {estimate}")
    assert rendered > len(corpus)  # measured something
    assert not wrong, "\n".join(wrong)


def test_a_light_look_breaks_lines_as_the_dark_one(painter: MarkdownPainter) -> None:
    """The estimate has no look: the looks differ in colours and code theme only."""
    light = MarkdownPainter(MarkdownLook.from_colors({}, dark=False))
    assert light.look.code_theme != painter.look.code_theme
    for name, source in cases().items():
        assert len(light.lines(source, 38)) == estimate_rows(source, 38), name


def test_the_corpus_has_every_element_rich_renders() -> None:
    """Every element of rich.markdown, and the inline tokens it treats apart, occur."""
    seen: set[str] = set()
    for source in cases().values():
        seen.update(token.type for token in flat_tokens(rich_parser().parse(source)))
    wanted = set(Markdown.elements) | {
        "softbreak",
        "hardbreak",
        "link_open",
        "html_inline",
        "html_block",
        "code_inline",
        "s_open",
        "em_open",
        "strong_open",
    }
    assert wanted <= seen, wanted - seen


def flat_tokens(tokens: list[Token]) -> list[Token]:
    return [found for token in tokens for found in (token, *flat_tokens(token.children or []))]


@pytest.mark.parametrize("width", [78, 156])
def test_the_estimate_costs_a_small_fraction_of_rendering(
    painter: MarkdownPainter, width: int
) -> None:
    """On the benchmark's answer cut into segments: measured at about 1/18 (most of it
    markdown-it's parse, which the painter also pays); held to 1/5."""
    segments = bench_segments(20)
    rendering = fastest(lambda: [painter.lines(segment, width) for segment in segments])
    estimating = fastest(lambda: [estimate_rows(segment, width) for segment in segments])
    assert estimating < rendering / 5, (estimating, rendering)


def fastest(work: Callable[[], object], repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


# -- the pieces ----------------------------------------------------------------------------------


def tidied(blanks: list[bool]) -> int:
    """The painter's `tidy`, counting: runs of blank lines are one, none at the ends."""
    kept: list[bool] = []
    for blank in blanks:
        if not (blank and (not kept or kept[-1])):
            kept.append(blank)
    while kept and kept[-1]:
        kept.pop()
    return len(kept)


def summed(blanks: list[bool]) -> Lines:
    lines = NONE
    for blank in blanks:
        lines = lines.then(BLANK if blank else INK)
    return lines


def test_lines_sum_up_what_tidy_keeps_in_any_order_of_joining() -> None:
    generator = random.Random(7)
    for _ in range(2000):
        blanks = [generator.random() < 0.5 for _ in range(generator.randint(0, 9))]
        cut = generator.randint(0, len(blanks))
        joined = summed(blanks[:cut]).then(summed(blanks[cut:]))
        assert joined == summed(blanks)
        assert joined.rows == len(blanks)
        assert joined.shown == tidied(blanks), blanks
        marked = [False, *blanks[1:]] if blanks else []
        assert summed(blanks).marked() == summed(marked), blanks


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
    "tab\tstops\tafter 漢字\tand more",
    "xxxxxxx" + " " * 9 + "y",
    URL,
)


@pytest.mark.parametrize("width", [1, 2, 3, 7, 10, 39])
@pytest.mark.parametrize("overflow", ["fold", "ellipsis"])
def test_text_lines_are_the_lines_rich_wraps_text_into(width: int, overflow: str) -> None:
    console = Console(width=80, force_terminal=True)
    for sample in WRAP_SAMPLES:
        text = Text(sample, justify="left", overflow="fold" if overflow == "fold" else "ellipsis")
        lines = console.render_lines(text, console.options.update(width=width), pad=False)
        blanks = ["".join(segment.text for segment in line).strip() == "" for line in lines]
        estimate = text_lines(sample, None, width, fold=overflow == "fold")
        assert estimate == summed(blanks), (sample, width)
