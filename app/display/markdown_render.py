"""Markdown to terminal lines, with Rich, in the app's colours.

Why not Textual's own Markdown widget: it builds a widget per block (a list item alone is four),
rebuilds the last block on every append, and every layout walks all of them. Streaming a long
answer then spent most of its CPU on widgets, not text (bench/README.md). Rendering a segment of
the answer with Rich's Markdown into plain lines costs a few milliseconds and leaves one widget
per segment for Textual to lay out.

Model output is untrusted: Rich's Markdown builds `Text` objects from the parsed source and never
reads it as console markup or emoji codes, and links are not made clickable. Control characters
are removed before the text gets here (app/display/sanitize.py).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.console import Console
from rich.errors import StyleSyntaxError
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from rich.theme import Theme

from app.display.markdown_height import NO_JOINS, Joins

if TYPE_CHECKING:
    from app.display.code_lexing import LexMemory, ResumedLex
    from app.display.rich_markdown import CodeRows


@dataclass(frozen=True, slots=True)
class CodeRow:
    """A painted row that is a line of a code block: the block's number in the source, the
    column where the code starts (after a list's or a quote's indent), the width it was given
    there, and the line at the code's own width, uncropped, to scroll across."""

    block: int
    x: int
    width: int
    full: tuple[Segment, ...]

    @property
    def overflow(self) -> int:
        """How many columns of the line lie beyond the width it is shown in."""
        return max(0, Segment.get_line_length(list(self.full)) - self.width)


@dataclass
class Painted:
    """Lines as painted at a width (code cropped to it), and which of them are code rows."""

    lines: list[list[Segment]]
    code: dict[int, CodeRow] = field(default_factory=dict)
    blocks: int = 0  # code blocks drawn (each numbered in `code`, from 0)
    # Drawn with inline marks closed that the source leaves open (a streaming answer's end,
    # app/display/open_marks.py): not how the same source is drawn once it has settled.
    closed: bool = False
    # Code blocks lexed from a line near their end (app/display/code_lexing.py): drawn as the
    # settled source is only if lexing each whole gives the same tokens.
    resumed: tuple[ResumedLex, ...] = ()

    @property
    def interim(self) -> bool:
        """Drawn as only a streaming answer's end is, not as the same source once it has
        settled: a mark closed for it, or a code block whose resumed lex was not exact
        (checked here, once per block: one lex of the block, not a render of the segment)."""
        return self.closed or not all(lexed.exact() for lexed in self.resumed)


def _markdown_styles(colors: Mapping[str, str], dark: bool) -> dict[str, str]:
    """Rich's `markdown.*` style names mapped to the theme's colours."""
    primary = colors.get("primary", "blue")
    accent = colors.get("accent", primary)
    secondary = colors.get("secondary", primary)
    muted = colors.get("text-muted", "grey50")
    code_bg = colors.get("surface", "black" if dark else "white")
    code_fg = colors.get("text-accent", accent)
    return {
        "markdown.paragraph": "none",
        "markdown.text": "none",
        "markdown.em": "italic",
        "markdown.emph": "italic",
        "markdown.strong": "bold",
        "markdown.s": "strike",
        "markdown.code": f"{code_fg} on {code_bg}",
        "markdown.code_block": f"on {code_bg}",
        "markdown.block_quote": f"italic {muted}",
        "markdown.list": "none",
        "markdown.item": "none",
        "markdown.item.bullet": f"bold {secondary}",
        "markdown.item.number": f"{secondary}",
        "markdown.hr": muted,
        "markdown.h1": f"bold underline {primary}",
        "markdown.h1.border": primary,
        "markdown.h2": f"bold {primary}",
        "markdown.h3": f"bold {secondary}",
        "markdown.h4": f"bold italic {secondary}",
        "markdown.h5": "italic",
        "markdown.h6": f"italic {muted}",
        "markdown.h7": f"italic {muted}",
        "markdown.link": f"underline {accent}",
        "markdown.link_url": f"{muted}",
        "markdown.table.border": muted,
        "markdown.table.header": f"bold {primary}",
        "markdown.kbd": "bold",
    }


@dataclass(frozen=True)
class MarkdownLook:
    """What the rendering needs from the theme: the `markdown.*` styles and a code theme."""

    styles: tuple[tuple[str, str], ...]  # a tuple, so that a look can key a cache
    code_theme: str

    @classmethod
    def from_colors(cls, colors: Mapping[str, str], *, dark: bool) -> MarkdownLook:
        """`colors`: the theme's colours by CSS variable name, as Rich colour names."""
        styles = tuple(sorted(_markdown_styles(colors, dark).items()))
        return cls(styles, "monokai" if dark else "friendly")


