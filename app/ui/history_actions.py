"""What the app does with its history: tell the user at start what happened to the file, open
the history screen, reopen a conversation (`--continue` too), and export one.

Kept out of app.py so the app stays a thin shell; every store call goes through `History`.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.store import ConversationNotFound, ExportFormat, StoredConversation, StoreError
from app.store.session import ConversationRecord, History, PaneHistory
from app.ui.commands import Choice
from app.ui.compare_actions import leave_comparison
from app.ui.screens.history import HistoryScreen

if TYPE_CHECKING:
    from app.ui.app import TriptychApp

HISTORY_KEY = "ctrl+o"
COMPARE_MODULE = "app.ui.screens.compare"
COMPARE_HOOK = "open_stored_comparison"


class HistoryActions:
    def __init__(self, app: TriptychApp, history: History) -> None:
        self.app = app
        self.history = history
        history.on_problem = self._problem

    def _problem(self, message: str) -> None:
        self.app.notify(message, title="History is off", severity="error", timeout=15, markup=False)

    def announce(self) -> None:
        """Once at start: why history is off, what was recovered, what is missing."""
        for notice in self.history.start_notices():
            title = "History is off" if notice.severity == "error" else "History"
            timeout = 15 if notice.severity == "error" else 8
            self.app.notify(
                notice.text, title=title, severity=notice.severity, timeout=timeout, markup=False
            )
        self.history.check_in_background()  # damaged pages: history off, said when found

    # -- the screen and reopening ----------------------------------------------------------------

    def show(self) -> None:
        screen = HistoryScreen(self.history, on_deleted=self._deleted)
        self.app.push_screen(screen, self.open)

    def open(self, conv_id: int | None) -> None:
        if conv_id is not None:
            self.app.run_worker(self.reopen(conv_id), group="switch", exit_on_error=False)

    async def continue_last(self) -> None:
        """`triptych --continue`: the most recently active conversation, if there is one."""
        conv_id = self.history.last_conversation_id()
        if conv_id is None:
            if self.history.enabled:
                self.app.notify("No earlier conversation to continue; starting a new one.")
            return
        await self.reopen(conv_id)

    async def reopen(self, conv_id: int) -> None:
        stored = self.history.load(conv_id)
        if stored is None:
            self.app.notify("That conversation is no longer in the history.", severity="warning")
            return
        if stored.kind == "compare":
            await self._reopen_comparison(stored)
            return
        await leave_comparison(self.app)  # a chat reopens in the chat screen
        await self._switch_to_stored_provider(stored)
        pane = self.app.pane
        await pane.show_stored(stored, PaneHistory(self.history.resume(stored), pane.history.pane))

    async def _switch_to_stored_provider(self, stored: StoredConversation) -> None:
        """Carry on with the provider and model that answered last, if still configured."""
        panes = stored.panes
        if not panes:
            return
        last = panes[0]
        pane = self.app.pane
        provider = self.app.config.providers.get(last.provider)
        if provider is None:
            self.app.notify(
                f"This conversation was answered by {last.provider}, which is not configured; "
                f"it continues with {pane.provider.name}.",
                severity="warning",
                markup=False,
            )
            return
        if provider != pane.provider or last.model != pane.model:
            await self.app.use_provider(provider, last.model or provider.model)

    async def _reopen_comparison(self, stored: StoredConversation) -> None:
        """Comparisons reopen through the compare screen's own hook, looked up at call time
        (`open_stored_comparison(app, stored)` in app/ui/screens/compare.py)."""
        try:
            module = importlib.import_module(COMPARE_MODULE)
        except ImportError:
            module = None
        opener: Callable[..., object] | None = getattr(module, COMPARE_HOOK, None)
        if opener is None:
            self.app.notify(
                f"#{stored.id} is a comparison; reopening comparisons is not available in this "
                f"build yet. `triptych export {stored.id}` prints it.",
                severity="warning",
                markup=False,
            )
            return
        result = opener(self.app, stored)
        if inspect.isawaitable(result):
            await result

    def _deleted(self, conv_id: int) -> None:
        """The open conversation was deleted: what is on screen no longer exists anywhere."""
        if self.app.pane.history.record.conv_id == conv_id:
            self.app.action_new_chat()

    # -- export ----------------------------------------------------------------------------------

    def export(self, fmt: ExportFormat, record: ConversationRecord | None = None) -> None:
        """Export the chat's conversation, or `record`'s (a comparison's)."""
        conv_id = (record if record is not None else self.app.pane.history.record).conv_id
        if not self.history.enabled:
            self.app.notify(
                "History is off in this session: nothing to export.", severity="warning"
            )
            return
        if conv_id is None:
            self.app.notify("Nothing to export yet: send a prompt first.", severity="warning")
            return
        try:
            path = self.history.export(conv_id, fmt)
        except (ConversationNotFound, StoreError, OSError) as exc:
            self.app.notify(f"Export failed: {exc}", severity="error", markup=False)
            return
        self.app.notify(f"Exported to {path}", title="Export", timeout=10, markup=False)

    def palette_choices(self) -> list[Choice]:
        where = "exports/ in the data dir"
        choices = [
            Choice("History…", self.show, f"{HISTORY_KEY}: search, reopen, rename, delete"),
            Choice("Export conversation as Markdown", lambda: self.export("md"), where),
            Choice("Export conversation as JSON", lambda: self.export("json"), where),
        ]
        pane = self.app.pane
        if pane.can_retry:
            help_text = "ctrl+t: the same prompt as a new request"
            choices.append(Choice("Retry the last prompt", lambda: self._chat("retry"), help_text))
        if not pane.streaming and pane.last_prompt() is not None:
            help_text = "ctrl+l: sending it replaces the last exchange"
            choices.append(
                Choice("Edit the last prompt", lambda: self._chat("edit_last_prompt"), help_text)
            )
        return choices

    def _chat(self, action: str) -> None:
        """Run an action of the chat screen holding the pane (the palette has closed by now)."""
        self.app.call_later(self.app.pane.screen.run_action, action)


__all__ = ["HISTORY_KEY", "HistoryActions"]
