"""The chat screen: header, one conversation pane, the prompt and the footer.

Esc is a priority binding here (not on the App) so it reaches us even while the prompt has focus,
and `check_action` lets it fall through when nothing is streaming; the command palette is its
own screen and keeps its own Esc.

What needs the app (switching provider or model, comparing, exporting, the reasoning panes) goes
up as a message declared here, which the app handles by calling a flow. The palette's commands
are this screen's own (`COMMANDS`), built fresh each time it opens (so "copy code block N"
matches the latest answer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.events import Click, DescendantFocus, Key
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, TextArea

from app.providers.attachments import AttachmentError
from app.ui.clipboard import copy_text
from app.ui.palette import Choice, ScreenCommands
from app.ui.screens.attaching import AttachDialog, Attaching, refused_with_files
from app.ui.screens.branching import (
    BRANCH_BINDINGS,
    CANCEL_BRANCH_EDIT,
    LEAVE_SELECTION,
    STILL_ANSWERING,
    BranchKeys,
    ChatBranches,
)
from app.ui.screens.finding import CLOSE_FIND, FIND_BINDINGS, FindKeys, code_block_choices
from app.ui.screens.tool_keys import TOOL_BINDINGS, ToolKeys
from app.ui.screens.typing import key_to_prompt
from app.ui.widgets.attachment_chips import AttachmentChips
from app.ui.widgets.chat_pane import ChatPane
from app.ui.widgets.pane_streams import KeptStreams, StreamReader
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.welcome import Welcome, WelcomeFacts
from app.wire.attachment import Attachment
from app.wire.conversation import Conversation

if TYPE_CHECKING:
    from app.store.export import ExportFormat
    from app.ui.widgets.inspector import Inspector  # composed on the first F2
    from app.wire.exchange import CapturedExchange

HISTORY_KEY = "ctrl+o"
HISTORY_HELP = f"{HISTORY_KEY}: search, reopen, rename, delete"


class ChatCommands(ScreenCommands):
    """The chat's commands: provider, model, chat, comparing, reasoning, copy, theme, history,
    export, and retry or edit when they apply.

    The history screen offers them too (it lies over the chat and has no commands of its
    own: pinned in tests/ui/test_palette_commands.py), so they act on the chat screen under
    the palette, whichever screen it was opened over."""

    def commands(self) -> Sequence[Choice]:
        # The dialogs these open load with the palette, not with the first frame.
        from app.ui.screens.api_key import SetKeyRequested
        from app.ui.screens.parameters import params_summary
        from app.ui.screens.system_prompt import SystemPromptRequested

        chat = self._chat_screen()
        if chat is None:
            return ()
        pane = chat.pane
        app = self.app
        post = self.screen.post_message  # the messages bubble from the calling screen to the app

        def ask(message: Callable[[], Message]) -> Callable[[], object]:
            return lambda: post(message())

        where = "exports/ in the data dir"
        choices = [
            Choice(
                "Switch provider…",
                ask(ChatScreen.SwitchProviderRequested),
                f"now: {pane.provider.name}",
            ),
            Choice("Switch model…", ask(ChatScreen.SwitchModelRequested), f"now: {pane.model}"),
            Choice(
                "Set a key until you quit…",
                ask(SetKeyRequested),
                pane.key_missing() or f"for {pane.provider.name}: kept in memory, never written",
            ),
            Choice("New chat", chat.new_chat_later, "clear the conversation"),
            Choice(
                "Compare with…",
                ask(ChatScreen.CompareWithRequested),
                "side by side, same conversation",
            ),
            Choice("Toggle reasoning panes", ask(ChatScreen.ToggleReasoningRequested), "ctrl+r"),
            Choice(
                "Choose tools…",
                ask(ChatScreen.ChooseToolsRequested),
                "which tools the model is offered",
            ),
            Choice("System prompt…", ask(SystemPromptRequested), "presets, none, or edit it"),
            Choice("Attach file…", chat.later("attach"), "or type @ and a path in the prompt"),
            Choice(
                "Parameters…",
                chat.later("parameters"),
                f"f3 · now: {params_summary(pane.params, pane.provider.api) or 'none set'}",
            ),
            Choice("Inspect the wire", chat.later("inspect"), "f2: the last answer's frames"),
            (
                Choice(
                    "Stop recording the session",
                    ask(ChatScreen.RecordSessionRequested),
                    f"now: {chat.recording_to}",
                )
                if chat.recording_to is not None
                else Choice(
                    "Record the session",
                    ask(ChatScreen.RecordSessionRequested),
                    "every exchange to a file, until stopped",
                )
            ),
            Choice("Copy last answer", chat.copy_answer, "raw Markdown"),
            Choice("Find in the conversation", chat.later("find"), "ctrl+f · every message"),
            Choice("Change theme…", app.search_themes, f"now: {app.theme}"),
            Choice("History…", partial(app.run_action, "app.show_history"), HISTORY_HELP),
            Choice("Leaderboard", ask(ChatScreen.LeaderboardRequested), "ratings from blind votes"),
            Choice(
                "Export conversation as Markdown",
                ask(partial(ChatScreen.ExportRequested, "md")),
                where,
            ),
            Choice(
                "Export conversation as JSON",
                ask(partial(ChatScreen.ExportRequested, "json")),
                where,
            ),
        ]
        if pane.can_retry:
            help_text = "ctrl+t: the same prompt as a new request"
            choices.append(Choice("Retry the last prompt", chat.later("retry"), help_text))
        if not pane.streaming and pane.last_prompt() is not None:
            help_text = "ctrl+l: sending it replaces the last exchange"
            choices.append(
                Choice("Edit the last prompt", chat.later("edit_last_prompt"), help_text)
            )
        choices.extend(code_block_choices(app, pane))  # every answer's, the newest first
        return choices

    def _chat_screen(self) -> ChatScreen | None:
        """The screen the palette was opened over, or the chat under it (the history's)."""
        if isinstance(self.screen, ChatScreen):
            return self.screen
        for screen in reversed(self.app.screen_stack):
            if isinstance(screen, ChatScreen):
                return screen
        return None


# The input's title while the last prompt is edited, and once a new chat began during that edit.
EDIT_TITLE = "editing the last prompt · Enter resends it · Esc cancels"
NEW_CHAT_EDIT_TITLE = "the edited prompt · Enter sends it in this new chat · Esc cancels"


class ChatScreen(FindKeys, BranchKeys, ToolKeys, Screen[None]):
    KEY_GROUP: ClassVar[str] = "Chat"
    COMMANDS: ClassVar[set[Any]] = {ChatCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        CLOSE_FIND,  # with the find bar open, Esc closes it (not the stream)
        LEAVE_SELECTION,  # with a message selected (branches), Esc goes back to the prompt
        *BRANCH_BINDINGS,  # first in the footer while a message is selected
        *TOOL_BINDINGS,  # first in the footer while a tool call waits for its approval
        *FIND_BINDINGS,  # ctrl+f; with a message selected, c, y and /
        Binding("escape", "stop_stream", "stop", priority=True, tooltip="what arrived stays"),
        Binding(
            "escape", "cancel_edit", "cancel edit", priority=True, tooltip="of the last prompt"
        ),
        Binding("ctrl+t", "retry", "retry", tooltip="after a stopped, cut or failed answer"),
        Binding("ctrl+r", "toggle_reasoning", "reasoning", tooltip="open or close every pane"),
        Binding("f2", "inspect", "inspect", tooltip="the wire of the last answer, beside it"),
        Binding("f3", "parameters", "parameters", show=False, tooltip="temperature, max tokens, …"),
        # Priority: taken in the order typed, before the keys after it are handed to the widget
        # focused now (a selected message's `c` or `e`), so letters typed with it are the prompt's.
        Binding(
            "ctrl+n",
            "start_new_chat",
            "new chat",
            tooltip="this one stays in the history",
            priority=True,
        ),
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
        CANCEL_BRANCH_EDIT,
    ]

    class SwitchProviderRequested(Message):
        """ "Switch provider…": the app offers the configured providers."""

    class SwitchModelRequested(Message):
        """ "Switch model…": the app offers the chat provider's models."""

    class CompareWithRequested(Message):
        """ "Compare with…": the app offers a provider to put beside the chat's."""

    class ToggleReasoningRequested(Message):
        """Ctrl+R: open or close every reasoning pane (the app keeps the setting)."""

    class SaveRecordingRequested(Message):
        """Save the inspected exchange as a recording file (the `--record` format)."""

        def __init__(self, exchange: CapturedExchange, provider: str) -> None:
            super().__init__()
            self.exchange = exchange
            self.provider = provider

    class RecordSessionRequested(Message):
        """Start recording every exchange of the session to a file, or stop."""

    class ChooseToolsRequested(Message):
        """ "Choose tools…": which configured tools go with the next prompts."""

    class LeaderboardRequested(Message):
        """Show the leaderboard of blind votes."""

    class ExportRequested(Message):
        """Export the chat's conversation as `fmt`."""

        def __init__(self, fmt: ExportFormat) -> None:
            super().__init__()
            self.fmt: ExportFormat = fmt

    def __init__(
        self,
        pane: ChatPane,
        welcome: Callable[[], WelcomeFacts] | None = None,
        streams: StreamReader = lambda _id: None,
    ) -> None:
        """`welcome`: what the card in an empty chat says (None: no card); `streams`: a
        reopened answer's kept stream by its history id (for the inspector)."""
        super().__init__()
        self.pane = pane
        self._welcome = welcome
        self._streams = KeptStreams(streams)
        self.recording_to: Path | None = None  # set by the app while the session is recorded
        self.inspector: Inspector | None = None  # mounted by the first F2
        self.prompt = PromptInput(id="prompt")
        self.chips = AttachmentChips(id="attachments")  # files for the next prompt
        self.attaching = Attaching(self.chips, Path.cwd())
        self.prompt.path_root = self.attaching.root
        # While set, the prompt holds the last prompt of this conversation; sending it replaces
        # the last exchange (only if the pane still shows that conversation).
        self.editing: Conversation | None = None
        self._draft = ""  # what the input held when the edit of the last prompt began
        self.branches = ChatBranches(pane, self.prompt, self.attaching)  # select, edit, …
        self.prompt.refusal = self.send_refused

    def compose(self) -> ComposeResult:
        yield Header(icon="◧")
        with Horizontal(id="chat-body"):
            yield self.pane  # the inspector (F2) is mounted beside it when first opened
        yield self.prompt
        yield self.chips
        yield Footer()

    async def on_mount(self) -> None:
        self.prompt.focus()
        await self.show_welcome()

    async def on_screen_resume(self) -> None:
        await self.show_welcome()  # e.g. the history deleted the conversation on show

    async def show_welcome(self) -> None:
        """(Re)draw the welcome card, for the current provider, if the chat is empty."""
        transcript = self.pane.transcript
        shown = [child for child in transcript.children if isinstance(child, Welcome)]
        empty = len(shown) == len(transcript.children) and not self.pane.conversation.messages
        facts = self._welcome() if self._welcome is not None and empty else None
        if facts is not None and len(shown) == 1 and shown[0].facts == facts:
            return  # the same card (the first resume, right after mounting): not redrawn
        await transcript.remove_children(Welcome)
        if facts is not None:
            await transcript.mount(Welcome(facts))

    async def hide_welcome(self) -> None:
        await self.pane.transcript.remove_children(Welcome)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        branch = self.branch_action_applies(action)
        if branch is not None:
            return branch
        tool = self.tool_action_applies(action)
        if tool is not None:
            return tool
        finding = self.find_action_applies(action)
        if finding is not None:
            return finding
        if action == "stop_stream":
            turn = self.pane.turn
            return (turn is not None and not turn.done) or self.pane.running_tools
        if action == "cancel_edit":
            return self.editing is not None
        if action == "retry":
            return self.pane.can_retry
        if action == "follow_transcript":
            row, column = self.prompt.cursor_location
            at_line_end = column >= len(self.prompt.document.get_line(row))
            return not self.pane.transcript.following and at_line_end
        if action == "edit_last_prompt":  # while an answer streams, the key says why not
            return self.pane.last_prompt() is not None
        return True

    def on_key(self, event: Key) -> None:
        key_to_prompt(self, self.prompt, event)  # typed away from the prompt: it goes there

    def send_refused(self) -> str | None:
        """Why Enter cannot send now (the prompt says it and keeps the draft as it is)."""
        if not self.pane.streaming:
            return None
        if self.branches.edit is not None:
            return STILL_ANSWERING.format(what="send the edit")
        return f"{self._busy()} — press Esc to stop it first."

    def _busy(self) -> str:
        return "A tool call waits" if self.pane.running_tools else "Still answering"

    def find_pane(self) -> ChatPane:
        return self.pane

    def action_stop_stream(self) -> None:
        self.pane.stop()
        self.refresh_bindings()

    async def action_scroll_transcript(self, direction: int) -> None:
        await self.pane.transcript.page(direction)

    async def action_follow_transcript(self) -> None:
        await self.pane.transcript.follow_end()

    def action_toggle_reasoning(self) -> None:
        self.post_message(self.ToggleReasoningRequested())

    def action_parameters(self) -> None:
        from app.ui.screens.parameters import edit_parameters  # on the first F3

        edit_parameters(self.app, self.pane)

    def action_attach(self) -> None:
        async def done(attachment: Attachment | None) -> None:
            said = await self.attaching.attached(attachment)
            if said is not None:
                self.notify(said, markup=False)
            self.prompt.focus()

        self.app.push_screen(AttachDialog(self.attaching.root, self.pane.provider), done)

    async def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is self.prompt:  # `@path ` typed: attached as the user moves on
            pasted = self.attaching.pasted(self.prompt.take_pasted())
            if pasted is not None:
                self.notify(pasted, severity="warning", markup=False)
            problem = await self.attaching.mentions_closed(self.prompt.text, self.pane.provider)
            if problem is not None:
                self.notify(problem, severity="error", markup=False)

    # -- the inspector (F2) ---------------------------------------------------------------------

    async def action_inspect(self) -> None:
        """Open the inspector beside the conversation on the last answer, or close it. It is
        made and mounted the first time (its ten widgets and their styles cost the first frame
        a third of its layout when composed hidden with the screen), then hidden and shown."""
        inspector = self.inspector
        if inspector is not None and inspector.display:
            inspector.unfollow()
            inspector.display = False
            self.prompt.focus()
            return
        if inspector is None:
            from app.ui.widgets.inspector import Inspector

            inspector = self.inspector = Inspector(id="inspector")
            await self.query_one("#chat-body").mount(inspector)
        inspector.display = True
        inspector.follow(self.inspected_exchange, self.pane.clock)
        inspector.focus_frames()

    def inspected_exchange(self) -> CapturedExchange | None:
        """The last answer's exchange (a reopened one's read back from the history once)."""
        return self._streams.last_exchange(self.pane)

    def on_inspector_copy_frame(self, message: Inspector.CopyFrame) -> None:
        message.stop()
        self.copy(message.text)

    def on_inspector_save_exchange(self, message: Inspector.SaveExchange) -> None:
        message.stop()
        exchange = None if self.inspector is None else self.inspector.exchange
        if exchange is not None:
            self.post_message(self.SaveRecordingRequested(exchange, self.pane.provider.name))

    async def action_new_chat(self) -> None:
        self._leave_for_new_chat()
        await self._rest_of_new_chat()

    def action_start_new_chat(self) -> None:
        """Ctrl+N: the selection is left and the prompt focused at once, the chat redrawn after."""
        self._leave_for_new_chat()
        self.app.run_worker(self._rest_of_new_chat(), group="switch", exit_on_error=False)

    def _leave_for_new_chat(self) -> None:
        """What Ctrl+N changes at once, before the new chat is drawn: keys typed right after it
        go to the prompt, not to a message still selected (`c` would copy it)."""
        if self.editing is not None:  # the edited text stays, to be sent here as a new prompt;
            # the draft set aside still comes back after it is sent, or on Esc
            self.prompt.border_title = NEW_CHAT_EDIT_TITLE
        self.branches.forget()
        self.set_focus(self.prompt)  # now, not after the keys already waiting
        self.refresh_bindings()

    async def _rest_of_new_chat(self) -> None:
        await self.pane.new_chat()
        await self.show_welcome()
        self.prompt.focus()  # not the new, empty transcript a selection had focused

    def new_chat_later(self) -> None:
        """ "New chat" from the palette, in a worker (the palette has closed by then)."""
        self.app.run_worker(self.action_new_chat(), group="switch", exit_on_error=False)

    def later(self, action: str) -> Callable[[], object]:
        """Run one of this screen's actions once the palette has closed."""
        return lambda: self.app.call_later(self.run_action, action)

    def last_answer(self) -> str:
        for message in reversed(self.pane.conversation.messages):
            if message.role == "assistant" and message.turn is not None:
                return message.turn.text
        turn = self.pane.turn
        return "" if turn is None else turn.text

    def copy(self, text: str) -> None:
        copy_text(self.app, text)  # says where it went (OSC 52, tmux)

    def copy_answer(self) -> None:
        answer = self.last_answer()
        if not answer:
            self.app.notify("There is no answer to copy yet.", severity="warning")
            return
        self.copy(answer)

    async def action_retry(self) -> None:
        await self.pane.retry()
        self.refresh_bindings()

    async def action_edit_last_prompt(self) -> None:
        """Put the last prompt back in the input (its files in the chips); sending it
        replaces the last exchange. A draft in the input is kept (with its chips) and comes
        back when the edit is sent or cancelled, as for a branch's edit."""
        last = self.pane.last_prompt()
        if last is None:
            return
        if self.pane.streaming:
            self.notify(STILL_ANSWERING.format(what="edit the last prompt"), severity="warning")
            return
        if self.editing is None:  # ctrl+l again while editing: the draft is still the first
            self._draft = self.prompt.text
        self.editing = self.pane.conversation
        await self.attaching.edit(last, self.pane.last_attachments())
        self.prompt.load_text(last)
        self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.border_title = EDIT_TITLE
        self.prompt.focus()
        self.refresh_bindings()

    async def action_cancel_edit(self) -> None:
        self._end_edit()
        await self._draft_back()

    async def _draft_back(self) -> None:
        """The input and the chips as they were before the edit of the last prompt."""
        draft, self._draft = self._draft, ""
        self.prompt.load_text(draft)
        self.prompt.move_cursor(self.prompt.document.end)
        await self.attaching.cancel()

    def _end_edit(self) -> None:
        self.editing = None
        self.prompt.border_title = None
        self.refresh_bindings()

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        if event.widget is self.prompt:
            self.branches.prompt_focused()  # typing again: the selection ends

    def on_click(self, event: Click) -> None:
        if event.widget is not None:
            self.branches.clicked(event.widget)  # a click on a message selects it

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        missing = self.pane.key_missing()
        if missing is not None:  # said before anything is sent or stored; the draft stays
            self.prompt.load_text(message.text)
            self.prompt.move_cursor(self.prompt.document.end)
            self.notify(missing, severity="error", markup=False)
            return
        await self.hide_welcome()
        if self.branches.edit is not None:
            await self.branches.send_edit(message.text)  # a new branch beside the prompt edited
            return
        try:
            outgoing = await self.attaching.for_send(message.text, self.pane.provider)
        except AttachmentError as exc:  # nothing sent: the prompt and its chips stay
            self.prompt.load_text(message.text)
            self.prompt.move_cursor(self.prompt.document.end)  # typing goes on where it was
            self.notify(str(exc), severity="error", markup=False)
            return
        text, attachments = outgoing.text, outgoing.attachments
        editing = self.editing
        if editing is not None:
            self._end_edit()
            if editing is self.pane.conversation and await self.pane.replace_last_exchange(
                text, attachments
            ):
                await self._draft_back()
                self.refresh_bindings()
                return
        if not await self.pane.send(text, attachments):
            self.prompt.load_text(message.text)
            self.notify(f"{self._busy()} — press Esc to stop it first.", severity="warning")
        elif editing is not None:  # the edit went as a new prompt (another chat is shown)
            await self._draft_back()
        else:
            await self.attaching.sent()
        self.refresh_bindings()

    def on_chat_pane_turn_drawn(self, message: ChatPane.TurnDrawn) -> None:
        self.refresh_bindings()
        hint = refused_with_files(message.turn, self.pane.last_attachments())
        if hint is not None:
            self.notify(hint, timeout=10)


__all__ = ["HISTORY_KEY", "ChatCommands", "ChatScreen"]
