"""MCP servers over the official `mcp` SDK (the optional extra `triptych[mcp]`).

`McpServers.start` connects to every configured server — a `command` over stdio, a `url` over
streamable HTTP — lists its tools, and keeps the connection for the session. A server that
cannot start, answer or list in time is reported in `problems` and skipped; nothing else stops.
`call` runs one tool and always returns a `ToolResult`: an error result says what went wrong
(the server's error, no answer within the timeout, the server gone, the call cancelled).

Servers' output is untrusted: a stdio server runs over app/tools/mcp_stdio.py, which reads
its stdout bounded and linear and turns a malformed line into an error answer at once; only
the tail of its stderr is kept, never shown on the terminal (its last line is quoted, scrubbed
then cleaned and cut, when it fails to start); a result is scrubbed of the servers' secrets,
then cut to MAX_RESULT characters, before anyone sees it.

Each server starts on its own and at once with the others (`serve`, one task each: the SDK is
built on anyio task groups, so a connection is opened and closed in one task; calls may come
from any). `start` runs one task per server and is back when every one has listed its tools or
failed: the wait is the slowest server's, not the sum (a UI runs `serve` in a worker per server
instead, and offers each one's tools as it comes up).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

from app.settings.config import McpServerConfig
from app.settings.redaction import REDACTED, mcp_secrets, scrub, scrub_cut, unique
from app.tools.registry import RemoteTool, Tool
from app.wire.tools import ResultOrigin, ToolResult

if TYPE_CHECKING:
    from mcp import Client

    from app.tools.mcp_stdio import StderrTail

MAX_RESULT = 256 * 1024  # characters of one result sent to the model and stored
MIN_START = 30.0  # seconds a server gets to start and list its tools, even with a short timeout
_STDERR_QUOTED = 200
EXTRA_HINT = "pip install 'triptych[mcp]'"


def sdk_installed() -> bool:
    return find_spec("mcp") is not None


def load_sdk() -> None:
    """Import the SDK and the stdio transport now: a UI does it on a thread, since the imports
    (pydantic models, anyio) hold its loop for a while."""
    import mcp  # noqa: F401

    from app.tools import mcp_stdio  # noqa: F401


def missing_sdk_message(servers: Sequence[McpServerConfig]) -> str:
    names = ", ".join(f"[mcp.{s.name}]" for s in servers)
    return f"{names} needs the MCP Python SDK, which is not installed: {EXTRA_HINT}"


@dataclass(slots=True)
class _Connection:
    config: McpServerConfig
    client: Client
    timeout: float
    gone: str = ""  # why the server cannot be called any more


@dataclass(slots=True)
class McpServers:
    timeout: float
    connections: dict[str, _Connection] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    order: tuple[str, ...] = ()  # the config's order, which `listed` and `problems` keep
    _listed: dict[str, list[RemoteTool]] = field(default_factory=dict)
    _problems: dict[str, str] = field(default_factory=dict)
    _closing: asyncio.Event = field(default_factory=asyncio.Event)
    _hosts: list[asyncio.Task[None]] = field(default_factory=list)

    @classmethod
    def of(cls, configs: Sequence[McpServerConfig], timeout: float) -> McpServers:
        """Servers to start (none started yet), each with `serve`."""
        secrets = unique(s for c in configs for s in mcp_secrets(c))
        return cls(timeout, secrets=secrets, order=tuple(c.name for c in configs))

    @classmethod
    async def start(cls, configs: Sequence[McpServerConfig], timeout: float) -> McpServers:
        """Start every server at once, each in a task of its own (bounded by its timeout);
        back when each has listed its tools or failed."""
        servers = cls.of(configs, timeout)
        started = {c.name: asyncio.Event() for c in configs}
        servers._hosts = [
            asyncio.create_task(servers.serve(c, lambda name: started[name].set())) for c in configs
        ]
        try:
            await asyncio.gather(*(event.wait() for event in started.values()))
        except BaseException:  # cancelled: no server is left running
            for host in servers._hosts:
                host.cancel()
            await asyncio.gather(*servers._hosts, return_exceptions=True)
            raise
        return servers

    @property
    def listed(self) -> list[RemoteTool]:
        """The tools of the servers started so far, in the config's order."""
        return [tool for name in self.order for tool in self._listed.get(name, ())]

    @property
    def problems(self) -> list[str]:
        """Why servers failed to start, in the config's order."""
        return [self._problems[name] for name in self.order if name in self._problems]

    def problem_of(self, name: str) -> str | None:
        return self._problems.get(name)

    async def serve(
        self, config: McpServerConfig, started: Callable[[str], None] | None = None
    ) -> None:
        """Start one server, list its tools, call `started(name)` (also when it failed), and
        keep it until `aclose`: opened and closed in this one task."""
        stack = AsyncExitStack()
        try:
            try:
                await self._start_one(config, stack)
            finally:
                if started is not None:
                    started(config.name)
            if config.name in self.connections:
                await self._closing.wait()
        finally:
            await _close_quietly(stack)

    async def _start_one(self, config: McpServerConfig, stack: AsyncExitStack) -> None:
        timeout = config.timeout or self.timeout
        stderr: StderrTail | None = None
        try:
            if config.command:
                from app.tools.mcp_stdio import StderrTail, cwd_problem

                stderr = StderrTail()
                problem = cwd_problem(config.cwd)
                if problem is not None:
                    raise _CannotStart(problem)
            client = await _connect(config, stack, timeout, stderr)
            listing = await client.list_tools()
        except asyncio.CancelledError:
            await _close_quietly(stack)
            raise
        except Exception as exc:
            await _close_quietly(stack)  # first: the server's last words are all in
            why = _startup_problem(exc, timeout, stderr, self.secrets)
            self._problems[config.name] = f"MCP server {config.name!r} failed to start: {why}"
            return
        self.connections[config.name] = _Connection(config, client, timeout)
        self._listed[config.name] = [
            RemoteTool(
                config.name, tool.name, tool.description or "", offered_schema(tool.input_schema)
            )
            for tool in listing.tools
        ]

    async def call(self, tool: Tool, arguments: dict[str, Any]) -> ToolResult:
        """Run one tool; every failure is an error result, never an exception (but a
        cancellation, which the SDK passes on to the server as `notifications/cancelled`)."""
        connection = self.connections.get(tool.server or "")
        if connection is None:
            return _error(f"the MCP server {tool.server!r} is not running")
        if connection.gone:
            return _error(f"the MCP server {tool.server!r} {connection.gone}")
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
        from pydantic import ValidationError

        from app.tools.mcp_stdio import MALFORMED, UNSENT

        unsendable = _unsendable(arguments)
        if unsendable is not None:
            return _error(f"nothing was sent to {tool.server!r}: {unsendable}")
        try:
            result = await connection.client.call_tool(
                tool.remote_name, arguments, read_timeout_seconds=connection.timeout
            )
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                return _error(
                    f"no answer from {tool.server!r} within {connection.timeout:g} s "
                    "(tool_timeout); the call was cancelled"
                )
            if exc.code == CONNECTION_CLOSED:
                connection.gone = "stopped during a call"
                return _error(f"the MCP server {tool.server!r} stopped during the call")
            if exc.data is MALFORMED:  # the transport's answer to a line that was no message
                return _error(self._cut(f"the MCP server {tool.server!r} sent {exc.message}"))
            if exc.data is UNSENT:  # ... to a request it could not write
                return _error(self._cut(f"nothing was sent to {tool.server!r}: {exc.message}"))
            return _error(self._cut(f"the server answered with an error: {exc.message}"))
        except ValidationError as exc:  # an answer of the wrong shape: this call fails, not all
            first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": str(exc)}
            where = ".".join(map(str, first["loc"])) or "result"
            shape = f"{where}: {first['msg']}"
            return _error(
                self._cut(
                    f"the MCP server {tool.server!r} sent a result of the wrong shape: {shape}"
                )
            )
        except ValueError as exc:  # the SDK could not build the request (arguments too deep)
            return _error(
                f"the call to {tool.server!r} was not made: {_describe(exc, self.secrets)}"
            )
        except Exception as exc:  # a broken pipe: say so, keep going
            connection.gone = f"failed: {type(exc).__name__}"
            return _error(f"the call to {tool.server!r} failed: {_describe(exc, self.secrets)}")
        text = self._scrubbed(_result_text(result.content, result.structured_content))
        size = len(text.encode("utf-8", "replace"))
        if len(text) > MAX_RESULT:
            text = text[:MAX_RESULT] + (
                f"\n[Triptych: the result was cut at {MAX_RESULT // 1024} KiB of {_size(size)}]"
            )
        return ToolResult(text, bool(result.is_error), ResultOrigin.MCP, size)

    async def aclose(self) -> None:
        """Close every server (each in the task that opened it), and wait for those `start`
        ran (a UI waits for its own workers)."""
        self._closing.set()
        await asyncio.gather(*self._hosts, return_exceptions=True)

    def _scrubbed(self, text: str) -> str:
        return scrub(text, self.secrets)

    def _cut(self, text: str) -> str:
        """A server's message for one line: scrubbed whole, then cleaned and cut."""
        return _one_line(scrub(text, self.secrets), _STDERR_QUOTED * 2, self.secrets)


