"""The app's tools for a session: `[tools]` from the config and the MCP servers' tools, which
are on, and the approvals remembered until the app quits. Nothing of app/tools is loaded
unless some tool is configured, and then after the first frame (which does not need it).

The MCP servers start after the first frame, each in a worker of its own (the SDK's
connections are opened and closed in one task), and each one's tools are offered as soon as it
has listed them; a server that fails to start is reported once and skipped. A prompt sent
before then waits only for the servers whose tools it offers (`kit`), and its status bar
names them. Every pane gets its kit from here, so an "always" answer in one pane holds in
every pane; each pane asks its own approvals.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.worker import Worker

from app.settings.config import Config, McpServerConfig
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
        self.registry: ToolRegistry | None = None  # `[tools]` at `start`, each server's as it lists
        self.servers: McpServers | None = None
        self.approvals: ApprovalPolicy | None = None  # its sets are shared by every pane's
        self.off: set[str] = set()  # tools the user turned off (Triptych's names)
        self.starting: list[str] = []  # servers not yet listed nor failed, in the config's order
        self.off_servers: set[str] = set()  # of those, the ones whose tools are to be off
        self._changed = asyncio.Event()  # set (and replaced) whenever `starting` changes
        self._workers: dict[str, Worker[None]] = {}
        self._closed = False

    @property
    def configured(self) -> bool:
        return bool(self.config.tools or self.config.mcp)

    def start(self, app: App[Any]) -> None:
        """At mount: nothing is loaded (the first frame waits for what is); a prompt sent from
        now on waits for the MCP servers it offers, which start after the first frame
        (`start_servers`)."""
        self.starting = list(self.config.mcp)

    def prepare(self) -> None:
        """The approvals and `[tools]`, listed at once when first needed."""
        if self.approvals is not None or not self.configured:
            return
        from app.tools.approval import ApprovalPolicy
        from app.tools.registry import build_registry

        self.approvals = ApprovalPolicy()
        self.registry = build_registry(self.config.tools.values(), ())

    def start_servers(self, app: App[Any]) -> None:
        """After the first frame: the SDK is loaded on a thread (it takes seconds, and the
        screen keeps drawing meanwhile), then each server starts in a worker of its own."""
        self.prepare()
        if not self.starting:
            return
        from app.tools.mcp_client import missing_sdk_message, sdk_installed

        if not sdk_installed():
            app.notify(
                missing_sdk_message(list(self.config.mcp.values())) + "; its tools are skipped",
                severity="warning",
                timeout=10,
                markup=False,
            )
            self.starting = []
            self._changes()
            return
        app.run_worker(self._launch(app), group="mcp", exit_on_error=False)

    async def _launch(self, app: App[Any]) -> None:
        from app.tools.mcp_client import McpServers, load_sdk

        await asyncio.to_thread(load_sdk)
        if self._closed:  # quit while the SDK loaded
            return
        configs = [self.config.mcp[name] for name in self.starting]
        self.servers = McpServers.of(configs, self.config.tool_timeout)
        for config in configs:
            self._workers[config.name] = app.run_worker(
                self._host(app, self.servers, config),
                name=f"mcp {config.name}",
                group="mcp",
                exit_on_error=False,
            )

    async def _host(self, app: App[Any], servers: McpServers, config: McpServerConfig) -> None:
        try:
            await servers.serve(config, partial(self._started, app))
        except Exception as exc:  # never expected (a server's failure is a problem)
            app.notify(
                f"The MCP server {config.name!r} did not start: {exc}",
                severity="error",
                markup=False,
            )
        finally:
            self._done_starting(config.name)  # a prompt waiting for it goes on, with what there is

    def _started(self, app: App[Any], name: str) -> None:
        """One server has listed its tools (or failed): they are offered from now on, under
        names that may have changed (a tool another server also lists is qualified), and a
        tool the user turned off stays off."""
        from app.tools.registry import build_registry

        if self.servers is None:
            return
        was_off = {_identity(t) for t in self.listed if t.name in self.off}
        self.registry = build_registry(self.config.tools.values(), self.servers.listed)
        turned_off = name in self.off_servers
        self.off = {
            t.name
            for t in self.listed
            if _identity(t) in was_off or (turned_off and t.server == name)
        }
        problem = self.servers.problem_of(name)
        if problem is not None:
            app.notify(f"{problem}; its tools are skipped", severity="warning", markup=False)
        self._done_starting(name)

    def _done_starting(self, name: str) -> None:
        if name in self.starting:
            self.starting.remove(name)
            self.off_servers.discard(name)
            self._changes()

    def _changes(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def waited_for(self) -> list[str]:
        """The servers a prompt sent now would wait for: still starting, and on."""
        return [name for name in self.starting if name not in self.off_servers]

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
        """Only these (tools, or servers still starting) are on from now on."""
        self.off = {t.name for t in self.listed if t.name not in set(names)}
        self.off_servers = {name for name in self.starting if name not in set(names)}
        self._changes()

    def all_on(self) -> None:
        self.choose([*self.names(), *self.starting])

    def toggle(self, tool: Tool) -> bool:
        """Turn one tool on or off; True when it is on now."""
        if tool.name in self.off:
            self.off.discard(tool.name)
            return True
        self.off.add(tool.name)
        return False

    def toggle_server(self, name: str) -> bool:
        """Turn a server that is still starting on or off (all its tools, once listed); a
        prompt waiting for it goes on without it. True when it is on now."""
        if name in self.off_servers:
            self.off_servers.discard(name)
        elif name in self.starting:
            self.off_servers.add(name)
        self._changes()
        return name not in self.off_servers

    async def kit(self, waiting: Callable[[list[str]], None] | None = None) -> ToolKit | None:
        """What the next prompt offers, once the servers whose tools it offers are up (told
        to `waiting`, again as each comes up, then with none); None when no tool is on."""
        if not self.configured:
            return None
        self.prepare()
        told = False
        while pending := self.waited_for():
            if waiting is not None:
                waiting(pending)
                told = True
            await self._changed.wait()
        if told and waiting is not None:
            waiting([])
        registry = self.chosen()
        if not registry or self.approvals is None:
            return None
        from app.ui.widgets.tool_rounds import ToolKit

        return ToolKit(registry, self.servers, self.approvals, self.config.tool_rounds)

    async def aclose(self) -> None:
        """Close the servers (each in the worker that opened it); one still starting is
        stopped (quitting does not wait for its start)."""
        self._closed = True
        for name in self.starting:
            if name in self._workers:
                self._workers[name].cancel()
        if self.servers is not None:
            await self.servers.aclose()
        running = [w.wait() for w in self._workers.values() if not w.is_finished]
        if running:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*running, return_exceptions=True), CLOSE_WAIT)


def _identity(tool: Tool) -> tuple[str | None, str]:
    """A tool as its source knows it, whatever name it is offered under."""
    return (tool.server, tool.remote_name or tool.name)


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
    """The tools listed so far, and an entry for each server still starting (its tools,
    once listed, on or off as a whole): the picker does not wait for a slow server."""
    session.prepare()

    def toggle(tool: Tool) -> None:
        on = session.toggle(tool)
        count = len(session.chosen().tools)
        app.notify(
            f"{tool.name} is {'on' if on else 'off'}: {count} of {len(session.listed)} "
            "tools go with the next prompt.",
            timeout=4,
            markup=False,
        )

    def toggle_server(name: str) -> None:
        on = session.toggle_server(name)
        app.notify(
            f"{name}'s tools are {'on' if on else 'off'} once it has started.",
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
    choices.extend(
        Choice(
            f"{'✗' if name in session.off_servers else '✓'} {name}: starting…",
            partial(toggle_server, name),
            f"{'off' if name in session.off_servers else 'on'} · MCP server · "
            "all its tools, once it has started",
        )
        for name in session.starting
    )
    choices.append(Choice("All tools on", session.all_on, "every one"))
    choices.append(Choice("All tools off", partial(session.choose, ()), "no tools are sent"))
    if not session.listed and not session.starting:
        app.notify("No tool was listed: every MCP server failed to start.", markup=False)
        return
    show_choices(app, choices, "Choose tools (✓ on, ✗ off)…")


__all__ = ["NONE_CONFIGURED", "ToolSession", "pick_tools"]
