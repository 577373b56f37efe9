"""Finding words in a conversation, as a pager or a browser's find bar does.

Matched in the text each message holds (a prompt as typed, an answer's Markdown source, piece by
piece as its segments hold it), never in what is drawn: an answer's segments far from the view
are asleep (app/ui/widgets/answer.py) and have no lines to search, and rendering them all to
search them would cost more than the whole conversation's text. One scan of one compiled
pattern over each piece: linear in the conversation's text, and stepping from match to match
scans nothing again.

The same pattern then finds the matches in a drawn segment's lines to highlight them
(`line_spans`): whitespace in the query matches any run of whitespace, so a phrase wrapped over
two lines on screen, or over a soft line break in the source, is still one match.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


def find_pattern(query: str) -> re.Pattern[str] | None:
    """The query as a pattern: literal, case-insensitive, any whitespace for whitespace; None
    for a query of no words."""
    words = query.split()
    if not words:
        return None
    return re.compile(r"\s+".join(re.escape(word) for word in words), re.IGNORECASE)


@dataclass(frozen=True, order=True, slots=True)
class Hit:
    """One match: in message `message` (counted down the transcript), its piece `part` (an
    answer's segment; a prompt has one), the `nth` match of that piece, at `start` in it."""

    message: int
    part: int
    start: int
    nth: int = field(compare=False)


def find_hits(messages: Iterable[Sequence[str]], pattern: re.Pattern[str]) -> list[Hit]:
    """Every match, in reading order; each piece of text is scanned once."""
    hits: list[Hit] = []
    for number, parts in enumerate(messages):
        for index, text in enumerate(parts):
            for nth, match in enumerate(pattern.finditer(text)):
                hits.append(Hit(number, index, match.start(), nth))
    return hits


@dataclass(slots=True)
class Found:
    """The matches of a query and which of them is the current one (None: none yet)."""

    hits: list[Hit] = field(default_factory=list)
    current: int | None = None

    @property
    def hit(self) -> Hit | None:
        return None if self.current is None else self.hits[self.current]

    def step(self, direction: int) -> Hit | None:
        """The next match (`direction` 1) or the previous one (-1), round the ends."""
        if not self.hits:
            self.current = None
            return None
        if self.current is None:
            self.current = 0 if direction > 0 else len(self.hits) - 1
        else:
            self.current = (self.current + direction) % len(self.hits)
        return self.hits[self.current]

    def renew(self, hits: list[Hit]) -> None:
        """The text changed (an answer streamed on): the same match stays current, or the
        first one after where it was."""
        old = self.hit
        self.hits = hits
        if old is None or not hits:
            self.current = None
            return
        at = bisect_left(hits, old)
        self.current = at if at < len(hits) else len(hits) - 1

    def from_(self, place: Hit) -> Hit | None:
        """Make the first match at or after `place` current (the view's top, when a search
        starts): a pager searches forward from where the reader is."""
        if not self.hits:
            self.current = None
            return None
        at = bisect_left(self.hits, place)
        self.current = at if at < len(self.hits) else 0
        return self.hits[self.current]

    def label(self) -> str:
        """`3 of 17`, `17 matches` before the first jump, or `no matches`."""
        if not self.hits:
            return "no matches"
        if self.current is None:
            return f"{len(self.hits)} match{'es' if len(self.hits) != 1 else ''}"
        return f"{self.current + 1} of {len(self.hits)}"


@dataclass(frozen=True, slots=True)
class Span:
    """Part of a match on one line: characters `start` to `end`, of match number `match`."""

    start: int
    end: int
    match: int


def line_spans(lines: Sequence[str], pattern: re.Pattern[str]) -> dict[int, list[Span]]:
    """Where the matches are in drawn lines, by line: a match wrapped over lines is one match,
    in a span on each."""
    text = "\n".join(lines)
    starts: list[int] = []
    at = 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    spans: dict[int, list[Span]] = {}
    for number, match in enumerate(pattern.finditer(text)):
        start, end = match.span()
        y = bisect_left(starts, start + 1) - 1
        while start < end and y < len(lines):
            line_end = starts[y] + len(lines[y])
            piece_end = min(end, line_end)
            if piece_end > start:
                spans.setdefault(y, []).append(
                    Span(start - starts[y], piece_end - starts[y], number)
                )
            y += 1
            start = line_end + 1
            while start < end and text[start].isspace():  # a wrapped line's indent is no match
                start += 1
    return spans


__all__ = ["Found", "Hit", "Span", "find_hits", "find_pattern", "line_spans"]