class _CannotStart(Exception):
    """A server that cannot be started, for a reason found before trying."""


async def _connect(
    config: McpServerConfig, stack: AsyncExitStack, timeout: float, stderr: StderrTail | None
) -> Client:
    from mcp import Client

    transport: Any
    if config.command and sys.platform == "win32":  # the SDK's (its process handling there)
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        program, *args = config.command
        parameters = StdioServerParameters(
            command=program, args=args, env=dict(config.env) or None, cwd=config.cwd
        )
        devnull = stack.enter_context(open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
        transport = stdio_client(parameters, errlog=devnull)
    elif config.command:
        from app.tools.mcp_stdio import StderrTail, bounded_stdio_client

        program, *args = config.command
        transport = bounded_stdio_client(
            program,
            args,
            env=dict(config.env) or None,
            cwd=None if config.cwd is None else os.fspath(config.cwd),
            stderr=stderr if stderr is not None else StderrTail(),
        )
    else:
        import httpx2  # the SDK's HTTP client (a dependency of `mcp`)
        from mcp.client.streamable_http import streamable_http_client

        # The SDK's own default timeouts: 30 s to connect, 300 s to read a held stream.
        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers=config.headers, timeout=httpx2.Timeout(30.0, read=300.0))
        )
        transport = streamable_http_client(str(config.url), http_client=http)
    # A server's start (a Python or Node process importing its world) may take far longer
    # than one call should: the handshake and listing get at least MIN_START seconds.
    start = max(timeout, MIN_START)
    client = Client(transport, read_timeout_seconds=start, mode="legacy", cache=None)
    return await stack.enter_async_context(client)


