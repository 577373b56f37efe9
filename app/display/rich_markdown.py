"""Rich's Markdown elements as the answer view draws them: headings at the left, numbered
items numbered on across segments, tables and lists drawn at the widths of the whole they were
cut from, code blocks cropped (not wrapped) and tagged for scrolling across.

Apart from app/display/markdown_render.py so that rich.markdown, markdown-it and Pygments are
loaded with the first answer painted, not on the app's start-up path.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from functools import cache, lru_cache
from typing import ClassVar

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import (
    CodeBlock,
    Heading,
    ListElement,
    ListItem,
    Markdown,
    MarkdownElement,
    TableElement,
)
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from app.display.code_lexing import LexMemory, ResumedLex
from app.display.markdown_height import (
    CODE_PAD,
    CODE_TAB_SIZE,
    NO_JOINS,
    Joins,
    table_pads,
    top_level_counts,
)

CODE_TAG = "triptych.code"  # the style meta that marks a painted row as a code block's line


class LeftHeading(Heading):
    """A heading as a line of its own colour, left-aligned (Rich centres them, and boxes h1)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text
        text.justify = "left"
        yield text


class NumberedItem(ListItem):
    """A list item numbered "1." (Rich writes a bare "1", easy to misread as part of the text)."""

    def render_number(
        self, console: Console, options: ConsoleOptions, number: int, last_number: int
    ) -> RenderResult:
        width = len(str(last_number)) + 3
        lines = console.render_lines(
            self.elements, options.update(width=options.max_width - width), style=self.style
        )
        style = console.get_style("markdown.item.number", default="none")
        numeral = Segment(f"{number}.".rjust(width - 1) + " ", style)
        padding = Segment(" " * width, style)
        for index, line in enumerate(lines):
            yield padding if index else numeral
            yield from line
            yield Segment("\n")


class JoinedTable(TableElement):
    """A table that may be a piece of one cut into segments (`Joins`): drawn at the whole
    table's column widths, and without its header row when it continues one, so that the
    pieces line up as the whole table would."""

    widths: tuple[int, ...] | None = None
    headless = False

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> JoinedTable:
        element = cls()
        if isinstance(markdown, AnswerMarkdown) and token.level == 0:
            element.widths, element.headless = markdown.next_table()
        return element

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        header = self.header.row.cells if self.header is not None and self.header.row else []
        widths = self.widths
        if not self.headless and not (widths and len(widths) == len(header)):
            yield from super().__rich_console__(console, options)
            return
        table = Table(
            box=box.SIMPLE,
            pad_edge=False,
            style="markdown.table.border",
            show_edge=True,
            collapse_padding=True,
            show_header=not self.headless,
        )
        fixed = widths if widths and len(widths) == len(header) else None
        pads = table_pads(len(header))
        for index, column in enumerate(header):
            heading = column.content.copy()
            heading.stylize("markdown.table.header")
            width = None if fixed is None else fixed[index] - pads[index]
            table.add_column(heading, width=width)
        if self.body is not None:
            for row in self.body.rows:
                table.add_row(*[element.content for element in row.cells])
        yield table


class JoinedList(ListElement):
    """A list that may be a piece of an ordered one cut into segments (`Joins`): numbered on
    from the piece before, its numbers as wide as the whole list's."""

    last: int | None = None

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> JoinedList:
        element = cls(token.type, int(token.attrs.get("start", 1)))
        if isinstance(markdown, AnswerMarkdown) and token.level == 0:
            first, element.last = markdown.next_list()
            if first is not None:
                element.list_start = first
        return element

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.list_type == "bullet_list_open" or self.last is None:
            yield from super().__rich_console__(console, options)
            return
        number = 1 if self.list_start is None else self.list_start
        for index, item in enumerate(self.items):
            yield from item.render_number(console, options, number + index, self.last)


SYNTAX_TAB_SIZE = 4  # Syntax's own default, which its lexers are built with


