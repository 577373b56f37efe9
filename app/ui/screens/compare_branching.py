"""Branches in a comparison: each pane branches on its own, with the chat's keys.

With a pane selected (Alt+←/→, a click, its tab), Alt+Up / Alt+Down or a click selects one of
its messages; `e` edits that prompt in the shared input and Enter sends it in that pane only,
`r` regenerates that pane's answer, `[` / `]` switch that pane's branches; the other panes are
untouched. The steps are the chat's own (ChatBranches, app/ui/screens/branching.py); what
differs is where they are stored: in the pane's own tree of the comparison
(app/store/pane_trees.py), read back as that pane's chosen path. A blind pane stays blind: it is
redrawn by ComparePane.show_stored, which keeps withholding who wrote its answers.

A base class of CompareScreen, so the comparison screen only lists the bindings and calls
`branch_action_applies` and `send_branch_edit`.
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget

from app.store import StoredConversation, StoredMessage
from app.store.session import ConversationRecord
from app.ui.screens.attaching import Attaching
from app.ui.screens.branching import BranchKeys, ChatBranches
from app.ui.widgets.compare_pane import ComparePane
from app.ui.widgets.prompt import PromptInput
from app.wire.attachment import Attachment


class PaneBranches(ChatBranches):
    """One compare pane's selection and edit, stored in that pane's tree."""

    async def stored_view(self) -> StoredConversation | None:
        stored = await self.pane.history.record.stored()
        if stored is None or stored.kind != "compare":
            return None  # a batch's prompt is one run, not a conversation to branch
        return stored.for_pane(self.pane.history.pane)

    def store_prompt(
        self, text: str, target: StoredMessage, attachments: tuple[Attachment, ...]
    ) -> None:
        """The edit is this pane's own prompt: the other panes never see it."""
        self.pane.history.record.prompt(
            text, attachments, parent=target.parent_id, pane=self.pane.history.pane
        )

    def store_choice(self, message_id: int) -> None:
        self.pane.history.record.choose(message_id, pane=self.pane.history.pane)


class CompareBranchKeys(BranchKeys):
    """The branch keys of a comparison: they act on the selected pane's messages."""

    panes: list[ComparePane]
    prompt: PromptInput
    selected: int
    attaching: Attaching  # the comparison's chips (CompareShaping)
    record: ConversationRecord | None

    def __init__(self) -> None:
        super().__init__()
        self._pane_branches: dict[int, PaneBranches] = {}  # id(pane) -> its branches

    def branches_of(self, pane: ComparePane) -> PaneBranches:
        found = self._pane_branches.get(id(pane))
        if found is None or found.pane is not pane:
            found = PaneBranches(pane, self.prompt, self.attaching)  # its files as chips
            self._pane_branches[id(pane)] = found
        return found

    @property
    def branches(self) -> ChatBranches:  # type: ignore[override]
        """The selected pane's."""
        return self.branches_of(self.panes[self.selected % len(self.panes)])

    def _editing(self) -> PaneBranches | None:
        """The pane whose prompt is being edited in the input (one at a time)."""
        return next((b for p in self.panes if (b := self.branches_of(p)).edit is not None), None)

    def branch_action_applies(self, action: str) -> bool | None:
        applies = super().branch_action_applies(action)
        if applies is not None and self.record is not None and self.record.kind == "batch":
            return False  # a batch's prompt is one run of the batch: it does not branch
        if action == "cancel_branch_edit":
            return self._editing() is not None
        return applies

    async def action_cancel_branch_edit(self) -> None:
        editing = self._editing()
        if editing is not None:
            await editing.cancel_edit()

    async def action_edit_selected(self) -> None:
        editing = self._editing()
        if editing is not None and editing is not self.branches:
            await editing.cancel_edit()  # another pane's edit gives the input back first
        await super().action_edit_selected()

    async def send_branch_edit(self, text: str) -> bool:
        """Enter while a pane's prompt is edited: sent in that pane only. False otherwise."""
        editing = self._editing()
        if editing is None:
            return False
        await editing.send_edit(text)
        return True

    def forget_branches(self) -> None:
        """A new comparison: nothing is selected or edited any more (the input keeps its text)."""
        for pane in self.panes:
            self.branches_of(pane).forget()

    def branch_pane_selected(self) -> None:
        """Another pane is selected: a message selected in any other pane is let go."""
        chosen = self.panes[self.selected % len(self.panes)]
        for pane in self.panes:
            if pane is not chosen:
                self.branches_of(pane).prompt_focused()

    def on_click(self, event: events.Click) -> None:
        widget = event.widget
        if widget is None:
            return
        for pane in self.panes:
            if widget in pane.walk_children(Widget):
                self.branches_of(pane).clicked(widget)  # a click on a message selects it
                return

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if event.widget is self.prompt:
            for pane in self.panes:
                self.branches_of(pane).prompt_focused()  # typing again: selections end


__all__ = ["CompareBranchKeys", "PaneBranches"]
