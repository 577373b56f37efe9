"""Which tools are offered, under which names: `[tools]` from the config and what each MCP
server lists.

Every tool has Triptych's name (what `--use-tools`, `--tool-result`, the screen and the
approvals use) and a wire name (what the provider sees). Both are unique: a name two sources
offer is qualified on the server side as `SERVER.tool`, again while a qualified name meets
another (a server may list a tool called `A.search` itself); what still meets, a server listing
one name twice, gets `#2`, `#3`. Providers accept only letters, digits, `_` and `-` (at most
64), so the wire name is that name with anything else replaced by `_`, made unique.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.settings.config import ToolConfig
from app.wire.tools import ToolSpec

MAX_WIRE_NAME = 64
_NOT_WIRE = re.compile(r"[^A-Za-z0-9_-]")


class UnknownTool(ValueError):
    """`--use-tools` or `--tool-result` named no offered tool (a usage error)."""


@dataclass(frozen=True, slots=True)
class RemoteTool:
    """One tool as an MCP server listed it."""

    server: str
    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Tool:
    name: str  # Triptych's name
    wire_name: str  # the provider's
    description: str
    parameters: dict[str, Any]
    server: str | None = None  # None: a `[tools]` tool, answered by hand
    remote_name: str = ""  # the server's own name for it

    @property
    def qualified(self) -> str:
        """`SERVER.tool` for a server's tool (its own name for it), the name for one of ours."""
        return f"{self.server}.{self.remote_name}" if self.server is not None else self.name

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.wire_name, self.description, self.parameters)


@dataclass(frozen=True, slots=True)
class ToolRegistry:
    tools: tuple[Tool, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.tools)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tools]

    @property
    def servers(self) -> list[str]:
        return list(dict.fromkeys(t.server for t in self.tools if t.server is not None))

    def specs(self) -> list[ToolSpec]:
        return [t.spec for t in self.tools]

    def called(self, wire_name: str) -> Tool | None:
        """The tool a model's call names (by its wire name), None when none is offered."""
        return next((t for t in self.tools if t.wire_name == wire_name), None)

    def named(self, name: str) -> Tool | None:
        """A tool by Triptych's name, or else by its wire name, or else as `SERVER.tool`."""
        return (
            next((t for t in self.tools if t.name == name), None)
            or self.called(name)
            or next((t for t in self.tools if t.server and t.qualified == name), None)
        )

    def choose(self, wanted: Sequence[str], *, flag: str = "--use-tools") -> ToolRegistry:
        """Only these: each a tool's name or a server's (all its tools), or else `SERVER.tool`
        (the server's own name for it: what starts only that server), in offered order."""
        keep: set[str] = set()
        for entry in wanted:
            matched = [t.name for t in self.tools if entry in (t.name, t.wire_name, t.server)]
            if not matched:
                matched = [t.name for t in self.tools if t.server and entry == t.qualified]
            if not matched:
                offered = ", ".join([*self.names, *self.servers]) or "none"
                raise UnknownTool(f"{flag}: no tool or server named {entry!r}; offered: {offered}")
            keep.update(matched)
        return ToolRegistry(tuple(t for t in self.tools if t.name in keep))


def build_registry(local: Iterable[ToolConfig], remote: Iterable[RemoteTool]) -> ToolRegistry:
    """`[tools]` first, in config order, then each server's tools in the order listed."""
    local, remote = list(local), list(remote)
    tools = [Tool(t.name, "", t.description, t.parameters) for t in local]
    names = _distinct([t.name for t in local], remote)
    for r, name in zip(remote, names, strict=True):
        tools.append(Tool(name, "", r.description, r.parameters, r.server, r.name))
    taken: set[str] = set()
    named: list[Tool] = []
    for tool in tools:
        wire = _unique(_wire(tool.name), taken)
        taken.add(wire)
        named.append(Tool(tool.name, wire, *_rest(tool)))
    return ToolRegistry(tuple(named))


def _distinct(local: list[str], remote: list[RemoteTool]) -> list[str]:
    """Each remote tool's name: its own, qualified by its server while it meets another
    tool's, numbered when even that meets one (the same server listing one name twice)."""
    names = [r.name for r in remote]
    qualified = [False] * len(remote)
    while True:
        counts = Counter([*local, *names])
        clashing = [i for i, n in enumerate(names) if counts[n] > 1 and not qualified[i]]
        if not clashing:
            break
        for i in clashing:
            names[i], qualified[i] = f"{remote[i].server}.{remote[i].name}", True
    seen = Counter(local)
    for i, name in enumerate(names):
        seen[name] += 1
        if seen[name] > 1:
            n = seen[name]
            while f"{name}#{n}" in seen or f"{name}#{n}" in names:
                n += 1
            names[i] = f"{name}#{n}"
            seen[names[i]] += 1
    return names


def _rest(tool: Tool) -> tuple[str, dict[str, Any], str | None, str]:
    return tool.description, tool.parameters, tool.server, tool.remote_name


def _wire(name: str) -> str:
    return (_NOT_WIRE.sub("_", name) or "tool")[:MAX_WIRE_NAME]


def _unique(wire: str, taken: set[str]) -> str:
    candidate, n = wire, 2
    while candidate in taken:
        suffix = f"_{n}"
        candidate = wire[: MAX_WIRE_NAME - len(suffix)] + suffix
        n += 1
    return candidate


__all__ = ["RemoteTool", "Tool", "ToolRegistry", "UnknownTool", "build_registry"]
