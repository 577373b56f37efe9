"""The list of saved conversations: title, when, which providers, and where a search matched.

Titles, snippets and provider names are stored user and model text, so each row is built as
literal Content (never markup) from `clean_line`d strings. An OptionList draws only the rows in
view, so a long history stays cheap.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from app.display.plain_text import plain_snippet
from app.display.sanitize import clean_line
from app.store import ConversationSummary

SNIPPET_CHARS = 100  # one line in most terminals


def when(timestamp: float, now: float) -> str:
    """Time of day for today, the date otherwise."""
    moment = datetime.fromtimestamp(timestamp).astimezone()
    today = datetime.fromtimestamp(now).astimezone().date()
    if moment.date() == today:
        return f"today {moment:%H:%M}"
    return f"{moment:%Y-%m-%d %H:%M}"


def row_content(summary: ConversationSummary, query: str, now: float) -> Content:
    """Title and facts, one row each (cut with an ellipsis, never wrapped: HistoryList's CSS),
    and, for a search, the snippet where it matched. The facts name the state of a one-prompt
    attempt that did not complete, so a failed try is told from a conversation at a glance."""
    title = Content.styled(clean_line(summary.title) or "(empty)", "bold")
    count = summary.message_count
    facts = [Content(f"#{summary.id}"), Content(when(summary.updated_at, now))]
    if summary.outcome:  # before the names, which may be cut at the edge
        facts.append(Content.styled(clean_line(summary.outcome), "$text-warning"))
    facts.append(Content(clean_line(", ".join(summary.providers)) or "no answer yet"))
    facts.append(Content(f"{count} message{'s' if count != 1 else ''}"))
    if summary.kind == "compare":
        facts.append(Content("comparison"))
    elif summary.kind == "batch":  # a whole batch run: opening it opens its table
        asked = len(summary.providers)
        plural = "s" if asked != 1 else ""
        facts.append(Content(f"batch · {asked} provider{plural}" if asked else "batch"))
    lines = [title, Content(" · ").join(facts).stylize_before("$text-muted")]
    if summary.snippet:
        snippet = plain_snippet(clean_line(summary.snippet))
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[: SNIPPET_CHARS - 1] + "…"
        lines.append(highlight_words(snippet, query))
    return Content("\n").join(lines)


def highlight_words(text: str, query: str) -> Content:
    content = Content.styled(text, "italic $text-muted")
    for word in query.split():
        for found in re.finditer(re.escape(word), text, re.IGNORECASE):
            content = content.stylize("bold not italic $text-accent", found.start(), found.end())
    return content


class HistoryList(OptionList):
    """Enter opens (OptionList.OptionSelected); r renames and d deletes the highlighted row."""

    DEFAULT_CSS = """
    HistoryList {
        height: 1fr;
        border: none;
        padding: 0 1;
        background: $background;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        & > .option-list--option { padding: 0 1; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "open"),
        Binding("r", "rename", "rename"),
        Binding("d,delete", "delete", "delete", key_display="d"),
    ]

    @dataclass
    class RenameRequested(Message):
        summary: ConversationSummary

    @dataclass
    class DeleteRequested(Message):
        summary: ConversationSummary

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.summaries: list[ConversationSummary] = []

    def show(self, summaries: list[ConversationSummary], query: str = "") -> None:
        """Replace the rows, keeping the highlighted conversation where it is still listed."""
        kept = self.highlighted_summary
        self.summaries = summaries
        now = time.time()
        rows: list[Option | None] = []
        for summary in summaries:
            rows += [Option(row_content(summary, query, now), id=str(summary.id)), None]
        self.set_options(rows[:-1])  # None: a rule between conversations
        if not summaries:
            return
        ids = [s.id for s in summaries]
        self.highlighted = ids.index(kept.id) if kept is not None and kept.id in ids else 0

    @property
    def highlighted_summary(self) -> ConversationSummary | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self.summaries):
            return None
        return self.summaries[index]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("rename", "delete", "select"):
            return self.highlighted_summary is not None
        return True

    def action_rename(self) -> None:
        summary = self.highlighted_summary
        if summary is not None:
            self.post_message(self.RenameRequested(summary))

    def action_delete(self) -> None:
        summary = self.highlighted_summary
        if summary is not None:
            self.post_message(self.DeleteRequested(summary))


__all__ = ["HistoryList", "highlight_words", "row_content", "when"]
