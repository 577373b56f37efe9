"""Attaching files to the chat's next prompt: from `@path` typed in the prompt, or the
palette's "Attach file…" (a dialog whose path field Textual's suggester completes).

A mention is attached once the user moves on from it (a space after it) when something is at
that path, and the ones left when the prompt is sent, before it is sent. Each file is read and
recognised by `load_attachment` within the chat provider's per-file limit, and all of them are
checked against its limits before the request (`check_limits`): a missing file, a directory,
one too big or not what its name says is a clear message, the mention is marked under the
prompt, and Enter sends nothing while it is there (the prompt and the chips stay as they were).
A mention that names nothing is text (`@someone`), unless it reads as a file name
(`@notes.md`), which is a typo worth saying before anything is sent. Mentions in pasted text
attach nothing. The provider reads an attached mention as the file's name alone: the folders
it was found in are the user's business, not the provider's.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
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
from app.ui.widgets.at_paths import (
    MENTION,
    PathSuggester,
    existing,
    looks_like_a_file,
    mentions,
    resolve,
    sent_as,
)
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


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A prompt ready to send: its text as the provider reads it (attached mentions by the
    file's name only) and its files."""

    text: str
    attachments: tuple[Attachment, ...]


def _reason(message: str, path: Path | None) -> str:
    """An AttachmentError's message without the path it opens with (the mark names it)."""
    shown = f"{path}: " if path is not None else ""
    return message.removeprefix(shown) if shown else message.partition(": ")[2] or message


PASTED = (
    "Pasted text is sent as text: its @{token} attaches nothing. Type or complete an @path "
    "(or ctrl+p “Attach file…”) to attach a file."
)
REFUSED = "{problem}. Not sent: fix the file, or take the @ off its name to send it as text."


class Attaching:
    """The chat screen's attachments: its chips, the directory mentions are read from.

    A mention is attached only when typed or completed in the prompt: one that came in pasted
    text stays text (pasted text is not read as a request to send a file). One that names a
    file that cannot be attached (missing, a directory, not what its name says) is marked
    under the prompt and keeps the prompt from being sent until it is fixed or taken out."""

    def __init__(
        self, chips: AttachmentChips, root: Path, *, said: Callable[[str], str] = str
    ) -> None:
        """`said`: how a problem is put under the prompt (a blind comparison's names no
        provider)."""
        self.chips = chips
        self.root = root
        self.said = said
        # while editing: the chips, handled, refused and sent mentions set aside
        self._stashed: tuple[list[Attachment], set[str], dict[str, str], dict[str, str]] | None = (
            None
        )

    async def edit(self, text: str, attachments: tuple[Attachment, ...]) -> None:
        """The last prompt is being edited: its files become the chips (one can be removed,
        e.g. an image the provider refused); the chips there were come back on `cancel`."""
        if self._stashed is None:
            chips = self.chips
            self._stashed = (
                list(chips.attachments),
                set(chips.handled),
                dict(chips.refused),
                dict(chips.sent),
            )
        await self.chips.replace(attachments, set(mentions(text)))  # its mentions are in them

    async def cancel(self) -> None:
        stashed, self._stashed = self._stashed, None
        if stashed is not None:
            await self.chips.replace(*stashed)

    async def sent(self) -> None:
        self._stashed = None
        await self.chips.clear()

    def pasted(self, tokens: Collection[str]) -> str | None:
        """These mentions came in pasted text: they stay text. A word for the user when one
        names a file (which a typed mention would have attached), else None."""
        said = None
        for token in tokens:
            if token not in self.chips.handled and existing(token, self.root) is not None:
                said = said or PASTED.format(token=clean_line(token))
            self.chips.handled.add(token)
        return said

    async def mentions_closed(self, text: str, provider: Providers) -> str | None:
        """Attach the mentions the user has moved on from that name something; the message
        of the first that cannot be attached (each is tried once), else None."""
        chips = self.chips
        if "@" not in text:
            await chips.mark({})
            return None  # typed on every key: most prompts mention nothing
        problem = None
        present = set(mentions(text))
        refused = {t: why for t, why in chips.refused.items() if t in present}
        for token in mentions(text, closed_only=True):
            if token in chips.handled or token in refused:
                continue
            path = existing(token, self.root)
            if path is None:
                continue  # `@someone`: text (a file name that names nothing is said on send)
            try:
                attachment = load(path, provider)
            except AttachmentError as exc:
                refused[token] = self.said(_reason(str(exc), path))
                problem = problem or str(exc)
                continue
            chips.handled.add(token)
            chips.sent[token] = sent_as(token, path, self.root)
            await chips.add(attachment)
        await chips.mark(refused)
        return problem

    async def for_send(self, text: str, provider: Providers) -> Outgoing:
        """`text` as it is sent, with every file to send: the chips and the mentions not
        dealt with yet, within the provider's limits (each one's, for several). Raises
        AttachmentError, nothing attached then, when a mention names a file that cannot be
        attached (it stays marked) or the files break a limit."""
        chips = self.chips
        found: list[tuple[str, Path, Attachment]] = []
        refused: dict[str, str] = {}
        problem = None
        for token in mentions(text):
            if token in chips.handled:
                continue
            path = existing(token, self.root)
            try:
                if path is None:
                    if looks_like_a_file(token):
                        raise AttachmentError(f"@{token}: no such file (in {self.root})")
                    continue
                found.append((token, path, load(path, provider)))
            except AttachmentError as exc:
                refused[token] = self.said(_reason(str(exc), path))
                problem = problem or str(exc)
        await chips.mark(refused)
        if problem is not None:
            raise AttachmentError(REFUSED.format(problem=problem))
        attachments = [*chips.attachments, *(a for _, _, a in found)]
        for each in _each(provider):
            check_limits(attachments, each)
        for token, path, attachment in found:
            chips.handled.add(token)
            chips.sent[token] = sent_as(token, path, self.root)
            await chips.add(attachment)
        return Outgoing(self.sent_text(text), tuple(attachments))

    def sent_text(self, text: str) -> str:
        """`text` with each attached mention as the file's name alone."""
        sent = self.chips.sent
        if not sent:
            return text
        return MENTION.sub(lambda m: "@" + sent.get(m.group(1), m.group(1)), text)

    async def attached(self, attachment: Attachment | None) -> str | None:
        """The dialog's file as a chip; what to tell the user."""
        if attachment is None:
            return None
        await self.chips.add(attachment)
        return f"Attached {describe(attachment)}."


__all__ = [
    "EDIT_HINT",
    "KINDS_TAKEN",
    "PASTED",
    "REFUSED",
    "AttachDialog",
    "Attaching",
    "Outgoing",
    "load",
    "refused_with_files",
]
