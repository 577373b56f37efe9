"""Where a streamed Markdown answer may be cut into separate widgets without changing it.

A segment is re-rendered whole whenever text is appended to it, so one widget holding a whole
long answer would make every tick cost more as the answer grows. The UI therefore starts a new
segment now and then, at a point where Markdown cannot carry a construct
across: the start of a top-level line that follows a blank line (or is an ATX heading), outside
any code fence, that is neither indented (a list or code continuation) nor a list item (which
would split one list into two). Each sealed widget keeps its cached layout; only the last one
changes.

A long code block is cut too, at a line start once a segment has FENCE_SEGMENT_LINES lines: the
next segment is rendered with the block's opening line put back in front, and the two halves
are drawn without the padding between them, so a 500-line file streams at the cost of its last
few dozen lines. (The highlighter starts afresh at each cut, so a string or comment that spans
one may be coloured as code after it.)

A long top-level table or list is cut the same way once a segment has CONSTRUCT_SEGMENT_LINES
lines (a 20,000-row table used to be one segment, rendered whole on every frame): a table before
a row, each later piece rendered with the table's header and delimiter lines put back and drawn
without its header at the whole table's column widths; a list before an item of the same list,
an ordered one numbered on (app/display/joins.py keeps what the pieces share). The pieces line
up exactly as the whole would (tests/unit/test_markdown_segments.py). A paragraph of more
than PARAGRAPH_SEGMENT_LINES lines (no model writes one; a hostile server may) is cut before a
line that starts with a letter, the next piece going on without a gap: the only trace is the
line before the cut ending early, where the whole paragraph would have filled it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.display.fences import FENCE_CUT_LINES, FenceTracker

MIN_SEGMENT_LINES = 16  # lines in a segment before it may be sealed
FENCE_SEGMENT_LINES = FENCE_CUT_LINES  # lines in a segment before a code block in it may be cut
CONSTRUCT_SEGMENT_LINES = 24  # ... before a table or a list in it may be cut
PARAGRAPH_SEGMENT_LINES = 200  # ... before a paragraph in it is (only hostile text is so long)
_HEADING = re.compile(r"#{1,6}(\s|$)")
_LIST_ITEM = re.compile(r"([-*+]|\d{1,9}[.)])(\s|$)")
_MARKER = re.compile(r"(?:([-*+])|(\d{1,9})([.)]))(?:([ \t]+)(\S)?|$)")
_RULE = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_DELIMITER = re.compile(r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_BLOCK_START = re.compile(r" {0,3}(?:#{1,6}(?:\s|$)|>|`{3}|~{3}|<)")
_CLASSIFY_CHARS = 12  # enough of a line to tell a list marker or heading from text
_QUIET = frozenset(" \t|*_~`\\")  # a table row of only these may draw as a blank line


@dataclass(slots=True, eq=False)
class Construct:
    """A top-level table or list that is being cut into several segments: what its pieces
    must agree on to be drawn as the whole would be (app/display/markdown_height.py `Joins`)."""

    kind: str  # "table", "bullets" or "numbers"
    head: str = ""  # a table's header and delimiter lines, put back in front of later pieces
    marker: str = ""  # a list's bullet, or an ordered list's delimiter ("." or ")")
    start: int = 1  # an ordered list's first number
    items: int = 0  # a list's top-level items so far
    indent: int = 0  # where the content of the list's latest item starts

    @property
    def last_number(self) -> int:
        """The number Rich sizes an ordered list's numbers by, as far as the list has come."""
        return self.start + self.items


@dataclass(frozen=True, slots=True)
class Carry:
    """How a piece continues a table or a list cut just before it."""

    construct: Construct
    number: int | None = None  # an ordered list: the number of the piece's first item


def _cells(line: str) -> int:
    """How many cells a table line has (markdown-it's `escapedSplit`, with outer bars)."""
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return len(re.split(r"(?<!\\)\|", line))


def _shows(row: str) -> bool:
    """A table row that surely draws something (a blank row at a cut would be dropped)."""
    return any(character not in _QUIET for character in row)


