"""The chat screen: header, one conversation pane, the prompt and the footer.

Esc is a priority binding here (not on the App) so it reaches us even while the prompt has focus,
and `check_action` lets it fall through when nothing is streaming; the command palette is its
own screen and keeps its own Esc.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Header

from app.ui.widgets.chat_pane import ChatPane
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.welcome import Welcome, WelcomeFacts
from app.wire.conversation import Conversation


class ChatScreen(Screen[None]):
    KEY_GROUP: ClassVar[str] = "Chat"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop_stream", "stop", priority=True, tooltip="what arrived stays"),
        Binding(
            "escape", "cancel_edit", "cancel edit", priority=True, tooltip="of the last prompt"
        ),
        Binding("ctrl+t", "retry", "retry", tooltip="after a stopped, cut or failed answer"),
        Binding("ctrl+r", "toggle_reasoning", "reasoning", tooltip="open or close every pane"),
        Binding("ctrl+n", "new_chat", "new chat", tooltip="this one stays in the history"),
        Binding("ctrl+o", "app.show_history", "history", tooltip="search, reopen, rename"),
        Binding(
            "ctrl+l", "edit_last_prompt", "edit last", show=False, tooltip="edit and resend it"
        ),
        # The prompt has focus; page keys scroll the conversation (and stop following it).
        Binding("pageup", "scroll_transcript(-1)", "scroll up", show=False, priority=True),
        Binding("pagedown", "scroll_transcript(1)", "scroll down", show=False, priority=True),
        # End, while scrolled back, returns to the end of the conversation (unless it would
        # still move the prompt's cursor to the end of its line).
        Binding(
            "end",
            "follow_transcript",
            "back to the end",
            show=False,
            priority=True,
            tooltip="when scrolled back",
        ),
    ]

    def __init__(self, pane: ChatPane, welcome: Callable[[], WelcomeFacts] | None = None) -> None:
        """`welcome`: what the card in an empty chat says (None: no card)."""
        super().__init__()
        self.pane = pane
        self._welcome = welcome
        self.prompt = PromptInput(id="prompt")
        # While set, the prompt holds the last prompt of this conversation; sending it replaces
        # the last exchange (only if the pane still shows that conversation).
        self.editing: Conversation | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="◧")
        yield self.pane
        yield self.prompt
        yield Footer()

    async def on_mount(self) -> None:
        self.prompt.focus()
        await self.show_welcome()

    async def on_screen_resume(self) -> None:
        await self.show_welcome()  # e.g. the history deleted the conversation on show

    async def show_welcome(self) -> None:
        """(Re)draw the welcome card, for the current provider, if the chat is empty."""
        transcript = self.pane.transcript
        await transcript.remove_children(Welcome)
        empty = not transcript.children and not self.pane.conversation.messages
        if self._welcome is not None and empty:
            await transcript.mount(Welcome(self._welcome()))

    async def hide_welcome(self) -> None:
        await self.pane.transcript.remove_children(Welcome)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop_stream":
            turn = self.pane.turn
            return turn is not None and not turn.done
        if action == "cancel_edit":
            return self.editing is not None
        if action == "retry":
            return self.pane.can_retry
        if action == "follow_transcript":
            row, column = self.prompt.cursor_location
            at_line_end = column >= len(self.prompt.document.get_line(row))
            return not self.pane.transcript.following and at_line_end
        if action == "edit_last_prompt":
            return not self.pane.streaming and self.pane.last_prompt() is not None
        return True

    def action_stop_stream(self) -> None:
        self.pane.stop()
        self.refresh_bindings()

    async def action_scroll_transcript(self, direction: int) -> None:
        await self.pane.transcript.page(direction)

    async def action_follow_transcript(self) -> None:
        await self.pane.transcript.follow_end()

    def action_toggle_reasoning(self) -> None:
        self.app.action_toggle_reasoning()  # type: ignore[attr-defined]

    async def action_new_chat(self) -> None:
        if self.editing is not None:
            self._end_edit()  # the draft stays, as a new prompt
        await self.pane.new_chat()
        await self.show_welcome()

    async def action_retry(self) -> None:
        await self.pane.retry()
        self.refresh_bindings()

    def action_edit_last_prompt(self) -> None:
        """Put the last prompt back in the input; sending it replaces the last exchange."""
        last = self.pane.last_prompt()
        if last is None or self.pane.streaming:
            return
        self.editing = self.pane.conversation
        self.prompt.load_text(last)
        self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.border_title = "editing the last prompt · Enter resends it · Esc cancels"
        self.prompt.focus()
        self.refresh_bindings()

    def action_cancel_edit(self) -> None:
        self._end_edit()
        self.prompt.clear()

    def _end_edit(self) -> None:
        self.editing = None
        self.prompt.border_title = None
        self.refresh_bindings()

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        await self.hide_welcome()
        editing = self.editing
        if editing is not None:
            self._end_edit()
            if editing is self.pane.conversation and await self.pane.replace_last_exchange(
                message.text
            ):
                self.refresh_bindings()
                return
        if not await self.pane.send(message.text):
            self.prompt.load_text(message.text)
            self.notify("Still answering — press Esc to stop it first.", severity="warning")
        self.refresh_bindings()

    def on_chat_pane_turn_drawn(self, message: ChatPane.TurnDrawn) -> None:
        self.refresh_bindings()


__all__ = ["ChatScreen"]
