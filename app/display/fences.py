"""Know what the streamed Markdown ends in — an open code fence, a top-level list — and how long
it is, to decide how often to append it.

The segment an answer streams into is rendered again on every append, a code block highlighted
in full. Appending to a long block at the render clock's full rate would therefore cost time
proportional to its length on every tick. A fence that starts at the margin is cut into
segments of FENCE_CUT_LINES lines (app/display/segments.py), so only its last part counts; one
that cannot be cut (inside a list or a quote) is paced: `FencePacer` spaces appends out in
proportion to the block's length, which keeps the cost per token roughly constant however long
the block gets. Plain text always flushes on the next tick, and
the caller always flushes everything when the stream ends (finish, stop or error).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})(.*)$")
_LIST_ITEM = re.compile(r"^ {0,3}([-*+]|\d{1,9}[.)])(\s|$)")

MIN_INTERVAL = 0.05  # seconds: the render clock's own period
MAX_INTERVAL = 1.0  # a block is never held back longer than this
FENCE_SECONDS_PER_LINE = 0.0025  # about ten times the measured highlight cost of one line
LIST_SECONDS_PER_LINE = 0.02  # a list line is a few widgets to mount again
SHORT_FENCE_LINES = 20  # below this a fence is cheap enough to flush every tick
SHORT_LIST_LINES = 3
FENCE_CUT_LINES = 24  # a fence at the margin is cut into segments of about this many lines


@dataclass(slots=True)
class FenceTracker:
    """Feed text as it arrives. `open_lines`: the open fence's length in lines, or None;
    `list_lines`: the length of the top-level list the text ends in, or None."""

    _partial: str = ""
    _marker: str = ""  # the opening run of ` or ~ while a fence is open
    open_lines: int | None = None
    list_lines: int | None = None
    opener: str = ""  # the open fence's first line, when it starts at the margin (else "")

    def feed(self, text: str) -> None:
        if "\n" not in text:
            self._partial += text
            return
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._line(line)

    def closes(self, line: str) -> bool:
        """Whether `line` would close the open fence (indented four spaces or more, it is
        code inside it)."""
        match = _FENCE.match(line)
        return bool(
            self._marker
            and not line.startswith(("    ", "\t"))
            and match
            and match.group(1)[0] == self._marker[0]
            and len(match.group(1)) >= len(self._marker)
            and not match.group(2).strip()
        )

    def _line(self, line: str) -> None:
        match = _FENCE.match(line)
        if self._marker:
            if self.closes(line):
                self._marker, self.open_lines, self.opener = "", None, ""
            else:
                self.open_lines = (self.open_lines or 0) + 1
            self._list_line(line, in_fence=True)
            return
        if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            self._marker, self.open_lines = match.group(1), 0
            self.opener = line if line.startswith(self._marker) else ""
        self._list_line(line, in_fence=False)

    def _list_line(self, line: str, *, in_fence: bool) -> None:
        if self.list_lines is not None:
            continues = in_fence or not line.strip() or line[0] in " \t"
            if continues or _LIST_ITEM.match(line):
                self.list_lines += 1
                return
            self.list_lines = None
        if not in_fence and _LIST_ITEM.match(line):
            self.list_lines = 1


def flush_interval(tracker: FenceTracker) -> float:
    """How long appends of the current tail may be held back."""
    interval = 0.0
    fence = tracker.open_lines
    if fence is not None and tracker.opener:  # cut into segments: only the last part re-renders
        fence = min(fence, FENCE_CUT_LINES)
    if fence is not None and fence >= SHORT_FENCE_LINES:
        interval = fence * FENCE_SECONDS_PER_LINE
    items = tracker.list_lines
    if items is not None and items >= SHORT_LIST_LINES:
        interval = max(interval, items * LIST_SECONDS_PER_LINE)
    return 0.0 if interval == 0.0 else min(MAX_INTERVAL, max(MIN_INTERVAL, interval))


@dataclass(slots=True)
class FencePacer:
    """Decides, tick by tick, whether pending answer text should be appended now."""

    tracker: FenceTracker
    last_flush: float = float("-inf")

    def due(self, now: float) -> bool:
        return now - self.last_flush >= flush_interval(self.tracker)

    def flushed(self, now: float) -> None:
        self.last_flush = now


def new_pacer() -> FencePacer:
    return FencePacer(FenceTracker())


__all__ = ["FENCE_CUT_LINES", "FencePacer", "FenceTracker", "flush_interval", "new_pacer"]