def can_start_segment(line: str, previous_blank: bool) -> bool:
    """Whether a new widget may begin with this (top-level, outside a fence) line."""
    if not line.strip() or line[0] in " \t":
        return False
    if _LIST_ITEM.match(line):
        return False
    return previous_blank or bool(_HEADING.match(line))


def settled_end(source: str) -> int:
    """Where the blocks of a streaming `source` that more text can no longer change end: the
    start of its last complete line that could begin a new segment after a blank line, outside
    code blocks (0: none). What lies before is drawn the same whether rendered alone or with
    the rest (the premise of cutting an answer into segments), so a live segment may keep its
    lines and render only what follows (app/ui/widgets/markdown_view.py)."""
    fences = FenceTracker()
    cut = offset = 0
    previous_blank = True
    lines = source.split("\n")
    for line in lines[:-1]:  # complete lines only: a partial one may yet become a list item
        settled = offset and previous_blank and fences.open_lines is None
        if settled and can_start_segment(line, previous_blank=True):
            cut = offset
        fences.feed(line + "\n")
        previous_blank = not line.strip()
        offset += len(line) + 1
    return cut


@dataclass(slots=True)
class SegmentCutter:
    """Feed the answer as it streams; each call returns the text split at the cut points."""

    _fences: FenceTracker
    _line: str = ""  # the current, unfinished line (already given out)
    _previous_blank: bool = True
    _lines: int = 0  # lines in the current segment
    _held: str = ""  # the start of a line too short yet to decide on
    # For each piece the last `feed` returned: the opening line of the code block it continues
    # ("" for a piece that does not start inside one).
    openers: list[str] = field(default_factory=list)
    # ... and the table or list it continues, if any.
    carries: list[Carry | None] = field(default_factory=list)
    # The top-level table or list the text is in, as far as it may be cut.
    open_table: Construct | None = None
    open_list: Construct | None = None
    _no_table: bool = False  # in a table (or text) whose rows are not cut, until a blank line
    _row_shows: bool = False  # the last table row surely draws something
    _previous: str = ""  # the last complete line
    _in_quote: bool = False  # since the last blank line
    _after_blank: bool = True  # in a list: the last line was blank
    _paragraph: bool = False  # the last line was a top-level paragraph's

    @classmethod
    def new(cls) -> SegmentCutter:
        return cls(FenceTracker())

    def flush(self) -> str:
        """What is held back, at the end of the stream."""
        held, self._held = self._held, ""
        if held:
            self._line += held
            self._fences.feed(held)
        return held

    def feed(self, text: str) -> list[str]:
        """`pieces[0]` continues the current widget; every later piece starts a new one.

        The first few characters of a line that might start a new widget are held back until
        the line can be classified (at most a dozen characters, for one tick)."""
        text, self._held = self._held + text, ""
        pieces: list[str] = []
        self.openers = [""]
        self.carries = [None]
        start = 0
        position = 0
        while position < len(text):
            end = text.find("\n", position)
            if not self._line and self._lines >= MIN_SEGMENT_LINES:
                probe = text[position:] if end < 0 else text[position:end]
                if end < 0 and len(probe) < _CLASSIFY_CHARS:
                    self._held = probe
                    text = text[:position]
                    break
                opener: str | None = self._fences.opener
                if self._fences.open_lines is None and can_start_segment(
                    probe, self._previous_blank
                ):
                    opener = ""
                elif not (
                    opener and self._lines >= FENCE_SEGMENT_LINES and not self._fences.closes(probe)
                ):
                    opener = None
                carry = None
                if opener is None and self._lines >= CONSTRUCT_SEGMENT_LINES:
                    carry = self._construct_cut(probe, whole=end >= 0)
                    if carry is not None:
                        opener = ""
                if opener is not None:
                    pieces.append(text[start:position])
                    self.openers.append(opener)
                    self.carries.append(carry)
                    start = position
                    self._lines = 0
            if end < 0:
                self._line += text[position:]
                self._fences.feed(text[position:])
                break
            line = self._line + text[position:end]
            self._track(line, fenced=self._fences.open_lines is not None)
            self._fences.feed(text[position : end + 1])
            self._previous_blank = not line.strip()
            self._line = ""
            self._lines += 1
            position = end + 1
        pieces.append(text[start:])
        return pieces

    def _construct_cut(self, probe: str, *, whole: bool) -> Carry | None:
        """A cut before this line, inside the table or list it continues, if one may go here:
        before a table row that surely draws something, after one that does too; before an
        item of the same list (not a rule, which would end it)."""
        table = self.open_table
        if table is not None:
            if probe.startswith("|") and _shows(probe[1:]) and self._row_shows:
                return Carry(table)
            return None
        items = self.open_list
        if self._fences.open_lines is not None:
            return None
        if items is None:
            if self._paragraph and self._lines >= PARAGRAPH_SEGMENT_LINES and probe[:1].isalpha():
                return Carry(Construct("paragraph"))  # hostile text: a line may end early
            return None
        match = _MARKER.match(probe)
        if not match or (match.group(1) or match.group(3)) != items.marker:
            return None
        if _RULE.match(probe) or (not whole and not probe.strip(items.marker + " \t")):
            return None  # a rule, or what may still become one
        if items.kind == "numbers":
            return Carry(items, number=items.start + items.items)
        return Carry(items)

    def _track(self, line: str, *, fenced: bool) -> None:
        """Follow the top-level table or list a complete line is in (only these are cut)."""
        previous, self._previous = self._previous, line
        in_paragraph, self._paragraph = self._paragraph, False
        blank = not line.strip()
        if fenced:  # code: inside a list item's block, or at the margin outside any list
            return
        if blank:
            self.open_table, self._no_table, self._in_quote = None, False, False
            self._after_blank = True
            return
        if self.open_table is not None or self._no_table:
            if self.open_table is not None and line.startswith("|"):
                self._row_shows = _shows(line)
            else:  # a row without a leading bar, or the start of another block: not cut on
                self.open_table, self._no_table = None, True
            return
        if line.lstrip(" ").startswith(">"):
            self._in_quote = True
        if self.open_list is not None and self._list_goes_on(line):
            self._after_blank = False
            return
        self.open_list = None
        if (
            previous.startswith("|")
            and not self._in_quote
            and _DELIMITER.match(line)
            and "-" in line
            and _cells(line) == _cells(previous)
        ):
            self.open_table = Construct("table", head=f"{previous}\n{line}")
            self._row_shows = True  # the header's rule
            return
        match = _MARKER.match(line)
        if match and match.group(5) and not _RULE.match(line) and not self._in_quote:
            marker = match.group(1) or match.group(3)
            number = int(match.group(2)) if match.group(2) else 1
            kind = "bullets" if match.group(1) else "numbers"
            if kind == "numbers" and number != 1 and previous.strip():
                return  # not a list: only one starting at 1 may interrupt a paragraph
            self.open_list = Construct(kind, marker=marker, start=number, items=1)
            self.open_list.indent = match.end(4)
            self._after_blank = False
            return
        self._paragraph = (
            not self._in_quote
            and (line[0].isalpha() or in_paragraph)
            and not _BLOCK_START.match(line)
            and not _RULE.match(line)
        )

    def _list_goes_on(self, line: str) -> bool:
        """Whether a non-blank line is still part of the list (its next item, an item's
        indented content, or a lazy continuation of an item's paragraph)."""
        items = self.open_list
        assert items is not None
        if line[0] in " \t":
            indent = len(line) - len(line.lstrip(" "))
            return not self._after_blank or line[0] == "\t" or indent >= items.indent
        match = _MARKER.match(line)
        if match and not _RULE.match(line):
            if (match.group(1) or match.group(3)) != items.marker:
                return False
            items.items += 1
            items.indent = match.end(4) if match.group(4) else len(line)
            return True
        return not self._after_blank and not _RULE.match(line) and not _BLOCK_START.match(line)


__all__ = [
    "CONSTRUCT_SEGMENT_LINES",
    "FENCE_SEGMENT_LINES",
    "MIN_SEGMENT_LINES",
    "PARAGRAPH_SEGMENT_LINES",
    "Carry",
    "Construct",
    "SegmentCutter",
    "can_start_segment",
    "settled_end",
]
