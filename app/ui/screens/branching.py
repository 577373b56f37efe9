"""Branches in the chat: select a message (Alt+Up / Alt+Down or a click), then `e` edits that
prompt or `r` regenerates that answer as a new branch beside the original, and `[` / `]` switch
between a message's branches; Esc goes back to the prompt.

The history holds the tree (app/store/branches.py), so every step here is a write followed by
drawing the chosen path the history now holds, exactly as a reopened conversation is drawn; what
is sent next is that path only. The selected widget is matched to its stored message from the
end of the transcript (app/ui/widgets/branch_marker.py). Nothing runs while an answer streams
(the stream would be cut, and what the user typed could be replaced): the user is told to stop
it first, and nothing typed or stored is touched.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar, Literal

from textual.binding import Binding, BindingType
from textual.widget import Widget

from app.providers.attachments import AttachmentError
from app.ui.screens.attaching import Attaching
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.branch_marker import (
    mark,
    marker_of,
    message_widgets,
    pair_from_end,
    shown_messages,
)
from app.ui.widgets.chat_pane import ChatPane
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.user_message import UserMessage
from app.wire.attachment import Attachment

if TYPE_CHECKING:
    from app.store.records import StoredConversation, StoredMessage

EDIT_TITLE = "editing a prompt · Enter sends it as a new branch · Esc cancels"
STILL_ANSWERING = "Still answering — press Esc to stop it first, then {what}."
NOTHING_SELECTED = "Select a message first: alt+up / alt+down, or click it."
NOT_STORED = "Branches are kept in the history, which does not hold this conversation."

BRANCH_BINDINGS: list[BindingType] = [
    Binding("alt+up", "select_message(-1)", "select earlier", show=False, priority=True),
    Binding("alt+down", "select_message(1)", "select later", show=False, priority=True),
    Binding("e", "edit_selected", "edit", tooltip="the selected prompt, as a new branch"),
    Binding("r", "regenerate_selected", "regenerate", tooltip="the selected answer, anew"),
    Binding(
        "left_square_bracket",
        "switch_branch(-1)",
        "‹ branch",
        key_display="[",
        tooltip="the selected message's previous branch",
    ),
    Binding(
        "right_square_bracket",
        "switch_branch(1)",
        "branch ›",
        key_display="]",
        tooltip="its next branch",
    ),
]
# First among the screen's Esc bindings: with a message selected, Esc goes back to the prompt.
LEAVE_SELECTION = Binding(
    "escape", "leave_selection", "back", priority=True, tooltip="to the prompt"
)
CANCEL_BRANCH_EDIT = Binding(
    "escape", "cancel_branch_edit", "cancel edit", priority=True, tooltip="of the prompt"
)
SELECTED_ACTIONS = frozenset(
    {"edit_selected", "regenerate_selected", "switch_branch", "leave_selection"}
)


@dataclass(slots=True)
class BranchEdit:
    """A prompt being edited in the input: sent, it becomes a sibling of `target`."""

    conversation: StoredConversation
    target: StoredMessage
    draft: str  # what the input held before, given back afterwards


class ChatBranches:
    """The selection and the branch being edited for one chat pane and its prompt."""

    def __init__(
        self, pane: ChatPane, prompt: PromptInput, attaching: Attaching | None = None
    ) -> None:
        """`attaching`: the screen's chips; an edited prompt's files are given back there
        (None: a screen without chips, where an edit is sent with the files it had)."""
        self.pane = pane
        self.prompt = prompt
        self.attaching = attaching
        self.selected: Widget | None = None
        self.edit: BranchEdit | None = None

    def _notify(self, text: str, severity: Literal["information", "warning"] = "warning") -> None:
        self.pane.app.notify(text, severity=severity, markup=False)

    # -- selecting -------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        widget = self.selected
        return widget is not None and widget.parent is self.pane.transcript

    def step(self, direction: int) -> None:
        """Alt+Up / Alt+Down: the message above or below; below the last, back to the prompt."""
        # not what is out of sight (a blind comparison's earlier rounds)
        widgets = [w for w in message_widgets(self.pane.transcript) if w.display]
        if not widgets:
            self._notify("There is no message to select yet.", "information")
            return
        if not self.active or self.selected not in widgets:
            if direction > 0:
                return  # already at the prompt
            self.select(widgets[-1])
            return
        assert self.selected is not None
        index = widgets.index(self.selected) + direction
        if index >= len(widgets):
            self.leave()
            return
        self.select(widgets[max(index, 0)])

    def select(self, widget: Widget) -> None:
        self._unmark()
        self.selected = widget
        widget.add_class("-selected")
        marker = marker_of(self.pane.transcript, widget)
        if marker is not None:
            marker.show_hint(True)
        transcript = self.pane.transcript
        transcript.hold()  # the reader looks back: the view stays where it is
        if transcript.is_anchored:
            transcript.release_anchor()  # else the view is held at the end
        # After the next refresh: a branch just drawn is laid out by then.
        transcript.call_after_refresh(self._bring_into_view, widget, marker)
        self.pane.transcript.focus()  # e, r, [ and ] are keys now, not typing
        self.pane.screen.refresh_bindings()

    @staticmethod
    def _bring_into_view(widget: Widget, marker: Widget | None) -> None:
        widget.scroll_visible(animate=False)
        if marker is not None:
            marker.scroll_visible(animate=False)  # last: a tall answer's marker stays in view

    def leave(self) -> None:
        """Back to the prompt, whatever it held."""
        self._unmark()
        self.selected = None
        self.prompt.focus()
        self.pane.screen.refresh_bindings()

    def prompt_focused(self) -> None:
        """The prompt got the focus (a click, Tab): typing goes there, nothing is selected."""
        if self.selected is not None:
            self._unmark()
            self.selected = None
            self.pane.screen.refresh_bindings()

    def forget(self) -> None:
        """A new chat: nothing is selected or edited any more (the input keeps its text)."""
        self._unmark()
        self.selected = None
        if self.edit is not None:
            self.edit = None
            self.prompt.border_title = None

    def _unmark(self) -> None:
        old = self.selected
        if old is None:
            return
        old.remove_class("-selected")
        marker = marker_of(self.pane.transcript, old)
        if marker is not None:
            marker.show_hint(False)

    def clicked(self, widget: Widget) -> None:
        """A click on a message selects it (the widget clicked or the message holding it)."""
        node: Widget | None = widget
        while node is not None and node.parent is not self.pane.transcript:
            parent = node.parent
            node = parent if isinstance(parent, Widget) else None
        if isinstance(node, UserMessage | AssistantTurn):
            self.select(node)

    # -- finding the selected message in the history -----------------------------------------

    async def _resolve(self, what: str) -> tuple[StoredConversation, int] | None:
        """The stored conversation and the selected message's place in its chosen path, or
        None (having said why)."""
        if self.pane.streaming:
            self._notify(STILL_ANSWERING.format(what=what))
            return None
        widget = self.selected
        if widget is None or not self.active:
            self._notify(NOTHING_SELECTED)
            return None
        stored = await self.stored_view()
        if stored is None:
            self._notify(NOT_STORED)
            return None
        pairs = pair_from_end(
            message_widgets(self.pane.transcript),
            shown_messages(stored.messages, self.pane.history.pane),
        )
        found = next((m for w, m in pairs if w is widget), None)
        if found is None:
            self._notify(NOT_STORED)
            return None
        return stored, stored.messages.index(found)

    # -- edit, regenerate, switch ------------------------------------------------------------

    async def start_edit(self) -> None:
        """`e`: the selected prompt goes into the input, its files into the chips (one can be
        removed, another attached); what they held is kept for later."""
        if isinstance(self.selected, AssistantTurn):
            self._notify("That is an answer: r regenerates it; e edits a prompt.")
            return
        found = await self._resolve("edit")
        if found is None:
            return
        stored, index = found
        target = stored.messages[index]
        draft = self.edit.draft if self.edit is not None else self.prompt.text  # one edit at a time
        self.edit = BranchEdit(stored, target, draft)
        self.leave()
        if self.attaching is not None:
            await self.attaching.edit(target.text, target.attachments)
        self.prompt.load_text(target.text)
        self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.border_title = EDIT_TITLE
        self.pane.screen.refresh_bindings()

    async def cancel_edit(self) -> None:
        """Esc while editing: the input and the chips get back what they held before."""
        edit, self.edit = self.edit, None
        self.prompt.border_title = None
        if edit is not None:
            self.prompt.load_text(edit.draft)
            self.prompt.move_cursor(self.prompt.document.end)
            if self.attaching is not None:
                await self.attaching.cancel()
        self.pane.screen.refresh_bindings()

    async def send_edit(self, text: str) -> None:
        """Enter while editing: the new prompt is stored beside the one edited, the chosen
        path (now through it) is drawn, and it is answered."""
        edit = self.edit
        if edit is None:
            return
        if self.pane.streaming:
            self.prompt.load_text(text)  # nothing typed is lost
            self._notify(STILL_ANSWERING.format(what="send the edit"))
            return
        if self.pane.history.record.conv_id != edit.conversation.id:
            self.edit = None  # another conversation is shown now: the edit is a new prompt
            self.prompt.border_title = None
            self.prompt.load_text(text)  # with its chips, as they are
            self._notify("The conversation changed; the edited prompt is left in the input.")
            self.pane.screen.refresh_bindings()
            return
        attachments = edit.target.attachments
        typed = text
        if self.attaching is not None:
            try:
                outgoing = await self.attaching.for_send(typed, self.pane.provider)
            except AttachmentError as exc:  # nothing sent: the edit, its text and chips stay
                self.prompt.load_text(typed)
                self.prompt.move_cursor(self.prompt.document.end)
                self.pane.app.notify(str(exc), severity="error", markup=False)
                return
            text, attachments = outgoing.text, outgoing.attachments
        self.edit = None
        self.prompt.border_title = None
        self.store_prompt(text, edit.target, attachments)
        stored = await self.stored_view()
        if stored is None:
            self.prompt.load_text(typed)
            self._notify(NOT_STORED)
            return
        await self._show(stored, answering=True)
        await self.pane.answer()
        if self.attaching is not None:
            await self.attaching.cancel()  # the draft comes back with the chips it had
        self.prompt.load_text(edit.draft)
        self.prompt.move_cursor(self.prompt.document.end)
        self.pane.screen.refresh_bindings()

    async def regenerate(self) -> None:
        """`r`: the selected answer is asked again as a new branch; the old one stays."""
        if isinstance(self.selected, UserMessage):
            self._notify("That is a prompt: e edits it; r regenerates an answer.")
            return
        found = await self._resolve("regenerate")
        if found is None:
            return
        stored, index = found
        target = stored.messages[index]
        self.leave()
        await self._show(replace(stored, messages=stored.messages[:index]), answering=True)
        await self.pane.answer(parent=target.parent_id)
        current = self.pane.current
        if current is not None:
            count = len(target.siblings) + 1
            await mark(self.pane.transcript, current, count, count)
        self.pane.screen.refresh_bindings()

    async def switch(self, direction: int) -> None:
        """`[` / `]`: the selected message's previous or next branch; what follows is that
        branch's own."""
        found = await self._resolve("switch branches")
        if found is None:
            return
        stored, index = found
        target = stored.messages[index]
        siblings = target.siblings
        if len(siblings) < 2:
            self._notify("This message has no other branches.", "information")
            return
        position = siblings.index(target.id) + direction
        if not 0 <= position < len(siblings):
            edge = "first" if direction < 0 else "last"
            self._notify(f"This is the {edge} branch ({position - direction + 1}/{len(siblings)}).")
            return
        chosen = siblings[position]
        self.store_choice(chosen)
        now = await self.stored_view()
        if now is None:
            self._notify(NOT_STORED)
            return
        await self._show(now)
        pairs = pair_from_end(
            message_widgets(self.pane.transcript),
            shown_messages(now.messages, self.pane.history.pane),
        )
        widget = next((w for w, m in pairs if m.id == chosen), None)
        if widget is not None:
            self.select(widget)

    # -- what differs in a comparison's pane (app/ui/screens/compare_branching.py) ----------

    async def stored_view(self) -> StoredConversation | None:
        """The conversation as this pane shows it from the history, once the writes asked
        so far are done; None when the history does not hold it as a tree."""
        stored = await self.pane.history.record.stored()
        return stored if stored is not None and stored.kind == "chat" else None

    def store_prompt(
        self, text: str, target: StoredMessage, attachments: tuple[Attachment, ...]
    ) -> None:
        """An edit of `target` (sent with `attachments`), stored as its sibling."""
        self.pane.history.record.prompt(text, attachments, parent=target.parent_id)

    def store_choice(self, message_id: int) -> None:
        self.pane.history.record.choose(message_id)

    async def _show(self, stored: StoredConversation, *, answering: bool = False) -> None:
        """Draw the chosen path as stored; the next request sends it. `answering`: a new
        answer follows at once, to the path's last prompt (an unfinished answer after it, that
        a retry had followed, is not sent)."""
        await self.pane.show_stored(stored, self.pane.history)
        messages = self.pane.conversation.messages
        while answering and messages and messages[-1].role == "assistant":
            messages.pop()