@dataclass
class MarkdownPainter:
    """Renders Markdown source to lines of segments at a width, in one look."""

    look: MarkdownLook
    _console: Console = field(init=False, repr=False)
    _code_rows: CodeRows | None = field(default=None, init=False, repr=False)  # drawn code lines
    _code_lexes: LexMemory | None = field(default=None, init=False, repr=False)  # code lexed

    def __post_init__(self) -> None:
        self._console = Console(
            file=io.StringIO(),  # never written to; keeps the terminal's encoding out of it
            theme=Theme(usable_styles(self.look.styles), inherit=True),
            color_system="truecolor",
            force_terminal=True,
            markup=False,
            emoji=False,
            highlight=False,
            width=80,
        )

    def lines(self, source: str, width: int, joins: Joins = NO_JOINS) -> list[list[Segment]]:
        """The source's lines at `width` cells (each line at most that wide); `joins`: how the
        tables and lists it shares with the segments around it are drawn."""
        return self.paint(source, width, joins).lines

    def paint(
        self, source: str, width: int, joins: Joins = NO_JOINS, *, live: bool = False
    ) -> Painted:
        """`lines`, with the code rows among them and their lines at full width. `live`: the
        end of a streaming answer, drawn again as it grows, whose open code block may be lexed
        from near its end (`Painted.resumed`)."""
        if not source.strip():
            return Painted([])
        # Rich's Markdown (with markdown-it and Pygments) loads with the first answer, not at
        # start-up: the app's first frame draws none.
        from app.display.rich_markdown import AnswerMarkdown

        options = self._console.options.update(width=max(1, width))
        try:
            if self._code_rows is None:
                from app.display.code_lexing import LexMemory
                from app.display.rich_markdown import CodeRows

                self._code_rows = CodeRows()
                self._code_lexes = LexMemory()
            markdown = AnswerMarkdown(
                source,
                joins=joins,
                code_theme=self.look.code_theme,
                code_rows=self._code_rows,
                code_lexes=self._code_lexes if live else None,
            )
            lines = self._console.render_lines(markdown, options, pad=False, new_lines=False)
        except Exception:  # Rich trips on some input (a stray `</kbd>`): show it as plain text
            lines = self._console.render_lines(Text(source), options, pad=False, new_lines=False)
            return Painted(tidy(lines))
        painted = _code_rows(tidy(lines), markdown.code_lines, markdown.code_blocks)
        painted.resumed = tuple(markdown.resumed)
        return painted


def _code_rows(
    lines: list[list[Segment]], code: list[tuple[int, int, tuple[Segment, ...]]], blocks: int
) -> Painted:
    """The code rows among painted lines, found by their tag, which is then taken off."""
    from app.display.rich_markdown import CODE_TAG

    painted = Painted(lines, blocks=blocks)
    if not code:
        return painted
    for y, line in enumerate(lines):
        x = 0
        found: int | None = None
        kept: list[Segment] = []
        for segment in line:
            style = segment.style
            meta = None if style is None or not style._meta else style.meta
            if meta and CODE_TAG in meta:
                if found is None:
                    found = int(meta[CODE_TAG])
                    block, width, full = code[found]
                    painted.code[y] = CodeRow(block, x, width, full)
                segment = Segment(segment.text, style.clear_meta_and_links() if style else None)
            elif found is None:
                x += segment.cell_length
            kept.append(segment)
        if found is not None:
            lines[y] = kept
    return painted


def _blank(line: list[Segment]) -> bool:
    """Nothing to see: only spaces, none of them on a background (a code block's are)."""
    return all(
        not segment.text.strip() and (segment.style is None or segment.style.bgcolor is None)
        for segment in line
    )


def tidy(lines: list[list[Segment]]) -> list[list[Segment]]:
    """One blank line between blocks, none at the ends. Rich separates blocks by one blank line
    but leaves two after a quote or a table and one at the end of some blocks; with exactly one
    everywhere, an answer cut into segments (each with a blank line above it) looks the same as
    the answer rendered whole."""
    kept: list[list[Segment]] = []
    previous_blank = True
    for line in lines:
        blank = _blank(line)
        if not (blank and previous_blank):
            kept.append(line)
        previous_blank = blank
    while kept and _blank(kept[-1]):
        kept.pop()
    return kept


def usable_styles(styles: tuple[tuple[str, str], ...]) -> dict[str, Style]:
    """The styles Rich can parse; one it cannot (a colour name from an unusual theme) is left
    to Rich's default rather than stopping the answer from showing."""
    usable: dict[str, Style] = {}
    for name, definition in styles:
        try:
            usable[name] = Style.parse(definition)
        except StyleSyntaxError:
            continue
    return usable


def plain(lines: list[list[Segment]]) -> str:
    """The text of rendered lines, for tests and for copying what is shown."""
    return "\n".join("".join(segment.text for segment in line).rstrip() for line in lines)


__all__ = [
    "CodeRow",
    "MarkdownLook",
    "MarkdownPainter",
    "Painted",
    "plain",
    "tidy",
    "usable_styles",
]
