"""How many rows a Markdown segment takes on screen, without building its widgets.

A long answer keeps its far-away segments as blank placeholders; giving each the right height
used to mean building Textual's Markdown widgets (dozens per segment) just to measure them.
This module predicts that height from the markdown-it tokens instead, mirroring what Textual
8.2.8 does with them: the same plain text per block (`MarkdownBlock._token_to_content`), the
same word wrap (Rich's `divide_line`), the block margins of `_markdown.py`'s DEFAULT_CSS (which
collapse between siblings of one container), the `-continued` trims of `AnswerView`, and the
grid sizing of tables. tests/ui/test_markdown_height.py holds it to real widgets; if Textual
changes its Markdown CSS, that test is what fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import pairwise

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.cells import cell_len, chop_cells

# Textual's `Markdown.BULLETS`: the unordered bullet depends on how many unordered items enclose
# the list, and its width (the bullet's `width: auto`) is taken from the item's text width.
BULLETS = ("• ", "▪ ", "‣ ", "⭑ ", "◦ ")
PADDING_X = 1  # StreamedMarkdown: `padding: 0 1`
QUOTE_X = 3  # MarkdownBlockQuote: an outer left border (1) and `padding: 0 1`
FENCE_X, FENCE_Y = 4, 2  # the fence's Label: `padding: 1 2`
HR_ROWS = 2  # MarkdownHorizontalRule: `height: 1` grown by `padding-top: 1` and a bottom border
CELL_X = 2  # table cells and headers: `padding: 0 1`
KEYLINE = 1  # MarkdownTableContent's keyline takes a row/column on every side of the grid
GUTTER = 1  # MarkdownTableContent: `grid-gutter: 1 1`

_WORD = re.compile(r"\s*\S+\s*")  # Rich's `divide_line` words: a word and its spaces
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=1)
def default_parser() -> MarkdownIt:
    """The parser configuration StreamedMarkdown uses (see app/ui/widgets/markdown_view.py)."""
    return MarkdownIt("gfm-like")


def estimate_rows(
    source: str,
    width: int,
    *,
    continued: bool,
    parser: MarkdownIt | None = None,
) -> int:
    """`outer_size.height` of a StreamedMarkdown `width` cells wide (outer width) that was given
    `source` in one `append`, inside an AnswerView; `continued` for the `-continued` class (every
    segment after an answer's first). `parser` defaults to the app's configuration."""
    inner = width - 2 * PADDING_X
    if inner <= 0:  # no room beside the padding (Textual gives such a widget no rows at all)
        return 0
    blocks = _tree((parser or default_parser()).parse(source))
    context = _Context(top=True, in_list=False, unordered_depth=0)
    boxes = [_measure(block, inner, context) for block in blocks]
    if continued and boxes:
        boxes[0] = _continued(blocks[0], boxes[0])
    return stack_rows(boxes)


# -- the pieces, public for tests --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Box:
    """A laid-out block: its own height and the vertical margins it asks of its neighbours."""

    height: int
    top: int = 0
    bottom: int = 0


def stack_rows(boxes: list[Box]) -> int:
    """Height of Textual's vertical layout: margins between siblings collapse to the larger of
    the two; the first top and the last bottom margin are kept (inside the container)."""
    if not boxes:
        return 0
    rows = boxes[0].top + boxes[-1].bottom + sum(box.height for box in boxes)
    for above, below in pairwise(boxes):
        rows += max(above.bottom, below.top)
    return rows


def wrapped_rows(text: str, width: int, *, fold: bool = True) -> int:
    """Rows Textual's Content takes word-wrapped at `width` cells: lines split at "\\n", words
    longer than a line folded (`fold`) or cropped (tables' `text-overflow: ellipsis`). Textual
    gives no rows to a zero width; a negative one (a table column narrower than its padding)
    goes through the same wrap, which then breaks before every word."""
    if not width:
        return 0
    return sum(_line_rows(line, width, fold) for line in text.split("\n"))


def _line_rows(line: str, width: int, fold: bool) -> int:
    """Rich's `divide_line`, counting the breaks instead of recording them."""
    if "\t" in line:
        line = line.expandtabs(8)
    if cell_len(line) <= width:
        return 1
    breaks = 0
    offset = 0
    for match in _WORD.finditer(line):
        start, word = match.start(), match.group()
        length = cell_len(word.rstrip())
        if width - offset >= length:
            offset += cell_len(word)
        elif length > width:
            if not fold:
                breaks += 1 if start else 0
                offset = cell_len(word)
                continue
            pieces = chop_cells(word, width)
            for index, piece in enumerate(pieces, 1):
                breaks += 1 if start else 0
                if index < len(pieces):
                    start += len(piece)
                else:
                    offset = cell_len(piece)
        elif offset and start:
            breaks += 1
            offset = cell_len(word)
    return breaks + 1


def inline_text(token: Token) -> str:
    """The plain text Textual shows for an inline token (`MarkdownBlock._token_to_content`):
    whitespace runs squeezed, hard breaks as new lines, images as an icon and their alt text."""
    parts: list[str] = []
    for child in token.children or ():
        kind = child.type
        if kind == "text":
            parts.append(_SPACES.sub(" ", child.content))
        elif kind == "hardbreak":
            parts.append("\n")
        elif kind == "softbreak":
            parts.append(" ")
        elif kind == "code_inline":
            parts.append(child.content)
        elif kind == "image":
            parts.append("🖼  ")
            alt = child.attrs.get("alt", "")
            if alt:
                parts.append(f"({alt})")
            parts.extend(grandchild.content for grandchild in child.children or ())
    return "".join(parts)


# -- the block tree ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Block:
    kind: str  # a token type without "_open" ("paragraph", "bullet_list", ...), or a heading tag
    text: str = ""
    info: str = ""
    children: list[_Block] = field(default_factory=list)


_CONTAINERS = {
    "paragraph_open",
    "blockquote_open",
    "bullet_list_open",
    "ordered_list_open",
    "list_item_open",
    "table_open",
    "thead_open",
    "tbody_open",
    "tr_open",
    "th_open",
    "td_open",
}


def _tree(tokens: list[Token]) -> list[_Block]:
    """The blocks Textual's `Markdown._parse_markdown` would build, as plain data."""
    root = _Block("root")
    stack = [root]
    for token in tokens:
        kind = token.type
        if kind == "heading_open" or kind in _CONTAINERS:
            block = _Block(token.tag if kind == "heading_open" else kind[:-5], info=token.info)
            stack[-1].children.append(block)
            stack.append(block)
        elif kind.endswith("_close"):
            if len(stack) > 1:
                stack.pop()
        elif kind == "inline":
            stack[-1].text = inline_text(token)
        elif kind == "hr":
            stack[-1].children.append(_Block("hr"))
        elif kind in ("fence", "code_block"):
            stack[-1].children.append(_Block("fence", text=token.content.rstrip()))
    return root.children


# -- measuring -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Context:
    top: bool  # a direct child of the Markdown widget (paragraphs have a margin only there)
    in_list: bool  # inside a list (a list in a list has no margin)
    unordered_depth: int  # unordered items around this block (picks the bullet)

    def nested(self, *, in_list: bool | None = None, unordered: int = 0) -> _Context:
        return _Context(
            top=False,
            in_list=self.in_list if in_list is None else in_list,
            unordered_depth=self.unordered_depth + unordered,
        )


def _measure(block: _Block, width: int, context: _Context) -> Box:
    kind = block.kind
    if kind == "paragraph":
        return Box(wrapped_rows(block.text, width), 0, 1 if context.top else 0)
    if kind in ("h1", "h2"):
        return Box(wrapped_rows(block.text, width), 2, 1)
    if kind == "h3":  # `width: auto`: as wide as its text, so it never wraps
        return Box(block.text.count("\n") + 1, 1, 1)
    if kind in ("h4", "h5", "h6"):
        return Box(wrapped_rows(block.text, width), 1, 1)
    if kind == "hr":
        return Box(HR_ROWS, 0, 1)
    if kind == "fence":  # scrolls sideways: one row per line, never wrapped
        lines = block.text.splitlines()
        rows = max(1, len(lines))
        if width <= FENCE_X and not any(map(cell_len, lines)):
            rows = 0  # nothing to show and no room beside the padding: a Label of no width
        return Box(rows + FENCE_Y, 1, 1)
    if kind == "blockquote":
        if width <= QUOTE_X:  # no room inside its border and padding: Textual gives it no rows
            return Box(0, 1, 1)
        inner = context.nested()
        boxes = [_measure(child, width - QUOTE_X, inner) for child in block.children]
        return Box(stack_rows(boxes) if boxes else 1, 1, 1)  # empty, it shows one blank line
    if kind in ("bullet_list", "ordered_list"):
        return Box(_list_rows(block, width, context), 0, 0 if context.in_list else 1)
    if kind == "table":
        return Box(_table_rows(block, width), 0, 1)
    return Box(0)  # nothing Textual would show


def _list_rows(block: _Block, width: int, context: _Context) -> int:
    """Each item is a row of bullet and body; the body stacks the item's blocks (no margins
    for its paragraphs), and an item with no blocks takes no row at all."""
    items = [child for child in block.children if child.kind == "list_item"]
    if not items:
        return 0
    if block.kind == "ordered_list":
        try:
            start = int(items[0].info)
        except ValueError:
            start = 1
        bullet = 1 + max(len(f"{number}. ") for number in range(start, start + len(items)))
        inner = context.nested(in_list=True)
    else:
        bullet = cell_len(BULLETS[context.unordered_depth % len(BULLETS)])
        inner = context.nested(in_list=True, unordered=1)
    rows = 0
    for item in items:
        # the item's body is `1fr` of what the bullet leaves, never less than one cell
        boxes = [_measure(child, max(1, width - bullet), inner) for child in item.children]
        rows += stack_rows(boxes)
    return rows


def _continued(block: _Block, box: Box) -> Box:
    """AnswerView's `-continued` CSS: a segment's first block loses a row of its top margin."""
    if block.kind in ("h1", "h2"):
        return Box(box.height, 1, 1)
    if block.kind in ("h3", "h4", "h5", "h6", "fence", "blockquote"):
        return Box(box.height, 0, 1)
    return box


# -- tables --------------------------------------------------------------------------------------


def _table_cells(block: _Block) -> tuple[list[str], list[str]]:
    """Header texts and the body's cells in reading order, as MarkdownTable lays them out."""
    headers: list[str] = []
    cells: list[str] = []
    for part in block.children:
        for row in part.children:
            for cell in row.children:
                (headers if cell.kind == "th" else cells).append(cell.text)
    return headers, cells


def _table_rows(block: _Block, width: int) -> int:
    """MarkdownTableContent's grid: `auto` columns as wide as their widest cell, stretched to
    the table's width or shrunk towards each column's longest word; every row as tall as its
    tallest cell (words wrapped, overlong words cropped), gutters and keylines between."""
    headers, body = _table_cells(block)
    count = max(1, len(headers))
    cells = headers + body
    grid = [cells[index : index + count] for index in range(0, len(cells), count)]
    if not grid:
        return 0
    wanted = [0] * count
    minimum = [1] * count
    for row in grid:
        for column, text in enumerate(row):
            lines = text.split("\n")
            wanted[column] = max(wanted[column], max(map(cell_len, lines)) + CELL_X)
            words = text.split()
            longest = max(map(cell_len, words)) if words else 0
            minimum[column] = max(minimum[column], longest + CELL_X)
    columns = resolve_columns(wanted, minimum, width - 2 * KEYLINE, GUTTER)
    heights = [
        max(
            wrapped_rows(text, columns[column] - CELL_X, fold=False)
            for column, text in enumerate(row)
        )
        for row in grid
    ]
    return sum(heights) + GUTTER * (len(heights) - 1) + 2 * KEYLINE


def resolve_columns(wanted: list[int], minimum: list[int], total: int, gutter: int) -> list[int]:
    """Textual's `_resolve.resolve` for fixed widths with expand and shrink: spare room is shared
    in proportion; an excess is taken from the first columns down to their minimums, then
    whatever is left over is taken from all in proportion. Offsets are floored, as there."""
    space = total - gutter * (len(wanted) - 1)
    widths = [Fraction(value) for value in wanted]
    used = sum(widths, Fraction(0))
    if used and space > used:
        widths = [value + value / used * (space - used) for value in widths]
    used = sum(widths, Fraction(0))
    excess = used - space
    if excess > 0:
        for index, (least, value) in enumerate(zip(minimum, widths, strict=True)):
            updated = max(Fraction(least), value - excess)
            widths[index] = updated
            used = used - value + updated
            excess = used - space
            if excess <= 0:
                break
        used = sum(widths, Fraction(0))
        excess = used - space
        if excess > 0:
            widths = [value - value / used * excess for value in widths]
    result: list[int] = []
    position = Fraction(0)
    for value in widths:
        start = position.__floor__()
        position += value
        result.append(position.__floor__() - start)
        position += gutter
    return result


__all__ = [
    "BULLETS",
    "Box",
    "default_parser",
    "estimate_rows",
    "inline_text",
    "resolve_columns",
    "stack_rows",
    "wrapped_rows",
]