class BranchKeys:
    """The chat screen's branch keys (mixed into ChatScreen): its actions call ChatBranches."""

    BRANCH_BINDINGS: ClassVar[list[BindingType]] = BRANCH_BINDINGS
    branches: ChatBranches

    def branch_action_applies(self, action: str) -> bool | None:
        """`check_action` for the branch keys; None for an action that is not one of them."""
        if action in SELECTED_ACTIONS:
            return self.branches.active
        if action == "cancel_branch_edit":
            return self.branches.edit is not None
        if action == "select_message":
            return True
        return None

    def action_select_message(self, direction: int) -> None:
        self.branches.step(direction)

    def action_leave_selection(self) -> None:
        self.branches.leave()

    async def action_edit_selected(self) -> None:
        await self.branches.start_edit()

    async def action_regenerate_selected(self) -> None:
        await self.branches.regenerate()

    async def action_switch_branch(self, direction: int) -> None:
        await self.branches.switch(direction)

    async def action_cancel_branch_edit(self) -> None:
        await self.branches.cancel_edit()


__all__ = [
    "BRANCH_BINDINGS",
    "CANCEL_BRANCH_EDIT",
    "EDIT_TITLE",
    "LEAVE_SELECTION",
    "STILL_ANSWERING",
    "BranchEdit",
    "BranchKeys",
    "ChatBranches",
]