@lru_cache(maxsize=64)  # keyed by the fence's info word: the model's text, so bounded
def code_lexer(name: str) -> Lexer:
    """The lexer `Syntax` would build for `name` (or for plain text, when there is none), built
    once: `Syntax` asks Pygments for a new one at each highlight, 12% of highlighting the open
    code block, which is highlighted again on every frame. A Pygments lexer keeps no state
    between the texts it lexes, so one serves every block of its language."""
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=SYNTAX_TAB_SIZE)
    except ClassNotFound:
        return get_lexer_by_name("text", stripnl=False, ensurenl=True, tabsize=SYNTAX_TAB_SIZE)


class ScrollingCode(CodeBlock):
    """A code block that never wraps: its lines are drawn at the code's own width (at least the
    width it is given) and cropped to the width, each tagged (`CODE_TAG`) with its line at full
    width, so that the widget can scroll across them (app/ui/widgets/markdown_view.py) rather
    than break a statement in two. Its height is its line count, whatever the width."""

    markdown: AnswerMarkdown | None = None

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> ScrollingCode:
        element = cls((token.info or "").partition(" ")[0] or "text", markdown.code_theme)
        if isinstance(markdown, AnswerMarkdown):
            element.markdown = markdown
        return element

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        lexer = code_lexer(self.lexer_name)
        lexes = None if self.markdown is None else self.markdown.code_lexes
        resuming = None if lexes is None else lexes.lexer(lexer)
        syntax = Syntax(
            code, resuming or lexer, theme=self.theme, word_wrap=False, padding=CODE_PAD
        )
        width = options.max_width
        natural = max(cell_len(line) for line in code.expandtabs(CODE_TAB_SIZE).split("\n"))
        drawn = options.update(width=max(width, natural + 2 * CODE_PAD))
        rows = None if self.markdown is None else self.markdown.code_rows
        if rows is None:
            full = console.render_lines(syntax, drawn, new_lines=False)
        else:
            full = rows.lines(console, syntax, self.theme, drawn)
        store = None if self.markdown is None else self.markdown.code_lines
        block = 0 if self.markdown is None else self.markdown.next_code()
        for line in full:
            shown = Segment.adjust_line_length(line, width)
            if store is not None:
                key = len(store)
                store.append((block, width, tuple(line)))
                shown = list(Segment.apply_style(shown, post_style=Style(meta={CODE_TAG: key})))
            yield from shown
            yield Segment.line()
        if resuming is not None and resuming.resumed is not None and self.markdown is not None:
            self.markdown.resumed.append(resuming.resumed)


class _HighlightedLine(Syntax):
    """One line of a code block as `Syntax` draws the block's lines (padded across, on the
    theme's background), highlighted as part of the whole block (`line`), not on its own."""

    def __init__(self, line: Text, theme: str) -> None:
        super().__init__(line.plain, "text", theme=theme, word_wrap=False, padding=(0, CODE_PAD))
        self._line = line

    def highlight(self, code: str, line_range: tuple[int | None, int | None] | None = None) -> Text:
        return self._line.copy()


