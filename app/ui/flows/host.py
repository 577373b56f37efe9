"""What the flows need of the app: `ChatHost`, the base class `TriptychApp` fills in.

Flows are typed against this, never against the concrete app (which imports them), so the
imports of app/ui point down only: app → flows → screens → widgets. It is an `App` (the flows
push screens, run workers and notify through Textual's own methods) that declares the few
members of Triptych's app they use besides: the settings, the history, the chat pane and its
screen, how clients and compare panes are made, and switching the chat's provider.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.notifications import SeverityLevel

from app.display.sanitize import literal, literal_line
from app.settings.config import Config, ProviderConfig
from app.store.session import History
from app.ui.render_clock import RenderClock
from app.ui.screens.chat import ChatScreen
from app.ui.widgets.chat_pane import ChatPane, Connect

if TYPE_CHECKING:
    from app.ui.flows.tooling import ToolSession


class ChatHost(App[int]):
    config: Config
    history: History
    pane: ChatPane  # the chat's pane, which lives as long as the app
    chat_screen: ChatScreen
    connect: Connect  # makes a client for a provider (the demo's server started if needed)
    render_clock: RenderClock
    reasoning_open: bool  # new turns' reasoning panes start open
    batch_status: int | None  # how `batch --ui`'s run ended (its exit status); None: not yet
    saved_recordings: dict[str, Path]  # recordings the inspector saved, by their text's digest
    tools: ToolSession  # the session's tools: which are on, the MCP servers, the approvals
    # `key missing: set $X` when a provider's key is nowhere, said before anything is sent
    key_missing: Callable[[ProviderConfig], str | None]

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notice drawn as written: many carry outside text (a path, a server's or a
        provider's words, a file name), and none of the app's own uses markup, so markup is
        never read (a widget's `notify` passes `markup=True` on by default) and controls show
        as their pictures (app/display/sanitize.py)."""
        super().notify(
            literal(message),
            title=literal_line(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    async def use_provider(self, provider: ProviderConfig, model: str) -> None:
        """The chat carries on with `provider` and `model` (the header and state.toml too)."""
        raise NotImplementedError

    def show_title(self) -> None:
        """The header says again what the chat uses (provider, model, system prompt)."""
        raise NotImplementedError

    def switch_to(self, provider: ProviderConfig, model: str) -> None:
        """`use_provider` in a worker: for a palette choice."""
        raise NotImplementedError

    def action_new_chat(self) -> None:
        """A new conversation in the chat (the current one stays in the history)."""
        raise NotImplementedError


__all__ = ["ChatHost"]
