"""The multi-line prompt: Enter sends, Ctrl+J (or Shift+Enter where the terminal reports it)
inserts a newline, and Up on the first line recalls earlier prompts.

Many terminals send the same byte for Enter and Shift+Enter, which is why Ctrl+J — a plain line
feed every terminal can send — is the newline key shown in the footer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import TextArea

from app.display.sanitize import literal_line
from app.ui.widgets.at_paths import complete, mention_before, mentions

NEWLINE_KEYS = ("ctrl+j", "shift+enter")


@dataclass(slots=True)
class PromptHistory:
    """Earlier prompts, newest last; `position` walks back from the end while recalling."""

    entries: list[str]
    position: int | None = None
    draft: str = ""

    def add(self, text: str) -> None:
        if not self.entries or self.entries[-1] != text:
            self.entries.append(text)
        self.position = None

    def older(self, current: str) -> str | None:
        if not self.entries:
            return None
        if self.position is None:
            self.draft = current
            self.position = len(self.entries)
        if self.position == 0:
            return None
        self.position -= 1
        return self.entries[self.position]

    def newer(self) -> str | None:
        if self.position is None:
            return None
        self.position += 1
        if self.position >= len(self.entries):
            self.position = None
            return self.draft
        return self.entries[self.position]


class PromptInput(TextArea):
    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 10;
        border: tall $primary 50%;
        &:focus { border: tall $primary; }
        & .text-area--placeholder { color: $text-muted; }  /* it carries the key hints */
    }
    """

    KEY_GROUP: ClassVar[str] = "Prompt"
    # Enter and `?` are bindings so the key sheet lists them: `_on_key` only keeps TextArea
    # from inserting them, and the key then reaches these bindings as any other would.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "send", show=False),
        Binding("ctrl+j", "newline", "newline", key_display="ctrl+j"),
        Binding("shift+enter", "newline", "newline", show=False),
        Binding("up", "cursor_up", "up; on the first line: an earlier prompt", show=False),
        Binding("down", "cursor_down", "down; on the last line: a later prompt", show=False),
        Binding("question_mark", "show_keys", "keys (in an empty prompt)", show=False),
    ]

    @dataclass
    class KeysWanted(Message):
        """`?` in an empty prompt: the user asks which keys there are."""

        prompt: PromptInput

    @dataclass
    class Submitted(Message):
        prompt: PromptInput
        text: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, soft_wrap=True, tab_behavior="focus", show_line_numbers=False)
        self.recall = PromptHistory([])
        self.path_root: Path | None = None  # where `@path` completes from (None: it does not)
        self.pasted: set[str] = set()  # `@` mentions that came in pasted text, not yet taken
        # Why Enter cannot send now (an answer streams), asked before anything is cleared: a
        # refused Enter leaves the draft, the cursor and the undo history exactly as they were.
        self.refusal: Callable[[], str | None] | None = None
        self._last_key: events.Key | None = None  # the last key sent here (see `took`)
        self.placeholder = "Ask anything · Enter sends · ctrl+j newline · ctrl+p commands"

    def took(self, event: events.Key) -> bool:
        """Whether this key was sent to the prompt (not to a widget focused when it was typed)."""
        return event is self._last_key

    async def _on_key(self, event: events.Key) -> None:
        self._last_key = event
        if self.screen.focused is not self and await self._run_own_binding(event):
            return
        if event.key == "enter" or (event.character == "?" and not self.text):
            event.prevent_default()  # not inserted: left to the bindings above
        elif event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.action_newline()
        elif event.key.startswith("alt+") and event.is_printable:
            # Alt and a letter, read from ESC and the letter: a chord for the bindings (a
            # vote, a tool's approval), never the letter typed into the draft.
            event.prevent_default()

    async def _run_own_binding(self, event: events.Key) -> bool:
        """A key typed for the prompt, read after a priority chord in the same read (Alt+Up,
        Ctrl+F) took the focus away: Textual looks a binding up along the focus of the moment,
        where the prompt's own (Ctrl+U, Backspace, Enter) are gone. Run here, as typed."""
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()
                return True
        return False

    async def _on_paste(self, event: events.Paste) -> None:
        """Pasted text goes in as TextArea puts it; the mentions it made are noted so they
        stay text (`take_pasted`): a file is attached only from a mention typed or completed.
        Noted before the screen sees the change: the insert posts it, and nothing here waits."""
        event.prevent_default()  # inserted here, once: not again by TextArea's own handler
        before = set(mentions(self.text)) if "@" in self.text else set()
        await super()._on_paste(event)
        if "@" in self.text:
            self.pasted |= set(mentions(self.text)) - before

    def take_pasted(self) -> set[str]:
        """The mentions pasted since last asked."""
        pasted, self.pasted = self.pasted, set()
        return pasted

    def action_submit(self) -> None:
        self.submit()

    def action_show_keys(self) -> None:
        self.post_message(self.KeysWanted(self))

    def action_newline(self) -> None:
        self.insert("\n")

    def submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        refused = self.refusal() if self.refusal is not None else None
        if refused is not None:
            self.notify(refused, severity="warning", markup=False)
            return
        self.recall.add(text)
        self.clear()
        self.post_message(self.Submitted(self, text))

    def update_suggestion(self) -> None:
        """`@` and a path: the rest of the path as Textual's suggestion (Right takes it), the
        names that match under the prompt."""
        fragment = None
        if self.path_root is not None and self.selection.is_empty:
            row, column = self.cursor_location
            fragment = mention_before(self.document.get_line(row), column)
        if fragment is None:
            self.suggestion = ""
            self.border_subtitle = None
            return
        assert self.path_root is not None
        found = complete(fragment, self.path_root)
        self.suggestion = found.insert
        shown = "  ".join(found.candidates) + ("  …" if found.more else "")
        line = literal_line(f"@ {shown} · → completes")  # file names, shown literally
        self.border_subtitle = Content(line) if found.candidates else None

    def action_cursor_up(self, select: bool = False) -> None:
        if not select and self.cursor_location[0] == 0:
            recalled = self.recall.older(self.text)
            if recalled is not None:
                self._replace_text(recalled)
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        last_row = self.document.line_count - 1
        if not select and self.cursor_location[0] == last_row and self.recall.position is not None:
            newer = self.recall.newer()
            if newer is not None:
                self._replace_text(newer)
            return
        super().action_cursor_down(select)

    def _replace_text(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)


__all__ = ["NEWLINE_KEYS", "PromptHistory", "PromptInput"]
