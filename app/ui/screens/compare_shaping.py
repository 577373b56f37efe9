"""Shaping a comparison's requests: the parameters panel (F3, "Parameters…"), the system
prompt ("System prompt…", chosen by the app's shaping flow) and attachments (`@path`,
"Attach file…", chips), each for every pane at once.

The values set go to every pane, each mapped to its own format's fields by its client; a knob
a pane's format does not take (a seed for Messages) is left out for that pane only, and said,
while the others still send it. A blind comparison shows nothing that names a provider: the
panel lists every knob (not the panes' formats') with no provider's defaults, and a file over
one pane's limit is said without naming whose limit it is.

A base class of CompareScreen, so the comparison screen only composes the chips, lists the
commands and calls `attachments_for_send` before it sends.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.widgets import TextArea

from app.display.sent_with import sent_summary
from app.providers.attachments import AttachmentError
from app.providers.params import RequestParams, fitted_for
from app.store.session import ConversationRecord
from app.ui.palette import Choice
from app.ui.screens.attaching import AttachDialog, Attaching, Outgoing
from app.ui.screens.parameters import ParametersScreen
from app.ui.screens.system_prompt import SystemPromptRequested
from app.ui.widgets.attachment_chips import AttachmentChips
from app.ui.widgets.compare_pane import ComparePane
from app.ui.widgets.prompt import PromptInput
from app.wire.attachment import Attachment

TITLE = "Parameters · every pane's next requests"
NOTE = "Each pane sends what its format takes, over its provider's params"
HIDDEN_LIMIT = "A file is over one pane's attachment limits (whose stays hidden while blind)."


def shared_summary(params: RequestParams | None) -> str:
    """The values by their knobs' short names, as no one format spells them."""
    return "" if params is None else sent_summary(params.as_dict())


class CompareShaping:
    """The comparison's parameters, system prompt and attachments, for every pane."""

    panes: list[ComparePane]
    prompt: PromptInput
    record: ConversationRecord | None
    blind: bool
    app: Any

    def __init__(self) -> None:
        super().__init__()
        self.chips = AttachmentChips(id="attachments")  # files for the next prompt
        self.attaching = Attaching(self.chips, Path.cwd(), said=self._said)
        self.shared_params: RequestParams | None = None  # the panel's, before each pane's fit
        self.system_shown = ""  # the header's `system: NAME` (set by the app's flows)

    if TYPE_CHECKING:  # the Screen's own

        def notify(self, message: str, **kwargs: Any) -> None: ...

    # -- the palette -----------------------------------------------------------------------

    def shaping_commands(self) -> list[Choice]:
        now = shared_summary(self.current_params()) or "none set"
        return [
            Choice("Parameters…", self.action_parameters, f"f3 · every pane · now: {now}"),
            Choice(
                "System prompt…",
                lambda: self.app.post_message(SystemPromptRequested()),
                "every pane: presets, none, or edit it",
            ),
            Choice("Attach file…", self.action_attach, "or type @ and a path in the prompt"),
        ]

    # -- parameters ------------------------------------------------------------------------

    def current_params(self) -> RequestParams | None:
        if self.shared_params is not None:
            return self.shared_params
        return None if self.record is None else RequestParams.saved(self.record.params)

    def action_parameters(self) -> None:
        panel = ParametersScreen(None, self.current_params(), title=TITLE, note=NOTE)
        self.app.push_screen(panel, self.use_params)

    def use_params(self, params: RequestParams | None) -> None:
        """Every pane's next requests get `params`, fitted to its format; said per pane."""
        if params is None:
            return
        self.shared_params = None if params.is_empty else params
        if self.record is not None:
            self.record.set_params(params.as_dict())
        said: list[str] = []
        for pane in self.panes:
            left = fit_pane(pane, self.shared_params)
            if left:
                said.append(f"{self.pane_name(pane)}: {left}")
        summary = shared_summary(self.shared_params)
        head = (
            f"Parameters for every pane's next requests: {summary}"
            if summary
            else "Parameters cleared: each provider's own params apply."
        )
        self.notify(
            "\n".join([head, *said]), severity="warning" if said else "information", markup=False
        )

    def pane_name(self, pane: ComparePane) -> str:
        """`pane 2`, and while blind only its letter (its label then): no provider named."""
        return f"pane {pane.label}" if self.blind else f"pane {pane.number} ({pane.label})"

    # -- attachments -----------------------------------------------------------------------

    def _said(self, problem: str) -> str:
        """A problem with a file, without a provider's name while blind."""
        if self.blind and any(p.provider.name in problem for p in self.panes):
            return HIDDEN_LIMIT
        return problem

    def action_attach(self) -> None:
        async def done(attachment: Attachment | None) -> None:
            said = await self.attaching.attached(attachment)
            if said is not None:
                self.notify(said, markup=False)
            self.prompt.focus()

        providers = [pane.provider for pane in self.panes]
        dialog = AttachDialog(self.attaching.root, providers, said=self._said)
        self.app.push_screen(dialog, done)

    async def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area is self.prompt:  # `@path ` typed: attached as the user moves on
            providers = [pane.provider for pane in self.panes]
            pasted = self.attaching.pasted(self.prompt.take_pasted())
            if pasted is not None:
                self.notify(pasted, severity="warning", markup=False)
            problem = await self.attaching.mentions_closed(self.prompt.text, providers)
            if problem is not None:
                self.notify(self._said(problem), severity="error", markup=False)

    async def attachments_for_send(self, text: str) -> Outgoing | None:
        """`text` as sent, with the files to send to every pane, within each pane's limits;
        None (said, the prompt and its chips kept) when one cannot be sent."""
        try:
            return await self.attaching.for_send(text, [pane.provider for pane in self.panes])
        except AttachmentError as exc:
            self.prompt.load_text(text)
            self.prompt.move_cursor(self.prompt.document.end)  # typing goes on where it was
            self.notify(self._said(str(exc)), severity="error", markup=False)
            return None


def fit_pane(pane: ComparePane, params: RequestParams | None) -> str:
    """Set the pane's parameters to what its format takes of `params`; what was left out."""
    if params is None:
        pane.params = None
        return ""
    fitted, left = fitted_for(params, pane.provider.api, pane.provider.max_tokens)
    pane.params = None if fitted.is_empty else fitted
    names = ", ".join(knob for knob, _ in left)
    return f"{names} left out (not taken by its format)" if names else ""


__all__ = ["HIDDEN_LIMIT", "NOTE", "TITLE", "CompareShaping", "fit_pane", "shared_summary"]
