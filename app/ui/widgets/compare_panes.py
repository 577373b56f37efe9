"""The row of compare panes (one at a time under tabs when narrow), and what each is built with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.containers import Container

from app.settings.config import ProviderConfig
from app.store.session import PaneHistory
from app.ui.render_clock import RenderClock
from app.ui.widgets.chat_pane import Connect
from app.ui.widgets.compare_pane import ComparePane

if TYPE_CHECKING:
    from app.ui.widgets.tool_rounds import ToolsSource


@dataclass(frozen=True, slots=True)
class PaneMaker:
    """What every compare pane is built with (the app's clock, clients and settings)."""

    connect: Connect
    clock: RenderClock
    system: str | None = None
    keep_reasoning_open: bool = False
    tools: ToolsSource | None = None  # each pane runs its own tool calls, asks its own approvals
    key_missing: Callable[[ProviderConfig], str | None] | None = None  # said before Enter

    def make(
        self,
        number: int,
        label: str,
        provider: ProviderConfig,
        model: str,
        history: PaneHistory | None = None,
    ) -> ComparePane:
        return ComparePane(
            number=number,
            label=label,
            provider=provider,
            model=model,
            connect=self.connect,
            clock=self.clock,
            system=self.system,
            keep_reasoning_open=self.keep_reasoning_open,
            history=history,
            tools=self.tools,
            key_missing=self.key_missing,
        )


class ComparePanes(Container):
    DEFAULT_CSS = """
    ComparePanes {
        layout: horizontal;
        height: 1fr;
        & > ComparePane { margin: 0 0 0 1; }
        & > ComparePane:first-child { margin: 0; }
        &.-tabbed > ComparePane { display: none; margin: 0; }
        &.-tabbed > ComparePane.-selected { display: block; }
    }
    """


__all__ = ["ComparePanes", "PaneMaker"]