async def _close_quietly(stack: AsyncExitStack) -> None:
    """Close a server's connection; a server that misbehaves while closing is not an error."""
    with contextlib.suppress(Exception):
        await stack.aclose()


def _startup_problem(
    exc: BaseException, timeout: float, stderr: StderrTail | None, secrets: Sequence[str]
) -> str:
    """Why a server did not start, and its last stderr line: every secret scrubbed from the
    whole text before anything of it is cut."""
    why = _describe(exc, secrets)
    if "timed out" in why.lower():
        why = f"no answer within {max(timeout, MIN_START):g} s"
    lines = stderr.text().splitlines() if stderr is not None else []
    at = next((i for i in reversed(range(len(lines))) if lines[i].strip()), None)
    if stderr is not None and at is not None:
        last = lines[at].strip()
        if stderr.cut and at == 0:  # the tail kept starts inside this line
            last = "…" + _without_secret_end(last, secrets)
        why += f" (its last words: {_one_line(scrub(last, secrets), _STDERR_QUOTED, secrets)})"
    return why


def _describe(exc: BaseException, secrets: Sequence[str]) -> str:
    """The innermost message of an exception (task groups wrap them in groups), scrubbed,
    then made one printable line and cut."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return _one_line(f"command not found: {exc.filename or exc}", _STDERR_QUOTED * 2, secrets)
    text = str(exc).strip() or type(exc).__name__
    return _one_line(scrub(text, secrets), _STDERR_QUOTED * 2, secrets)


def _one_line(text: str, limit: int, secrets: Sequence[str]) -> str:
    """Printable, at most `limit` characters; a start of a secret at the cut goes too."""
    text = "".join(c if c.isprintable() else "?" for c in text[: limit + 1])
    if len(text) <= limit:
        return scrub(text, secrets)
    return scrub_cut(text[:limit] + "…", secrets)


def _without_secret_end(text: str, secrets: Sequence[str]) -> str:
    """Text that was cut at its start, with a leading end of a secret redacted."""
    for secret in secrets:
        for size in range(min(len(secret), len(text)), 0, -1):
            if secret.endswith(text[:size]):
                return REDACTED + text[size:]
    return text


def _unsendable(arguments: dict[str, Any]) -> str | None:
    """Why the arguments cannot go to a server as JSON (half a surrogate pair from a model,
    which no UTF-8 can carry), or None."""
    try:
        json.dumps(arguments, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end] if isinstance(exc.object, str) else ""
        shown = "".join(f"\\u{ord(c):04x}" for c in bad[:4])
        return f"the arguments hold half a surrogate pair ({shown}), which is not text"
    except (ValueError, RecursionError) as exc:  # nested deeper than Python reads
        return f"the arguments cannot be written as JSON: {type(exc).__name__}"
    return None


def _result_text(content: Sequence[Any], structured: Any) -> str:
    """Text blocks as they are; any other block summarised (an image is not text a model
    reads here); structured content when there is no text."""
    parts: list[str] = []
    for block in content:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(block.text))
        else:
            data = getattr(block, "data", "") or ""
            mime = getattr(block, "mime_type", "") or ""
            parts.append(f"[{kind} content{' ' + mime if mime else ''}, {len(data)} characters]")
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(parts)


def offered_schema(schema: Any) -> dict[str, Any]:
    """A server's input schema as providers take it: an object schema with `properties`
    (a server may list `{}` or leave them out, which some providers reject)."""
    offered: dict[str, Any] = dict(schema) if isinstance(schema, dict) else {}
    offered.setdefault("type", "object")
    if offered["type"] == "object":
        offered.setdefault("properties", {})
    return offered


def _error(message: str) -> ToolResult:
    return ToolResult(message, is_error=True, origin=ResultOrigin.TRIPTYCH)


def _size(count: int) -> str:
    return f"{count / (1024 * 1024):.1f} MiB" if count >= 1024 * 1024 else f"{count // 1024} KiB"


__all__ = [
    "MAX_RESULT",
    "McpServers",
    "load_sdk",
    "missing_sdk_message",
    "offered_schema",
    "sdk_installed",
]
