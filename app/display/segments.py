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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.display.fences import FENCE_CUT_LINES, FenceTracker

MIN_SEGMENT_LINES = 16  # lines in a segment before it may be sealed
FENCE_SEGMENT_LINES = FENCE_CUT_LINES  # lines in a segment before a code block in it may be cut
_HEADING = re.compile(r"#{1,6}(\s|$)")
_LIST_ITEM = re.compile(r"([-*+]|\d{1,9}[.)])(\s|$)")
_CLASSIFY_CHARS = 12  # enough of a line to tell a list marker or heading from text


def can_start_segment(line: str, previous_blank: bool) -> bool:
    """Whether a new widget may begin with this (top-level, outside a fence) line."""
    if not line.strip() or line[0] in " \t":
        return False
    if _LIST_ITEM.match(line):
        return False
    return previous_blank or bool(_HEADING.match(line))


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
                if opener is not None:
                    pieces.append(text[start:position])
                    self.openers.append(opener)
                    start = position
                    self._lines = 0
            if end < 0:
                self._line += text[position:]
                self._fences.feed(text[position:])
                break
            line = self._line + text[position:end]
            self._fences.feed(text[position : end + 1])
            self._previous_blank = not line.strip()
            self._line = ""
            self._lines += 1
            position = end + 1
        pieces.append(text[start:])
        return pieces


__all__ = ["FENCE_SEGMENT_LINES", "MIN_SEGMENT_LINES", "SegmentCutter", "can_start_segment"]
