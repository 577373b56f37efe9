"""What the app does with its history: tell the user at start what happened to the file, open
the history screen, reopen a conversation (`--continue` too), and export one.

A flow: the app holds one `Conversations` over itself (as a `ChatHost`) and calls it from its
`on_…` handlers of the screens' messages, so the app stays a thin shell; every store call goes
through `History`.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING

from app.store.errors import ConversationNotFound, StoreError
from app.store.session import ConversationRecord, History, PaneHistory
from app.ui.flows.host import ChatHost

if TYPE_CHECKING:
    from app.store.export import ExportFormat
    from app.store.records import StoredConversation


class Conversations:
    def __init__(self, app: ChatHost, history: History) -> None:
        self.app = app
        self.history = history
        history.on_problem = self._problem

    def _problem(self, message: str) -> None:
        if threading.current_thread() is not threading.main_thread():  # a read in a thread
            self.app.call_from_thread(self._problem, message)
            return
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
        from app.ui.screens.history import HistoryScreen  # not on the start-up path

        screen = HistoryScreen(self.history)  # it posts HistoryScreen.Deleted
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
        from app.ui.flows.batching import open_stored_batch
        from app.ui.flows.comparing import leave_comparison, open_stored_comparison

        # Read in a thread: a long conversation's rows take a while (6,000 messages: ~0.3 s,
        # more behind the writer's queue), and the screen keeps answering meanwhile.
        stored = await asyncio.to_thread(self.history.load, conv_id)
        if stored is None:
            self.app.notify("That conversation is no longer in the history.", severity="warning")
            return
        if stored.kind == "compare":
            await open_stored_comparison(self.app, stored)
            return
        if stored.kind == "batch":  # its run's table, not a chat
            await open_stored_batch(self.app, stored)
            return
        await leave_comparison(self.app)  # a chat reopens in the chat screen
        await self._switch_to_stored_provider(stored)
        pane = self.app.pane
        await pane.show_stored(stored, PaneHistory(self.history.resume(stored), pane.history.pane))
        self.app.show_title()  # its system prompt is the stored one

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

    def deleted(self, conv_id: int) -> None:
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


__all__ = ["Conversations"]
