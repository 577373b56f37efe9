"""A small MCP server of the tests' own, built with the official SDK's server side.

    python -m tests.fakes.mcp_server stdio          # over stdin/stdout
    python -m tests.fakes.mcp_server http PORT      # streamable HTTP at http://127.0.0.1:PORT/mcp

Its tools cover what a client must survive: `get_weather` (a plain answer), `fail` (an error
result), `big` (a 5 MB result), `hang` (never answers), `die` (the
process exits mid-call), `echo_env` (what a secret-bearing env or header would leak). With
`--exit-at-start` it exits before the handshake, saying why on stderr; with `--prefix P` every
tool name starts with P (two copies then clash, or not). `--start-delay S` makes it take S more
seconds before it answers at all (a server slow to start: a Node or Python one importing its
world); `--mark PATH` appends a line to PATH as it starts (`started TIME PID`, wall-clock
seconds), which tells a test whether, when, and which process was started.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

BIG = 5 * 1024 * 1024


def build(prefix: str = "") -> MCPServer:
    server = MCPServer("triptych-fake")

    @server.tool(name=f"{prefix}get_weather", description="The weather now in a city")
    def get_weather(city: str) -> str:
        return f'{{"city": "{city}", "temp": 21}}'

    @server.tool(name=f"{prefix}fail", description="Always fails")
    def fail() -> str:
        raise ToolError("the weather station is offline")

    @server.tool(name=f"{prefix}big", description="Five megabytes of text")
    def big() -> str:
        return "x" * BIG

    @server.tool(name=f"{prefix}hang", description="Never answers")
    async def hang() -> str:
        mark = os.environ.get("FAKE_HANG_MARK")
        if mark:  # tells a test the call is running
            with open(mark, "w", encoding="utf-8") as file:
                file.write("running")
        await asyncio.sleep(3600)
        return "late"

    @server.tool(name=f"{prefix}die", description="Exits mid-call")
    def die() -> str:
        sys.stderr.write("fake server: dying mid-call\n")
        sys.stderr.flush()
        os._exit(3)

    @server.tool(name=f"{prefix}echo_env", description="Echoes FAKE_TOKEN")
    def echo_env() -> str:
        return f"token is {os.environ.get('FAKE_TOKEN', '')}"

    return server


def _option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def main(argv: list[str]) -> None:
    mark = _option(argv, "--mark")
    if mark is not None:
        with open(mark, "a", encoding="utf-8") as file:
            file.write(f"started {time.time()} {os.getpid()}\n")
    time.sleep(float(_option(argv, "--start-delay") or 0))
    if "--exit-at-start" in argv:
        sys.stderr.write("fake server: \x1b[31mcannot open the database\n")
        sys.exit(4)
    prefix = _option(argv, "--prefix") or ""
    server = build(prefix)
    if argv[0] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(argv[1]))
    else:
        server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
