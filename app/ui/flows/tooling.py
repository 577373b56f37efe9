"""The app's tools for a session: `[tools]` from the config and the MCP servers' tools, which
are on, and the approvals remembered until the app quits. Nothing of app/tools is loaded
unless some tool is configured (the first screen does not need it).

The MCP servers are started once, at start, in one long-lived worker (the SDK's connections
must be opened and closed in one task); a server that fails to start is reported and skipped.
A prompt sent before they are up waits for them (`kit`). Every pane gets its kit from here, so
an "always" answer in one pane holds in every pane; each pane asks its own approvals.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.worker import Worker

from app.settings.config import Config
from app.ui.palette import Choice, show_choices

if TYPE_CHECKING:
    from app.tools.approval import ApprovalPolicy
    from app.tools.mcp_client import McpServers
    from app.tools.registry import Tool, ToolRegistry
    from app.ui.widgets.tool_rounds import ToolKit

CLOSE_WAIT = 5.0  # seconds quitting waits for the servers to close


class ToolSession:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.registry: ToolRegistry | None = None  # listed by `start`
        self.servers: McpServers | None = None
        self.approvals: ApprovalPolicy | None = None  # its sets are shared by every pane's
        self.off: set[str] = set()  # tools the user turned off (Triptych's names)
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._worker: Worker[None] | None = None

    @property
    def configured(self) -> bool:
        return bool(self.config.tools or self.config.mcp)

    def start(self, app: App[Any]) -> None:
        """List the tools: at once for `[tools]`, in a worker for the MCP servers."""
        if not self.configured:
            self._ready.set()
            return
        from app.tools.approval import ApprovalPolicy
        from app.tools.mcp_client import missing_sdk_message, sdk_installed
        from app.tools.registry import build_registry

        self.approvals = ApprovalPolicy()
        self.registry = build_registry(self.config.tools.values(), ())
        if not self.config.mcp:
            self._ready.set()
            return
        if not sdk_installed():
            self._ready.set()
            app.notify(
                missing_sdk_message(list(self.config.mcp.values())) + "; its tools are skipped",
                severity="warning",
                timeout=10,
                markup=False,
            )
            return
        self._worker = app.run_worker(self._host(app), group="mcp", exit_on_error=False)

    async def _host(self, app: App[Any]) -> None:
        from app.tools.mcp_client import McpServers
        from app.tools.registry import build_registry

        try:
            servers = await McpServers.start(
                list(self.config.mcp.values()), self.config.tool_timeout
            )
        except Exception as exc:  # never expected (each server's failure is a problem)
            app.notify(f"The MCP servers did not start: {exc}", severity="error", markup=False)
            return
        finally:
            self._ready.set()  # a prompt waiting for the servers goes on, with what there is
        self.servers = servers
        self.registry = build_registry(self.config.tools.values(), servers.listed)
        for problem in servers.problems:
            app.notify(f"{problem}; its tools are skipped", severity="warning", markup=False)
        try:
            await self._closing.wait()
        finally:
            await servers.aclose()

    async def ready(self) -> None:
        await self._ready.wait()

    @property
    def listed(self) -> tuple[Tool, ...]:
        """Every tool offered (on or off); none before `start`."""
        return () if self.registry is None else self.registry.tools

    def names(self) -> list[str]:
        return [t.name for t in self.listed]

    def chosen(self) -> ToolRegistry:
        """The tools that are on."""
        from app.tools.registry import ToolRegistry

        return ToolRegistry(tuple(t for t in self.listed if t.name not in self.off))

    def choose(self, names: Sequence[str]) -> None:
        """Only these are on from now on."""
        self.off = {t.name for t in self.listed if t.name not in set(names)}

    def toggle(self, tool: Tool) -> bool:
        """Turn one tool on or off; True when it is on now."""
        if tool.name in self.off:
            self.off.discard(tool.name)
            return True
        self.off.add(tool.name)
        return False

    async def kit(self) -> ToolKit | None:
        """What the next prompt offers, once the servers are up; None when no tool is on."""
        if not self.configured:
            return None
        await self._ready.wait()
        registry = self.chosen()
        if not registry or self.approvals is None:
            return None
        from app.ui.widgets.tool_rounds import ToolKit

        return ToolKit(registry, self.servers, self.approvals, self.config.tool_rounds)

    async def aclose(self) -> None:
        """Close the servers (in the worker that opened them)."""
        self._closing.set()
        worker = self._worker
        if worker is not None and not worker.is_finished:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(worker.wait(), CLOSE_WAIT)


NONE_CONFIGURED = "No tools are configured: add [tools.NAME] or [mcp.NAME] to the config."


def pick_tools(app: App[Any], session: ToolSession) -> None:
    """ "Choose tools…": one entry per tool, ✓ on or ✗ off; choosing one turns it on or off
    for the next prompts (every pane's), and says so. (`app` is the ChatHost that holds
    `session`: its type is not named here, as the host names this module's.)"""
    if not session.configured:
        app.notify(NONE_CONFIGURED, severity="warning", markup=False)
        return
    app.run_worker(_pick_tools(app, session), group="tools", exit_on_error=False)


async def _pick_tools(app: App[Any], session: ToolSession) -> None:
    await session.ready()  # the servers' tools are listed

    def toggle(tool: Tool) -> None:
        on = session.toggle(tool)
        count = len(session.chosen().tools)
        app.notify(
            f"{tool.name} is {'on' if on else 'off'}: {count} of {len(session.listed)} "
            "tools go with the next prompt.",
            timeout=4,
            markup=False,
        )

    choices = [
        Choice(
            f"{'✗' if tool.name in session.off else '✓'} {tool.name}",
            partial(toggle, tool),
            f"{'on' if tool.name not in session.off else 'off'} · "
            f"{tool.server or 'answered by hand'} · {tool.description}",
        )
        for tool in session.listed
    ]
    choices.append(Choice("All tools on", partial(session.choose, session.names()), "every one"))
    choices.append(Choice("All tools off", partial(session.choose, ()), "no tools are sent"))
    if not session.listed:
        app.notify("No tool was listed: every MCP server failed to start.", markup=False)
        return
    show_choices(app, choices, "Choose tools (✓ on, ✗ off)…")


__all__ = ["NONE_CONFIGURED", "ToolSession", "pick_tools"]
