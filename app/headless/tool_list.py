"""`triptych tools`: the tools the model would be offered, under the names to use with
`ask --use-tools` and `--tool-result`; MCP servers are started to list theirs (one that fails
is reported on stderr and skipped), then closed. Descriptions come from servers: untrusted,
printed cleaned."""

from __future__ import annotations

import asyncio
import json
from typing import Any, TextIO

from app.display.sanitize import literal_line
from app.headless.ask_tools import ToolSetup, started_tools
from app.tools.registry import Tool, ToolRegistry

DESCRIPTION_SHOWN = 80


def list_tools(setup: ToolSetup, stdout: TextIO, stderr: TextIO, *, as_json: bool) -> int:
    registry = asyncio.run(_registry(setup, stderr))
    if as_json:
        stdout.write(json.dumps([tool_json(t) for t in registry.tools]) + "\n")
    elif not registry:
        stdout.write("no tools: add [tools.NAME] or [mcp.NAME] to the config\n")
    else:
        stdout.write(format_tools(registry))
    return 0


async def _registry(setup: ToolSetup, stderr: TextIO) -> ToolRegistry:
    async with started_tools(setup, stderr) as (_, registry):
        return registry


def tool_json(tool: Tool) -> dict[str, Any]:
    return {
        "name": tool.name,
        "wire_name": tool.wire_name,
        "server": tool.server,
        "description": tool.description,
        "parameters": tool.parameters,
    }


def format_tools(registry: ToolRegistry) -> str:
    rows = [
        (
            tool.name,
            tool.wire_name if tool.wire_name != tool.name else "",
            f"mcp {tool.server}" if tool.server else "by hand",
            _first_line(tool.description),
        )
        for tool in registry.tools
    ]
    head = ("tool", "sent as", "answered", "description")
    shown = [[literal_line(cell) for cell in row] for row in [head, *rows]]
    widths = [max(len(row[i]) for row in shown) for i in range(3)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True))
        + "  "
        + row[3]
        for row in shown
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _first_line(text: str) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= DESCRIPTION_SHOWN else line[: DESCRIPTION_SHOWN - 1] + "…"


__all__ = ["format_tools", "list_tools", "tool_json"]
