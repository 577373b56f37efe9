"""The reasoning pane: a Collapsible that streams the model's thinking.

While open it appends to its Markdown body; while collapsed it only buffers and shows a one-line
tail of the latest thinking, and renders the buffer when it is opened again, so a collapsed pane
costs almost nothing per token. The title carries the size and duration of the reasoning.
"""

from __future__ import annotations

import re

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Collapsible, Static

from app.display.sanitize import clean, clean_line
from app.display.speed import format_seconds, format_size
from app.ui.widgets.answer import AnswerView

TAIL_CHARS = 200


def last_line(text: str, width: int = TAIL_CHARS) -> str:
    """The end of the last non-empty line, cut to `width` cells from the left (it is the
    newest words that matter in a live tail), at the start of a word: a tail that begins
    "…ning the question" reads as a typo."""
    for line in reversed(text[-TAIL_CHARS * 4 :].splitlines()):
        line = clean_line(line.strip())
        if line:
            return line if len(line) <= width else "…" + _words_from(line[-(width - 1) :], line)
    return ""


def _words_from(end: str, line: str) -> str:
    """`end` (the last characters of `line`) without the part of a word the cut left."""
    if line[-len(end) - 1].isspace():
        return end  # the cut fell between words
    space = next((i for i, char in enumerate(end) if char.isspace()), -1)
    return end if space < 0 else end[space:].lstrip()


class ReasoningPane(Collapsible):
    DEFAULT_CSS = """
    ReasoningPane {
        display: none;
        background: $surface;
        border-top: none;
        padding: 0 0 0 1;
        margin: 0 0 1 0;
        &.-has-reasoning { display: block; }
        Contents { padding: 0 0 0 2; }
        CollapsibleTitle { color: $text-muted; }
        .reasoning--tail {
            color: $text-muted;
            text-style: italic;
            padding: 0 0 0 3;
            height: 1;
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
        &.-open .reasoning--tail { display: none; }
        StreamedMarkdown { color: $text-muted; padding: 0; }
    }
    """

    def __init__(self, *, collapsed: bool = False) -> None:
        self._body = AnswerView(classes="reasoning--body", lazy=False)
        self._ended = False  # the turn is over: release what the segment cutter holds back
        super().__init__(self._body, title="Reasoning", collapsed=collapsed)
        self._tail = Static("", markup=False, classes="reasoning--tail")
        self._pending: list[str] = []
        self._last_text = ""
        self.chars = 0
        self.set_class(not collapsed, "-open")

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._tail
        with self.Contents():
            yield from self._contents_list

    def _watch_collapsed(self, collapsed: bool) -> None:
        super()._watch_collapsed(collapsed)
        self.set_class(not collapsed, "-open")

    def add(self, text: str) -> None:
        """Buffer new reasoning text; `render_pending` draws it on the next tick."""
        if text:
            safe = clean(text)
            self._pending.append(safe)
            self.chars += len(safe)
            self._last_text = (self._last_text + safe)[-TAIL_CHARS * 4 :]
            self.add_class("-has-reasoning")

    def set_heading(self, seconds: float | None, *, live: bool) -> None:
        label = "Reasoning…" if live else "Reasoning"
        took = "" if seconds is None else f" · {format_seconds(seconds)}"
        self.title = f"{label} · {format_size(self.chars)}{took}"

    async def render_pending(self, *, final: bool = False) -> None:
        """Append buffered text while open; only the tail while collapsed. `final`: the turn
        is over, nothing more will come."""
        self._ended = self._ended or final
        if self.collapsed:
            width = max(10, self._tail.content_size.width or TAIL_CHARS)
            self._tail.update(Content(last_line(self._last_text, width)), layout=False)
            return
        if self._pending or self._ended:
            text = "".join(self._pending)
            self._pending.clear()
            await self._body.append(text, final=self._ended)

    async def _on_collapsible_expanded(self, event: Collapsible.Expanded) -> None:
        if event.collapsible is self:
            await self.render_pending()

    @property
    def body_text(self) -> str:
        return self._body.source

    @property
    def body(self) -> AnswerView:
        return self._body

    def find_parts(self) -> list[str]:
        """The reasoning as the find bar searches it: while open, each drawn segment's text (a
        match is then shown in its own segment), and what is still to be drawn; while
        collapsed, the whole text as one piece (nothing is drawn to show a match in)."""
        if not self.chars:
            return []
        pending = "".join(self._pending)
        if self.collapsed:
            return [self._body.source + pending]
        return [*self._body.sources, pending] if pending else list(self._body.sources)

    def find_count(self) -> int:
        """How many pieces `find_parts` gives, without joining them."""
        if not self.chars:
            return 0
        return 1 if self.collapsed else len(self._body.sources) + bool(self._pending)

    def show_found(
        self, pattern: re.Pattern[str] | None, current: tuple[int, int] | None = None
    ) -> None:
        """Highlight the matches in the drawn segments; `current` (segment, match in it)
        counts segments as `find_parts` does while open."""
        self._body.show_found(pattern, None if self.collapsed else current)


__all__ = ["ReasoningPane", "last_line"]
