"""The find and copy keys of a conversation's screen (the chat, a comparison): Ctrl+F, and `/`
with a message selected, open the find bar (app/ui/widgets/find_bar.py); with a message selected,
`c` copies it as written (an answer's Markdown source, a prompt as typed) and `y` offers its
code blocks. Esc closes the bar and gives the prompt the focus back.

Mixed into the screens like the branch keys (app/ui/screens/branching.py): the screen lists the
bindings, asks `find_action_applies` in its `check_action`, and says which pane is searched.
The bar is mounted on first use, above the prompt: the first frame does not pay for it.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.widget import Widget

from app.ui.clipboard import copy_text
from app.ui.palette import Choice, show_choices
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.user_message import UserMessage

if TYPE_CHECKING:
    from app.ui.screens.branching import ChatBranches
    from app.ui.widgets.chat_pane import ChatPane
    from app.ui.widgets.find_bar import FindBar
    from app.ui.widgets.prompt import PromptInput

# First among the screen's Esc bindings: with the bar open, Esc closes it, even mid-stream.
CLOSE_FIND = Binding("escape", "close_find", "close find", priority=True, tooltip="to the prompt")
FIND_BINDINGS: list[BindingType] = [
    # Priority: the prompt (a TextArea) would take Ctrl+F for its own.
    Binding("ctrl+f", "find", "find", priority=True, show=False, tooltip="in the conversation"),
    Binding(
        "slash",
        "find_from_selection",
        "find",
        key_display="/",
        show=False,
        tooltip="with a message selected",
    ),
    Binding("c", "copy_selected", "copy", tooltip="the selected message, as written"),
    Binding("y", "copy_selected_code", "code", tooltip="copy one of its code blocks"),
]
FIND_ACTIONS = frozenset({"copy_selected", "copy_selected_code", "find_from_selection"})
NO_CODE = "That message has no code blocks."


def message_text(widget: Widget) -> str:
    """A message as written: a prompt as typed, an answer's Markdown source as it came."""
    if isinstance(widget, UserMessage):
        return widget.text
    if isinstance(widget, AssistantTurn):
        return widget.turn.text
    return ""


def answer_texts(pane: ChatPane) -> list[str]:
    """The pane's answers as written, first to last (the one streaming too)."""
    texts = [m.turn.text for m in pane.conversation.messages if m.role == "assistant" and m.turn]
    turn = pane.turn
    if turn is not None and not any(m.turn is turn for m in pane.conversation.messages):
        texts.append(turn.text)
    return texts


def code_block_choices(app: Any, pane: ChatPane) -> list[Choice]:
    """ "Copy code block N" for every answer's code blocks, the newest answer's first; an
    earlier answer's say which answer they are from."""
    from app.display.code_blocks import code_blocks  # when the palette opens

    texts = answer_texts(pane)
    choices: list[Choice] = []
    for index in range(len(texts) - 1, -1, -1):
        last = index == len(texts) - 1
        for number, block in enumerate(code_blocks(texts[index]), 1):
            label = block.label(number, None if last else index + 1)
            help_text = "raw code" if last else f"raw code · {first_line(block.code)}"
            choices.append(Choice(label, partial(copy_text, app, block.code), help_text))
    return choices


def first_line(code: str, width: int = 40) -> str:
    line = next((line.strip() for line in code.split("\n") if line.strip()), "")
    return line if len(line) <= width else line[: width - 1] + "…"


class FindKeys:
    """Ctrl+F, `/`, `c` and `y` (mixed into the chat and comparison screens)."""

    FIND_BINDINGS: ClassVar[list[BindingType]] = FIND_BINDINGS
    find_bar: FindBar | None = None
    prompt: PromptInput
    branches: ChatBranches

    def find_pane(self) -> ChatPane:
        """The pane the bar searches."""
        raise NotImplementedError

    def find_action_applies(self, action: str) -> bool | None:
        """`check_action` for these keys; None for an action that is not one of them."""
        if action == "close_find":
            return self.find_bar is not None and self.find_bar.is_open
        if action in FIND_ACTIONS:
            return self.branches.active
        if action == "find":
            return True
        return None

    async def action_find(self) -> None:
        bar = self.find_bar
        if bar is None:
            from app.ui.widgets.find_bar import FindBar  # on the first Ctrl+F

            bar = self.find_bar = FindBar(self.find_pane, id="find-bar")
            screen: Any = self
            await screen.mount(bar, before=self.prompt)
        bar.open()
        self._bindings_changed()

    async def action_find_from_selection(self) -> None:
        await self.action_find()

    def action_close_find(self) -> None:
        if self.find_bar is not None:
            self.find_bar.close()
        self.branches.leave()  # the prompt has the focus again (and no message is selected)
        self._bindings_changed()

    def action_copy_selected(self) -> None:
        widget = self.branches.selected
        if widget is None:
            return
        text = message_text(widget)
        if not text:
            self._say("That message has no text to copy.")
            return
        what = "prompt" if isinstance(widget, UserMessage) else "answer"
        copy_text(self._app(), text, f"the {what} ({len(text)} characters)")

    def action_copy_selected_code(self) -> None:
        from app.display.code_blocks import code_blocks

        widget = self.branches.selected
        blocks = [] if widget is None else code_blocks(message_text(widget))
        if not blocks:
            self._say(NO_CODE)
            return
        app = self._app()
        offered = [
            Choice(block.label(number), partial(copy_text, app, block.code), "raw code")
            for number, block in enumerate(blocks, 1)
        ]
        show_choices(app, offered, "Copy which code block?")

    def _app(self) -> Any:
        screen: Any = self
        return screen.app

    def _say(self, text: str) -> None:
        self._app().notify(text, severity="warning", markup=False)

    def _bindings_changed(self) -> None:
        screen: Any = self
        screen.refresh_bindings()


__all__ = [
    "CLOSE_FIND",
    "FIND_BINDINGS",
    "FindKeys",
    "answer_texts",
    "code_block_choices",
    "message_text",
]
