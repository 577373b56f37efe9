"""Attaching files to the chat's next prompt: from `@path` typed in the prompt, or the
palette's "Attach file…" (a dialog whose path field Textual's suggester completes).

A mention is attached once the user moves on from it (a space after it) when something is at
that path, and the ones left when the prompt is sent, before it is sent. Each file is read and
recognised by `load_attachment` within the chat provider's per-file limit, and all of them are
checked against its limits before the request (`check_limits`): a missing file, a directory,
one too big or not what its name says is a clear message, and the prompt and the chips stay as
they were. A mention that names nothing is text (`@someone`), unless it reads as a file name
(`@notes.md`), which is a typo worth saying before anything is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from app.display.sanitize import clean_line
from app.providers.attachments import (
    AttachmentError,
    check_limits,
    load_attachment,
    read_limit,
)
from app.settings.config import ProviderConfig
from app.ui.widgets.at_paths import PathSuggester, existing, looks_like_a_file, mentions, resolve
from app.ui.widgets.attachment_chips import AttachmentChips, describe
from app.wire.attachment import Attachment
from app.wire.turn_status import TurnStatus

if TYPE_CHECKING:
    from app.wire.turn import Turn

KINDS_TAKEN = "an image (PNG, JPEG, WebP, GIF), a PDF or a text file"


Providers = ProviderConfig | Sequence[ProviderConfig]  # a comparison's: every pane's


def _each(providers: Providers) -> list[ProviderConfig]:
    return [providers] if isinstance(providers, ProviderConfig) else list(providers)


def load(path: Path, provider: Providers) -> Attachment:
    """One file, read within the provider's per-file limit (the smallest of several).
    Raises AttachmentError."""
    limit, whose = read_limit(_each(provider))
    return load_attachment(path, limit, whose)


class AttachDialog(ModalScreen[Attachment | None]):
    """Enter attaches the file at the path typed (→ takes the suggested completion); a file
    that cannot be attached is said here, the path kept; Esc closes it."""

    DEFAULT_CSS = """
    AttachDialog {
        align: center middle;
        background: $background 60%;
        & > Vertical {
            width: 80;
            max-width: 100%;
            height: auto;
            padding: 1 2;
            border: thick $primary 80%;
            background: $surface;
        }
        .attach--title { text-style: bold; }
        .attach--note { color: $text-muted; }
        Input { margin: 1 0 0 0; }
        #attach-error { color: $text-error; height: auto; display: none; }
        #attach-error.-shown { display: block; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "cancel")]

    def __init__(
        self, root: Path, provider: Providers, *, said: Callable[[str], str] = str
    ) -> None:
        """`said`: how a problem is put (a blind comparison's names no provider)."""
        super().__init__()
        self.root = root
        self.provider = provider
        self.said = said

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Attach a file to the next prompt", classes="attach--title")
            yield Label(
                Content(f"{KINDS_TAKEN} · from {clean_line(str(self.root))}"),
                classes="attach--note",
            )
            yield Input(
                placeholder="path · → completes · Enter attaches · Esc cancels",
                suggester=PathSuggester(self.root),
                id="attach-path",
            )
            yield Static("", id="attach-error", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        typed = event.value.strip()
        if not typed:
            return
        try:
            attachment = load(resolve(typed, self.root), self.provider)
        except AttachmentError as exc:
            error = self.query_one("#attach-error", Static)
            error.update(Content(clean_line(self.said(str(exc)))))
            error.add_class("-shown")
            return
        self.dismiss(attachment)

    @property
    def error_text(self) -> str:
        return str(self.query_one("#attach-error", Static).content)

    def action_cancel(self) -> None:
        self.dismiss(None)


EDIT_HINT = (
    "The provider refused this prompt with its files: ctrl+l gives it back with them as chips "
    "(press one to remove it), Enter sends it again."
)


def refused_with_files(turn: Turn, attachments: tuple[Attachment, ...]) -> str | None:
    """What to say when the provider refused a prompt that carried files (before any answer
    came, e.g. images to a model without vision): how to send it again without them."""
    refused = turn.status is TurnStatus.FAILED and not (turn.text_parts or turn.calls)
    return EDIT_HINT if refused and attachments else None


class Attaching:
    """The chat screen's attachments: its chips, the directory mentions are read from."""

    def __init__(self, chips: AttachmentChips, root: Path) -> None:
        self.chips = chips
        self.root = root
        self._stashed: tuple[list[Attachment], set[str]] | None = None  # while editing

    async def edit(self, text: str, attachments: tuple[Attachment, ...]) -> None:
        """The last prompt is being edited: its files become the chips (one can be removed,
        e.g. an image the provider refused); the chips there were come back on `cancel`."""
        if self._stashed is None:
            self._stashed = (list(self.chips.attachments), set(self.chips.handled))
        await self.chips.replace(attachments, set(mentions(text)))  # its mentions are in them

    async def cancel(self) -> None:
        stashed, self._stashed = self._stashed, None
        if stashed is not None:
            await self.chips.replace(*stashed)

    async def sent(self) -> None:
        self._stashed = None
        await self.chips.clear()

    async def mentions_closed(self, text: str, provider: Providers) -> str | None:
        """Attach the mentions the user has moved on from that name something; the message
        of the first that cannot be attached (each is tried once), else None."""
        problem = None
        if "@" not in text:
            return None  # typed on every key: most prompts mention nothing
        for token in mentions(text, closed_only=True):
            if token in self.chips.handled:
                continue
            path = existing(token, self.root)
            if path is None:
                continue  # `@someone`: text (a file name that names nothing is said on send)
            self.chips.handled.add(token)
            try:
                await self.chips.add(load(path, provider))
            except AttachmentError as exc:
                problem = problem or str(exc)
        return problem

    async def for_send(self, text: str, provider: Providers) -> tuple[Attachment, ...]:
        """Every file to send with `text`: the chips and the mentions not dealt with yet,
        within the provider's limits (each one's, for several). Raises AttachmentError;
        nothing is attached then."""
        found: list[tuple[str, Attachment]] = []
        for token in mentions(text):
            if token in self.chips.handled:
                continue
            path = existing(token, self.root)
            try:
                if path is None:
                    if looks_like_a_file(token):
                        raise AttachmentError(f"@{token}: no such file (in {self.root})")
                    continue
                found.append((token, load(path, provider)))
            except AttachmentError as exc:
                self.chips.handled.add(token)  # said once: Enter again sends it as text
                raise AttachmentError(f"{exc}; Enter again sends it as text") from None
        attachments = [*self.chips.attachments, *(a for _, a in found)]
        for each in _each(provider):
            check_limits(attachments, each)
        for token, attachment in found:
            self.chips.handled.add(token)
            await self.chips.add(attachment)
        return tuple(attachments)

    async def attached(self, attachment: Attachment | None) -> str | None:
        """The dialog's file as a chip; what to tell the user."""
        if attachment is None:
            return None
        await self.chips.add(attachment)
        return f"Attached {describe(attachment)}."


__all__ = ["EDIT_HINT", "KINDS_TAKEN", "AttachDialog", "Attaching", "load", "refused_with_files"]
