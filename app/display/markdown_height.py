"""How many lines a Markdown segment paints to, without rendering it.

A long answer keeps its far-away segments as placeholders, which still need their height. This
module predicts `len(MarkdownPainter(look).lines(source, width))` (app/display/markdown_render.py)
from the markdown-it tokens alone. It walks them as `rich.markdown.Markdown.__rich_console__`
does (the same elements; a blank line before an element when the one closed last asks for it,
as all but rules and images do; lists, quotes and tables taking over their children; images
printed on the spot, at the full width and with no line end), counts the lines of each element
by Rich's own rules (`divide_line` for wrapping, `Syntax` with padding and no wrap for code,
the `Table` the Markdown module builds) and then applies the painter's `tidy` (runs of blank
lines collapsed to one, none at the ends). To do that it follows which lines are blank, as a
`Lines` summary per element. It builds no `Text`, styles nothing and highlights no code, which
is where rendering spends its time. tests/unit/test_markdown_height.py holds it to the painter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from rich._ratio import ratio_reduce
from rich.cells import cell_len, chop_cells

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

BULLET_X = 3  # rich.markdown `ListItem.render_bullet`: " • "
QUOTE_X = 4  # `BlockQuote`: "▌ ", and two cells more than that taken from the width
CODE_PAD = 1  # `CodeBlock`: a `Syntax` with `padding=1`
TAB_SIZE = 8  # a Console's, for text
CODE_TAB_SIZE = 4  # a Syntax's
IMAGE_ICON = "🌆 "  # `ImageItem`

_WORD = re.compile(r"\s*\S+\s*")  # rich._wrap's words: a word and the white space after it

# The inline style tags Rich handles without an element (`Markdown.inlines`).
_INLINE_TAGS = frozenset({"em", "strong", "code", "s"})
# Elements that keep their closed children to render them themselves (`on_child_close` False).
_TAKERS = frozenset({"quote", "item", "bullets", "numbers", "table", "thead", "tbody", "tr"})
# `Markdown.elements`, by token type, as kinds of _Element.
_KINDS = {
    "paragraph_open": "paragraph",
    "heading_open": "heading",
    "fence": "code",
    "code_block": "code",
    "blockquote_open": "quote",
    "hr": "rule",
    "bullet_list_open": "bullets",
    "ordered_list_open": "numbers",
    "list_item_open": "item",
    "image": "image",
    "table_open": "table",
    "tbody_open": "tbody",
    "thead_open": "thead",
    "tr_open": "tr",
    "td_open": "cell",
    "th_open": "cell",
}


@lru_cache(maxsize=1)
def rich_parser() -> MarkdownIt:
    """The parser `rich.markdown.Markdown` builds for every document (markdown-it loads with
    the first answer, not on the app's start-up path)."""
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough").enable("table")


@dataclass(frozen=True, slots=True)
class Joins:
    """How a segment draws a table or a list that the answer's cutter split between it and its
    neighbours (app/display/segments.py), so that the pieces line up as the whole would.
    "First" and "last" are the segment's first and last top-level table or list."""

    # its first table continues one: drawn without its header row, at these column widths
    # (empty: at its own, where `shared_widths` has none)
    head_table: tuple[int, ...] | None = None
    # its last table goes on in the next segment: drawn at these column widths
    tail_table: tuple[int, ...] | None = None
    # its first list continues an ordered one: the number of its first item
    head_number: int | None = None
    # the number Rich sizes an ordered list's numbers by (`ListElement`: first + items), for
    # the first list (continued) and the last one (going on), when they are cut
    head_last: int | None = None
    tail_last: int | None = None

    def table(self, index: int, count: int) -> tuple[tuple[int, ...] | None, bool]:
        """Widths (None or empty: its own) and whether the header is left out, for top-level
        table `index` of `count`."""
        if index == 0 and self.head_table is not None:
            return self.head_table, True
        if index == count - 1 and self.tail_table is not None:
            return self.tail_table, False
        return None, False

    def numbers(self, index: int, count: int) -> tuple[int | None, int | None]:
        """First number and the number that sizes them, for top-level list `index` of `count`."""
        first = self.head_number if index == 0 else None
        last = self.head_last if index == 0 else None
        if index == count - 1 and self.tail_last is not None:
            last = self.tail_last
        return first, last


NO_JOINS = Joins()


def estimate_rows(source: str, width: int, joins: Joins = NO_JOINS) -> int:
    """`len(MarkdownPainter(look).lines(source, width, joins))` for the looks `MarkdownLook`
    makes (their styles and code themes colour lines but never break them). `width` is the
    painter's: a StreamedMarkdown renders at its width less its padding, and adds its margin
    itself."""
    if not source.strip():
        return 0
    return _document(rich_parser().parse(source), max(1, width), joins).shown


def top_level_counts(tokens: list[Token]) -> tuple[int, int]:
    """How many tables and lists the document has at its top level."""
    tables = lists = 0
    for token in tokens:
        if token.level == 0:
            if token.type == "table_open":
                tables += 1
            elif token.type in ("bullet_list_open", "ordered_list_open"):
                lists += 1
    return tables, lists


# -- lines, and which of them are blank ----------------------------------------------------------


class Lines(NamedTuple):
    """Rendered lines summed up for the painter's `tidy`: how many there are, how many blank ones
    lead and trail, and how many lines lie from the first to the last line that is not blank
    once each run of blank lines among them is one line. No line but blank ones: `shown` 0."""

    rows: int
    lead: int
    shown: int
    trail: int

    def then(self, other: Lines) -> Lines:
        """These lines followed by `other`."""
        if not other.rows:
            return self
        if not self.rows:
            return other
        rows = self.rows + other.rows
        if not self.shown:
            return Lines(rows, self.lead + other.lead, other.shown, other.trail)
        if not other.shown:
            return Lines(rows, self.lead, self.shown, self.trail + other.rows)
        gap = 1 if self.trail or other.lead else 0
        return Lines(rows, self.lead, self.shown + gap + other.shown, other.trail)

    def marked(self) -> Lines:
        """The same lines with something visible put on the first (a bullet, a number)."""
        if not self.lead:
            return self
        if not self.shown:
            return Lines(self.rows, 0, 1, self.rows - 1)
        gap = 1 if self.lead > 1 else 0
        return Lines(self.rows, 0, 1 + gap + self.shown, self.trail)


NONE = Lines(0, 0, 0, 0)
BLANK = Lines(1, 1, 0, 0)
INK = Lines(1, 0, 1, 0)


def ink(count: int) -> Lines:
    """`count` lines none of which is blank."""
    return Lines(count, 0, count, 0) if count else NONE


def _of_flags(blanks: list[bool]) -> Lines:
    lines = NONE
    for blank in blanks:
        lines = lines.then(BLANK if blank else INK)
    return lines


# -- walking the tokens as rich.markdown does ----------------------------------------------------


@dataclass(slots=True)
class _Element:
    kind: str  # a value of _KINDS, "link", or "other" (Rich's UnknownElement: shows nothing)
    parts: list[str] = field(default_factory=list)  # the text, for elements that show text
    children: list[_Element] = field(default_factory=list)  # for _TAKERS
    value: str = ""  # a link's href, an image's src, a table cell's style
    start: int = 1  # an ordered list's first number
    # `parts` with inline code shaded (see `_shade`), once there is any
    shades: list[str] | None = None
    # a table or list cut into segments (`Joins`): its shared column widths, whether its
    # header is left out, and the number that sizes an ordered list's numbers
    widths: tuple[int, ...] | None = None
    headless: bool = False
    last: int | None = None

    def add(self, text: str, shade: str | None = None) -> None:
        self.parts.append(text)
        if self.shades is not None:
            self.shades.append(text if shade is None else shade)
        elif shade is not None and shade != text:
            self.shades = [*self.parts[:-1], shade]

    def text(self) -> tuple[str, str | None]:
        """The text, and its shaded form if it differs."""
        return "".join(self.parts), None if self.shades is None else "".join(self.shades)


def _shade(code: str) -> str:
    """Inline code is drawn on a background, so even its spaces show. Its shade has every
    character replaced by another that is not white space and as wide (a tab by one that is
    not a tab), to tell where the code is and that it shows."""
    return "".join(_SHADES.get(character) or _shade_of(character) for character in code)


_SHADES = {"\t": "x", "x": "y", "Ｘ": "Ｙ"}


def _shade_of(character: str) -> str:
    return {1: "x", 2: "Ｘ"}.get(cell_len(character), character)


def _shaded(line: str, shade: str, index: int) -> bool:
    return shade[index] != line[index]


def _flatten(tokens: list[Token]) -> list[Token]:
    """`Markdown._flatten_tokens`: an inline token is replaced by its children (if it has any),
    an image is kept whole."""
    flat: list[Token] = []
    for token in tokens:
        children = token.children
        if children and token.type != "fence" and token.tag != "img":
            flat.extend(_flatten(children))
        else:
            flat.append(token)
    return flat


@dataclass(slots=True)
class _Output:
    """Markdown's output at the top: whole lines, and a line an image left open (None: none;
    else whether it is blank so far)."""

    lines: Lines = NONE
    open_line: bool | None = None

    def end_line(self) -> None:
        """A bare line end: it ends the open line, or makes a blank one."""
        self.lines = self.lines.then(BLANK if self.open_line in (None, True) else INK)
        self.open_line = None

    def add(self, lines: Lines) -> None:
        if not lines.rows:
            return
        if self.open_line is False:  # the open line shows something: so does the first line
            lines = lines.marked()
        self.lines = self.lines.then(lines)
        self.open_line = None

    def add_open(self, blanks: list[bool]) -> None:
        """Lines whose last one has no line end (an image's)."""
        first, *rest = blanks
        if self.open_line is not None:
            first = first and self.open_line
        if not rest:
            self.open_line = first
            return
        self.lines = self.lines.then(BLANK if first else INK)
        self.lines = self.lines.then(_of_flags(rest[:-1]))
        self.open_line = rest[-1]

    def result(self) -> Lines:
        if self.open_line is None:
            return self.lines
        return self.lines.then(BLANK if self.open_line else INK)


def _document(
    tokens: list[Token],
    width: int,
    joins: Joins = NO_JOINS,
    tables_found: list[_Element] | None = None,
) -> Lines:
    """Markdown's lines at `width` (at least 1); the top-level tables into `tables_found`."""
    tables, lists = top_level_counts(tokens)
    seen_tables = seen_lists = 0
    output = _Output()
    new_line = False  # Rich's flag: the element closed last wants a blank line before the next
    stack: list[_Element] = []
    for token in _flatten(tokens):
        kind = token.type
        if kind == "text":
            stack[-1].add(token.content)
        elif kind == "softbreak":
            stack[-1].add(" ")
        elif kind == "hardbreak":
            stack[-1].add("\n")
        elif kind == "link_open":
            stack.append(_Element("link", value=str(token.attrs.get("href", ""))))
        elif kind == "link_close":
            link = stack.pop()
            text, shade = link.text()
            address = f" ({link.value})"
            stack[-1].add(text + address, None if shade is None else shade + address)
        elif kind == "html_inline":
            continue
        elif token.tag in _INLINE_TAGS and kind != "fence" and kind != "code_block":
            if token.nesting == 0 and token.content:  # inline code
                stack[-1].add(token.content, _shade(token.content))
        else:
            nesting = token.nesting
            if nesting == 1:
                element = _Element(_KINDS.get(kind, "other"))
                if kind == "ordered_list_open":
                    element.start = int(token.attrs.get("start", 1))
                elif kind == "td_open" or kind == "th_open":
                    element.value = str(token.attrs.get("style", ""))
                if not stack and kind == "table_open":
                    element.widths, element.headless = joins.table(seen_tables, tables)
                    seen_tables += 1
                elif not stack and kind in ("bullet_list_open", "ordered_list_open"):
                    first, element.last = joins.numbers(seen_lists, lists)
                    if first is not None and kind == "ordered_list_open":
                        element.start = first
                    seen_lists += 1
                stack.append(element)
                continue
            if nesting == 0:
                element = _Element(_KINDS.get(kind, "other"))
                if kind == "image":
                    element.value = str(token.attrs.get("src", ""))
                element.parts.append(token.content)
            else:
                element = stack.pop()
            if stack and stack[-1].kind in _TAKERS:
                stack[-1].children.append(element)
            elif tables_found is not None:
                if element.kind == "table":
                    tables_found.append(element)
            else:
                if new_line and (nesting or kind != "inline"):
                    output.end_line()
                if element.kind == "image":
                    output.add_open(_image_blanks(element, width))
                else:
                    output.add(_lines(element, width))
            new_line = element.kind != "rule" and element.kind != "image"
    return output.result()


def _image_blanks(image: _Element, width: int) -> list[bool]:
    """`ImageItem`: its alt text (or the last part of its path) after an icon."""
    title = "".join(image.parts) or image.value.strip("/").rsplit("/", 1)[-1]
    return _line_blanks(f"{IMAGE_ICON}{title} ", width)


def _lines(element: _Element, width: int) -> Lines:
    """The lines an element renders to at `width` (Rich renders nothing narrower than a cell)."""
    if width < 1:
        return NONE
    kind = element.kind
    if kind == "paragraph" or kind == "heading":
        return text_lines(*element.text(), width)
    if kind == "code":
        return ink(code_rows("".join(element.parts), width))
    if kind == "bullets" or kind == "numbers":
        items = element.children
        indent = BULLET_X
        if kind == "numbers":  # app/display/markdown_render.py `NumberedItem`: "10. "
            last = element.start + len(items) if element.last is None else element.last
            indent = len(str(last)) + 3
        lines = NONE
        for item in items:
            body = NONE
            for child in item.children:
                body = body.then(_lines(child, width - indent))
            lines = lines.then(body.marked())
        return lines
    if kind == "quote":  # every line starts with the quote's bar
        return ink(sum(_lines(child, width - QUOTE_X).rows for child in element.children))
    if kind == "rule":
        return Lines(2, 0, 1, 1)  # the rule, and the empty Text Rich yields after it
    if kind == "table":
        return _table_element_lines(element, width)
    return NONE


# -- text ----------------------------------------------------------------------------------------


def text_lines(text: str, shade: str | None, width: int, *, fold: bool = True) -> Lines:
    """The lines `Text.wrap` makes of plain text at `width` (at least 1): each of its
    "\\n"-separated lines word-wrapped by `divide_line`, words wider than the width folded
    (`fold`) or cropped (table cells overflow with an ellipsis). `shade`: the text with what
    is drawn on a background made visible (see `_shade`), if that differs."""
    if "\n" not in text:
        return _line_lines(text, shade or text, width, fold)
    lines = NONE
    plain = text.split("\n")
    shades = plain if shade is None else shade.split("\n")
    for line, line_shade in zip(plain, shades, strict=True):
        lines = lines.then(_line_lines(line, line_shade, width, fold))
    return lines


def _line_lines(line: str, shade: str, width: int, fold: bool) -> Lines:
    if "\t" in line:
        line, shade = _expand_tabs(line, shade)
    if not line.strip():  # no words: one line, showing only what is shaded
        if shade is line or not _shows_space(line, shade, width):
            return BLANK
        return INK
    if cell_len(line) <= width:
        return INK
    return _of_flags(_divide(line, shade, width, fold))


def _line_blanks(line: str, width: int) -> list[bool]:
    """For each line `Text.wrap` makes of one line of unstyled text, whether it is blank."""
    if "\t" in line:
        line, _ = _expand_tabs(line, line)
    if not line.strip():
        return [True]
    if cell_len(line) <= width:
        return [False]
    return _divide(line, line, width, True)


def _expand_tabs(line: str, shade: str) -> tuple[str, str]:
    """`Text.expand_tabs`: a tab is a space, then more up to the next stop, counted in cells;
    the spaces are in the tab's style (shaded if it was)."""
    parts = line.split("\t")
    lines: list[str] = []
    shades: list[str] = []
    position = index = 0
    for number, part in enumerate(parts, 1):
        end = index + len(part)
        lines.append(part)
        shades.append(shade[index:end])
        if number < len(parts):
            position += cell_len(part + " ")
            fill = 1 + (-position) % TAB_SIZE
            position += fill - 1
            lines.append(" " * fill)
            shades.append((" " if shade[end] == "\t" else "x") * fill)
            index = end + 1
    expanded = "".join(lines)
    return expanded, expanded if shade is line else "".join(shades)


def _shows_space(line: str, shade: str, width: int) -> bool:
    """Whether a line of white space alone shows: it is cut to `width` characters
    (`Text.rstrip_end`) and then to `width` cells (`Text.truncate`, which makes a character
    cut in two a space in its style); what is left shows if any of it is shaded."""
    cells = 0
    for index, character in enumerate(line[:width]):
        cells += cell_len(character)
        if _shaded(line, shade, index):
            return True
        if cells >= width:
            break
    return False


def _divide(line: str, shade: str, width: int, fold: bool) -> list[bool]:
    """`rich._wrap.divide_line`, noting for each line it makes whether it will show nothing:
    a folded word can leave a line of its trailing spaces, and a character two cells wide
    folded into one cell is cut to a space (`Text.truncate`). What is shaded always shows."""
    blanks: list[bool] = []
    shows = False  # something other than white space is on the current line
    offset = 0
    for match in _WORD.finditer(line):
        start, word = match.start(), match.group()
        length = cell_len(word.rstrip())
        if width - offset >= length:
            offset += cell_len(word)
            shows = True
        elif length > width:
            if not fold:  # cut with an ellipsis, which shows
                if start:
                    blanks.append(not shows)
                offset = cell_len(word)
                shows = True
                continue
            pieces = chop_cells(word, width)
            for index, piece in enumerate(pieces, 1):
                if start:
                    blanks.append(not shows)
                    shows = False
                if shows or not piece:
                    pass
                elif cell_len(piece) <= width:
                    shows = not shade[start : start + len(piece)].isspace()
                else:  # a character two cells wide in one: cut to a space in its style
                    shows = _shaded(line, shade, start)
                if index < len(pieces):
                    start += len(piece)
                else:
                    offset = cell_len(piece)
        elif offset and start:
            blanks.append(not shows)
            offset = cell_len(word)
            shows = True
    blanks.append(not shows)
    return blanks


def code_rows(code: str, width: int) -> int:
    """`ScrollingCode` (app/display/markdown_render.py): a `Syntax` without word wrap and with a
    cell of padding all round, of the code with its trailing white space removed. Its lines
    scroll rather than wrap, so it is one row a line, whatever the width. All its lines are on
    the code's background: none is blank."""
    return 2 * CODE_PAD + code.rstrip().count("\n") + 1


# -- tables --------------------------------------------------------------------------------------


def _table_element_lines(table: _Element, width: int) -> Lines:
    """`TableElement`: its header row (the last row of its last head) and its body's rows."""
    header, body = _table_cells(table)
    return table_lines(header, body, width, table.widths, headless=table.headless)


def _table_cells(table: _Element) -> tuple[list[Cell], list[list[Cell]]]:
    header: list[Cell] = []
    body: list[list[Cell]] = []
    for part in table.children:
        rows = [[_cell(cell) for cell in row.children] for row in part.children]
        if part.kind == "thead":
            header = rows[-1] if rows else []
        elif part.kind == "tbody":
            body = rows
    return header, body


def _cell(element: _Element) -> Cell:
    """A cell aligned right or centred has each line stripped of its trailing white space,
    inline code's included (`Lines.justify`): nothing of it is left shaded."""
    text, shade = element.text()
    if "right" in element.value or "center" in element.value:
        shade = None
    return Cell(text, shade)


class Cell(NamedTuple):
    text: str
    shade: str | None = None  # the text with inline code shaded (see `_shade`), if any


def table_lines(
    header: list[Cell],
    body: list[list[Cell]],
    width: int,
    shared: tuple[int, ...] | None = None,
    *,
    headless: bool = False,
) -> Lines:
    """The lines of the `Table` rich.markdown makes (`box.SIMPLE`, edges shown, no padding at
    the edges, padding collapsed) at `width`: a blank top edge, the header row, its rule, the
    body's rows and a blank bottom edge. A cell's lines all show something, unless it holds
    only white space: then it is one line, blank unless shaded. `shared`: the column widths of
    a table cut into segments (`shared_widths`), `headless`: a later piece of it, drawn without
    its header row and rule (markdown_render.py `JoinedTable`)."""
    count = max([len(header), *map(len, body)])
    if not count:
        return BLANK  # a table without columns is one empty line
    grid = [[*row, *[Cell("")] * (count - len(row))] for row in (header, *body)]
    pads = table_pads(count)
    if shared and len(shared) == count:
        widths = list(shared)
    else:  # Rich measures only the rows it shows
        shown = grid[1:] if headless else grid
        columns = [[row[index].text for row in shown] for index in range(count)]
        widths = column_widths(columns, pads, width - (2 + count - 1))  # edges and dividers
    # a row is as tall as its tallest cell and at least one line; blank if no cell shows
    heights = [
        max(
            _cell_rows(cell, pad, column)
            for cell, pad, column in zip(row, pads, widths, strict=True)
        )
        for row in grid
    ]
    if headless:
        lines = BLANK
    else:
        # " ──── ", cut to the width where the table cannot fit (only then narrower than 2)
        rule = INK if width > 1 and (count > 1 or sum(widths) > 0) else BLANK
        lines = BLANK.then(_row(heights[0])).then(rule)
    for height in heights[1:]:
        lines = lines.then(_row(height))
    return lines.then(BLANK)


def table_pads(count: int) -> list[int]:
    """`Table._get_padding_width` with collapse_padding and pad_edge=False: a cell of padding
    on the right of every column but the last."""
    return [1] * (count - 1) + [0]


# A column's measure: the widest word and the widest line of its cells (header included), in
# cells. A table's widths follow from its columns' measures alone (`_column_measure` takes
# the largest of each), so the measures of its pieces combine by taking the largest.
Measure = tuple[int, int]


def table_measures(source: str, *, last: bool) -> tuple[Measure, ...]:
    """The column measures of the source's first (or `last`) top-level table; () if none."""
    tables: list[_Element] = []
    _document(rich_parser().parse(source), 1, NO_JOINS, tables)
    if not tables:
        return ()
    header, body = _table_cells(tables[-1 if last else 0])
    count = max([len(header), *map(len, body)])
    measures: list[Measure] = []
    for index in range(count):
        low = high = 0
        for row in (header, *body):
            text = row[index].text if index < len(row) else ""
            lines = text.splitlines()
            line = max(map(cell_len, lines)) if lines else 0
            words = text.split()
            high = max(high, line)
            low = max(low, max(map(cell_len, words)) if words else line)
        measures.append((low, high))
    return tuple(measures)


def merge_measures(a: tuple[Measure, ...], b: tuple[Measure, ...]) -> tuple[Measure, ...]:
    """The measures of a table made of two pieces."""
    if len(a) != len(b):
        return a or b
    return tuple((max(x[0], y[0]), max(x[1], y[1])) for x, y in zip(a, b, strict=True))


def shared_widths(measures: tuple[Measure, ...], width: int) -> tuple[int, ...] | None:
    """The column widths (padding included) Rich gives a table whose columns measure so at
    `width` (the painter's), as `column_widths` works them out from the cells; None where Rich
    could not draw them as fixed columns (a column with no room for its text)."""
    count = len(measures)
    if not count:
        return None
    pads = table_pads(count)
    total = max(0, width - (2 + count - 1))
    widths = [
        _measure_cap(measure, pad, total)[1] or 1
        for measure, pad in zip(measures, pads, strict=True)
    ]
    if sum(widths) > total:
        widths = _collapse_widths(widths, total)
        if sum(widths) > total:
            widths = ratio_reduce(sum(widths) - total, [1] * len(widths), widths, widths)
        widths = [
            _measure_cap(measure, pad, max(0, width))[1]
            for measure, pad, width in zip(measures, pads, widths, strict=True)
        ]
    if any(width - pad < 1 for width, pad in zip(widths, pads, strict=True)):
        return None
    return tuple(widths)


def wraps_no_cell(measures: tuple[Measure, ...], width: int) -> bool:
    """Whether every column gets room for its longest line at `width`: then no cell wraps,
    and each row is as tall as its cell with the most lines, whatever the widths."""
    pads = table_pads(len(measures))
    total = width - (2 + len(measures) - 1)
    return sum(max(1, high + pad) for (_, high), pad in zip(measures, pads, strict=True)) <= total


def _measure_cap(measure: Measure, pad: int, most: int) -> tuple[int, int]:
    """`_column_measure` of a column whose cells measure `measure` at most."""
    if most < 1:
        return 0, 0
    if most - pad < 1:
        return _get(most, most, most)
    text_low, text_high = _get(measure[0], measure[1], most)
    return _get(min(text_low + pad, most), min(text_high + pad, most), most)


def _row(height: int) -> Lines:
    """A row whose cells show nothing is still a line, a blank one."""
    return ink(height) if height else BLANK


def column_widths(columns: list[list[str]], pads: list[int], total: int) -> list[int]:
    """`Table._calculate_column_widths` without expansion: each column as wide as its widest
    cell; if that is too wide, the widest columns shrink towards the next widest, then all
    evenly, and each is measured again at the width it got."""
    total = max(0, total)
    widths = [
        _column_measure(column, pad, total)[1] or 1
        for column, pad in zip(columns, pads, strict=True)
    ]
    if sum(widths) > total:
        widths = _collapse_widths(widths, total)
        if sum(widths) > total:
            widths = ratio_reduce(sum(widths) - total, [1] * len(widths), widths, widths)
        widths = [
            _column_measure(column, pad, max(0, width))[1]
            for column, pad, width in zip(columns, pads, widths, strict=True)
        ]
    return widths


def _collapse_widths(widths: list[int], total: int) -> list[int]:
    """`Table._collapse_widths` with every column wrappable."""
    excess = sum(widths) - total
    while sum(widths) and excess > 0:
        widest = max(widths)
        second = max(width if width != widest else 0 for width in widths)
        difference = widest - second
        if not difference:
            break
        ratios = [1 if width == widest else 0 for width in widths]
        widths = ratio_reduce(excess, ratios, [min(excess, difference)] * len(widths), widths)
        excess = sum(widths) - total
    return widths


def _normalize(low: int, high: int) -> tuple[int, int]:
    """`Measurement.normalize`."""
    low = min(max(0, low), high)
    return max(0, low), max(0, low, high)


def _get(low: int, high: int, most: int) -> tuple[int, int]:
    """What `Measurement.get` makes of a renderable's own measurement at a maximum width."""
    low, high = _normalize(low, high)
    low, high = min(low, most), min(high, most)
    if high < 1:
        return 0, 0
    return _normalize(low, high)


def _column_measure(column: list[str], pad: int, most: int) -> tuple[int, int]:
    """`Table._measure_column`: the largest minimum and maximum of its cells, each a `Padding`
    of (0, pad, 0, 0) around the cell's text."""
    if most < 1:
        return 0, 0
    low = high = 0
    for text in column:
        if most - pad < 1:  # `Padding.__rich_measure__` with no room inside
            cell = _get(most, most, most)
        else:
            text_low, text_high = _text_measure(text, most)
            cell = _get(min(text_low + pad, most), min(text_high + pad, most), most)
        low, high = max(low, cell[0]), max(high, cell[1])
    return min(low, most), min(high, most)


def _text_measure(text: str, most: int) -> tuple[int, int]:
    """`Measurement.get` of a `Text`: its longest word and its longest line, in cells."""
    lines = text.splitlines()
    high = max(map(cell_len, lines)) if lines else 0
    words = text.split()
    low = max(map(cell_len, words)) if words else high
    return _get(low, high, most)


def _cell_rows(cell: Cell, pad: int, width: int) -> int:
    """The lines of a cell that show something. A cell's `Padding` (expanded to the column)
    renders its text `pad` cells narrower, and table cells crop words that do not fit (a
    `Column`'s overflow is "ellipsis"), so all its lines show something, unless it is only
    white space: then it is one line."""
    inner = width - pad
    if width < 1 or inner < 1:
        return 0
    text, shade = cell
    if text.strip():
        return text_lines(text, None, inner, fold=False).rows
    return 1 if text_lines(text, shade, inner, fold=False).shown else 0


__all__ = [
    "BLANK",
    "INK",
    "NONE",
    "NO_JOINS",
    "Joins",
    "Lines",
    "Measure",
    "estimate_rows",
    "merge_measures",
    "rich_parser",
    "shared_widths",
    "table_measures",
    "table_pads",
    "text_lines",
    "top_level_counts",
    "wraps_no_cell",
]