class CodeRows:
    """Drawn code lines kept by what they show, so that a block drawn again (the open block
    of a streaming answer, on every frame) is highlighted again but draws only its new and
    changed lines: the lines above are the same text with the same highlighting at the same
    width. Highlighting stays whole-block (a line's colours may depend on the lines above
    it, as in a string that spans them); drawing a highlighted line depends only on it.
    Bounded (`SIZE` lines, the least recently drawn out first)."""

    SIZE = 1024

    def __init__(self) -> None:
        self._rows: OrderedDict[Hashable, list[Segment]] = OrderedDict()

    def lines(
        self, console: Console, syntax: Syntax, theme: str, options: ConsoleOptions
    ) -> list[list[Segment]]:
        """What `console.render_lines(syntax, options, new_lines=False)` draws, for a code
        block's `syntax` (its code with no trailing white space, `CODE_PAD` all round)."""
        text = syntax.highlight((syntax.code + "\n").expandtabs(CODE_TAB_SIZE))
        text.remove_suffix("\n")
        width = options.max_width
        pad = self._row(console, ("pad", width, text.style), options, theme, None)
        drawn = [pad]
        for line in text.split("\n", allow_blank=True):
            key = (width, line.style, line.plain, tuple(line.spans))
            drawn.append(self._row(console, key, options, theme, line))
        drawn.append(pad)
        if any(row is None for row in drawn):  # too narrow for a line of code: drawn whole
            return console.render_lines(syntax, options, new_lines=False)
        return [list(row) for row in drawn if row is not None]

    def _row(
        self,
        console: Console,
        key: Hashable,
        options: ConsoleOptions,
        theme: str,
        line: Text | None,
    ) -> list[Segment] | None:
        row = self._rows.get(key)
        if row is not None:
            self._rows.move_to_end(key)
            return row
        if line is None:  # the padding row above and below the code
            drawn: Syntax = Syntax("", "text", theme=theme, padding=CODE_PAD)
            rows = console.render_lines(drawn, options, new_lines=False)[:1]
        else:
            drawn = _HighlightedLine(line, theme)
            rows = console.render_lines(drawn, options, new_lines=False)
        if len(rows) != 1:
            return None
        row = self._rows[key] = rows[0]
        if len(self._rows) > self.SIZE:
            self._rows.popitem(last=False)
        return row


@cache
def _parser() -> MarkdownIt:
    """The parser Rich's Markdown builds for itself, built once."""
    return MarkdownIt().enable("strikethrough").enable("table")


class AnswerMarkdown(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": LeftHeading,
        "list_item_open": NumberedItem,
        "table_open": JoinedTable,
        "bullet_list_open": JoinedList,
        "ordered_list_open": JoinedList,
        "fence": ScrollingCode,
        "code_block": ScrollingCode,
    }

    def __init__(
        self,
        markup: str,
        *,
        joins: Joins = NO_JOINS,
        code_theme: str,
        code_rows: CodeRows | None = None,
        code_lexes: LexMemory | None = None,
    ) -> None:
        """`code_rows`: where its code blocks' drawn lines are kept between renders;
        `code_lexes`: where their lexes are, to lex a block that goes on from one lexed
        before from near its end (interim: app/display/code_lexing.py), or None to lex each
        block whole."""
        # Rich's own __init__ builds a new markdown-it parser for every document: 10% of the
        # render of a live segment, which is rendered again on every frame. The parser keeps
        # no state between documents, so one serves them all; the attributes are Rich's
        # (tests/unit/test_rich_markdown_parser.py fails if Rich's __init__ sets others).
        self.markup = markup
        self.parsed = _parser().parse(markup)
        self.code_theme = code_theme
        self.justify = None
        self.style = "none"
        self.hyperlinks = False  # links are never made clickable (untrusted text)
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme
        self.joins = joins
        self.code_rows = code_rows
        self.code_lexes = code_lexes
        self.resumed: list[ResumedLex] = []  # code blocks lexed from a line, not their start
        self._tables, self._lists = top_level_counts(self.parsed)
        self._seen_tables = self._seen_lists = 0
        self._seen_code = 0
        # every code line drawn: its block, the width it was shown at and its full line
        self.code_lines: list[tuple[int, int, tuple[Segment, ...]]] = []

    @property
    def code_blocks(self) -> int:
        """Code blocks drawn by the last render."""
        return self._seen_code

    def next_code(self) -> int:
        index, self._seen_code = self._seen_code, self._seen_code + 1
        return index

    def next_table(self) -> tuple[tuple[int, ...] | None, bool]:
        index, self._seen_tables = self._seen_tables, self._seen_tables + 1
        return self.joins.table(index, self._tables)

    def next_list(self) -> tuple[int | None, int | None]:
        index, self._seen_lists = self._seen_lists, self._seen_lists + 1
        return self.joins.numbers(index, self._lists)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self._seen_tables = self._seen_lists = self._seen_code = 0
        self.code_lines = []
        yield from super().__rich_console__(console, options)


__all__ = ["CODE_TAG", "AnswerMarkdown", "CodeRows", "ScrollingCode"]
