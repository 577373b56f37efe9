"""The history screen: saved conversations newest first, a search that filters as you type, and
open, rename and delete (after a confirmation).

It dismisses with the id of the conversation to open (or None), and the app decides how to open
it: a chat goes into the chat pane, a comparison back into a compare screen. A deletion goes up
as `HistoryScreen.Deleted` (the app starts a new chat if the open one went). The palette over
this screen offers the chat's commands: it lies over the chat and has none of its own. Every
store call goes through `History`, which turns a broken file into a message instead of an
exception.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, OptionList, Static

from app.display.sanitize import clean_line
from app.store import ConversationSummary
from app.store.session import History
from app.ui.screens.chat import ChatCommands
from app.ui.widgets.history_dialogs import ConfirmDelete, RenameDialog
from app.ui.widgets.history_list import HistoryList

SEARCH_DELAY = 0.12  # seconds of typing pause before the search runs
OPEN_HINT = " · ↓ to choose · Enter opens"  # fits 80 columns


class HistoryScreen(Screen[int | None]):
    DEFAULT_CSS = """
    HistoryScreen {
        layout: vertical;
        background: $background;
        #history-search { margin: 0 1; }
        #history-info { color: $text-muted; padding: 0 2; height: 1; }
        #history-info.-problem { color: $text-error; height: auto; }
    }
    """

    COMMANDS: ClassVar[set[Any]] = {ChatCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "back"),
        Binding("down", "focus_list", "results", show=False),  # the Input's own down hides it
        Binding("slash", "focus_search", "search"),
    ]

    class Deleted(Message):
        """The conversation `conv_id` was deleted from the history."""

        def __init__(self, conv_id: int) -> None:
            super().__init__()
            self.conv_id = conv_id

    def __init__(self, history: History) -> None:
        super().__init__()
        self.history = history
        self.search = Input(placeholder="Search prompts, answers and titles…", id="history-search")
        self.info = Static("", id="history-info", markup=False)
        self.results = HistoryList(id="history-list")
        self.query_text = ""

    def compose(self) -> ComposeResult:
        yield Header(icon="◧")
        yield self.search
        yield self.info
        yield self.results
        yield Footer()

    def on_mount(self) -> None:
        self.title = "History"
        self.refresh_list()
        self.search.focus()

    # -- the list ------------------------------------------------------------------------------

    def refresh_list(self) -> None:
        found = self.history.conversations(self.query_text)
        self.results.show(found, self.query_text)
        self._describe(found)
        self.refresh_bindings()

    def _describe(self, found: list[ConversationSummary]) -> None:
        problem = self.history.problem if not self.history.enabled else None
        self.info.set_class(problem is not None, "-problem")
        if problem is not None:
            text = f"History is off in this session. {problem}"
        elif self.query_text.strip():
            count = len(found)
            text = f"{count} conversation{'s' if count != 1 else ''} found"
            if count:
                text += OPEN_HINT
        elif found:
            count = len(found)
            text = f"{count} conversation{'s' if count != 1 else ''} · newest first"
            text += OPEN_HINT
        else:
            text = "No conversations yet: every chat is saved here as you go."
        self.info.update(Content(clean_line(text) if problem is None else text))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "focus_search":
            return not self.search.has_focus
        return True

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._search(event.value)

    @work(group="history-search", exclusive=True, exit_on_error=False)
    async def _search(self, query: str) -> None:
        await asyncio.sleep(SEARCH_DELAY)  # a newer keystroke cancels this one first
        self.query_text = query
        self.refresh_list()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_text = event.value  # Enter right after typing: search now, then open
        self.refresh_list()
        self._open(self.results.highlighted_summary)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._open(self.results.highlighted_summary)

    def _open(self, summary: ConversationSummary | None) -> None:
        if summary is not None:
            if summary.hit_id is not None and self.query_text.strip():
                self.history.reveal(summary.hit_id, self.query_text)  # a hit on another branch
            self.dismiss(summary.id)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_focus_list(self) -> None:
        if self.results.option_count:
            self.results.focus()

    def action_focus_search(self) -> None:
        self.search.focus()

    # -- rename and delete ---------------------------------------------------------------------

    def on_history_list_rename_requested(self, event: HistoryList.RenameRequested) -> None:
        summary = event.summary

        def renamed(title: str | None) -> None:
            if title is None:
                return
            if self.history.rename(summary.id, title):
                self.notify("Renamed.", timeout=2)
            self.refresh_list()

        self.app.push_screen(RenameDialog(summary.title), renamed)

    def on_history_list_delete_requested(self, event: HistoryList.DeleteRequested) -> None:
        summary = event.summary

        def confirmed(delete: bool | None) -> None:
            if not delete:
                return
            if self.history.delete(summary.id):
                title = clean_line(summary.title) or "(empty)"
                self.notify(f"Deleted “{title}”.", timeout=3, markup=False)
                self.post_message(self.Deleted(summary.id))
            self.refresh_list()

        self.app.push_screen(ConfirmDelete(summary.title, summary.message_count), confirmed)


__all__ = ["HistoryScreen"]
