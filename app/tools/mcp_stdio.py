"""An MCP stdio transport that survives what a server writes: used in place of the SDK's
`stdio_client`, built from the SDK's own pieces (its message types, its environment defaults,
its process-tree stop).

Why not the SDK's own (mcp 2.3): it joins every read onto the pending line, quadratic in a
line's length (one 64 MiB result line took 36-66 s of CPU); a line that is not a JSON-RPC
message (garbage, a batch, a `null` result, JSON nested 100k deep, a lone surrogate escape)
gets a logged traceback and is dropped, so the call waits out its whole timeout; a request it
cannot serialize (half a surrogate pair in a model's arguments) raises in its writer task and
takes the connection down; and stderr goes to a file without bound.

Here a line is read in linear time and at most MAX_LINE bytes of it kept. A line that is not a
message answers, at once, the request it names with an error, or else every request waiting
(a server answers in order; which one it meant cannot be known); the connection stays up.
A request that cannot be sent is answered with an error the same way. The server's stderr is
read as it comes and only its last STDERR_TAIL bytes are kept (`StderrTail`).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
import pydantic_core
from anyio.abc import ByteReceiveStream, Process
from mcp.client.stdio import get_default_environment
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

MAX_LINE = 32 * 1024 * 1024  # bytes of one message; a longer line is skipped as it streams
STDERR_TAIL = 64 * 1024  # bytes of a server's stderr kept (its last words)
# `ErrorData.data` of the answers this transport makes (a server's data is JSON, never these)
MALFORMED = object()  # for a line that is no message
UNSENT = object()  # for a request that could not be written
_READ = 64 * 1024
_EXIT_GRACE = 2.0  # seconds a server gets to exit once its stdin is closed (as the SDK gives)
_KILL_GRACE = 2.0  # ... and after SIGTERM, before SIGKILL


@dataclass(frozen=True, slots=True)
class TooLong:
    """A line longer than the limit: only its size was counted."""

    size: int


@dataclass(slots=True)
class LineSplitter:
    """Bytes in, complete lines out, in time linear in the bytes (each piece is looked at
    once and joined once); a line past `limit` bytes is counted, not kept."""

    limit: int = MAX_LINE
    _parts: list[bytes] = field(default_factory=list)
    _size: int = 0

    def feed(self, data: bytes) -> list[bytes | TooLong]:
        lines: list[bytes | TooLong] = []
        start = 0
        while (end := data.find(b"\n", start)) != -1:
            self._add(data[start:end])
            lines.append(self._take())
            start = end + 1
        self._add(data[start:])
        return lines

    def close(self) -> list[bytes | TooLong]:
        """The last line, when the stream ended without a newline after it."""
        return [self._take()] if self._size else []

    def _add(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._size <= self.limit:
            self._parts.append(piece)
        else:
            self._parts.clear()

    def _take(self) -> bytes | TooLong:
        line: bytes | TooLong = (
            b"".join(self._parts) if self._size <= self.limit else TooLong(self._size)
        )
        self._parts, self._size = [], 0
        return line


@dataclass(frozen=True, slots=True)
class Malformed:
    """A line that is not a JSON-RPC message: why (one line), and the request it answers
    when it names one."""

    why: str
    answers: types.RequestId | None = None


JSON_BLANK = b" \t\r\n"


def read_message(line: bytes | TooLong) -> SessionMessage | Malformed | None:
    """One line of a server's stdout as the SDK's message, or why it is none (None: a blank
    line, which says nothing)."""
    if isinstance(line, TooLong):
        return Malformed(f"an answer of {_mib(line.size)}, more than the {_mib(MAX_LINE)} read")
    if not line.strip(JSON_BLANK):
        return None  # JSON's own whitespace only: any other character is a line to answer for
    text = line.decode("utf-8", "replace")
    try:
        value = pydantic_core.from_json(text)
    except ValueError as exc:
        reason = str(exc)
        if "recursion limit" in reason:
            return Malformed(f"an answer nested too deeply to read ({reason})")
        return Malformed(f"a line that is not JSON ({reason})")
    if isinstance(value, list):
        return Malformed("a batch (a JSON array); MCP sends one message a line")
    if not isinstance(value, dict):
        return Malformed(f"a line that is JSON but not a message ({_kind(value)})")
    try:
        message = types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        return Malformed(_shape_problem(value), _request_id(value))
    return SessionMessage(message)


def _shape_problem(value: dict[str, Any]) -> str:
    if "result" in value and not isinstance(value["result"], dict):
        return f"an answer whose result is {_kind(value['result'])}, not an object"
    if "error" in value:
        return "an error answer without a code and a message"
    return "a JSON object that is not a JSON-RPC message"


def _request_id(value: dict[str, Any]) -> types.RequestId | None:
    if "method" in value:
        return None  # a request or notification of the server's own: it answers nothing
    found = value.get("id")
    if isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool)):
        return found
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", str: "a string", list: "an array", dict: "an object"}.get(
        type(value), "a number"
    )


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


@dataclass(slots=True)
class StderrTail:
    """The last `limit` bytes a server wrote to stderr (read as they come, so a chatty
    server never blocks on a full pipe, and never fills a disk)."""

    limit: int = STDERR_TAIL
    data: bytearray = field(default_factory=bytearray)
    cut: bool = False  # something before `data` was dropped

    def add(self, piece: bytes) -> None:
        self.data += piece
        if len(self.data) > 2 * self.limit:  # trimmed in batches: linear in what was written
            del self.data[: len(self.data) - self.limit]
            self.cut = True

    def text(self) -> str:
        data = self.data
        if len(data) > self.limit:
            data, self.cut = data[len(data) - self.limit :], True
        return bytes(data).decode("utf-8", "replace")


@dataclass(slots=True)
class _Waiting:
    """Requests sent and not yet answered, by their coerced id (the SDK correlates so)."""

    ids: dict[types.RequestId, types.RequestId] = field(default_factory=dict)

    def sent(self, message: types.JSONRPCMessage) -> None:
        if isinstance(message, types.JSONRPCRequest):
            self.ids[coerce_request_id(message.id)] = message.id
        elif isinstance(message, types.JSONRPCNotification) and message.method == (
            "notifications/cancelled"
        ):
            cancelled = (message.params or {}).get("requestId")
            if isinstance(cancelled, str | int):
                self.ids.pop(coerce_request_id(cancelled), None)

    def received(self, message: types.JSONRPCMessage) -> None:
        if not isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            return
        if message.id is not None:
            self.ids.pop(coerce_request_id(message.id), None)

    def answered_by(self, bad: Malformed) -> list[types.RequestId]:
        if bad.answers is not None:
            named = self.ids.pop(coerce_request_id(bad.answers), None)
            return [] if named is None else [named]
        every = list(self.ids.values())
        self.ids.clear()
        return every


def _error_answer(request: types.RequestId, message: str, kind: object) -> SessionMessage:
    error = types.ErrorData(code=types.PARSE_ERROR, message=message, data=kind)
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request, error=error))


@asynccontextmanager
async def bounded_stdio_client(
    command: str,
    args: list[str],
    *,
    env: dict[str, str] | None,
    cwd: str | None,
    stderr: StderrTail,
) -> AsyncIterator[Any]:
    """Run the server and yield the SDK's (read, write) message streams (a `Transport`)."""
    process = await anyio.open_process(
        [command, *args],
        env=get_default_environment() | (env or {}),
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: stopped whole at the end
    )
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    waiting = _Waiting()

    async def deliver(item: SessionMessage | Malformed | None) -> None:
        if isinstance(item, SessionMessage):
            waiting.received(item.message)
            await to_session.send(item)
        elif isinstance(item, Malformed):
            for request in waiting.answered_by(item):
                why = f"a malformed answer: {item.why}"
                await to_session.send(_error_answer(request, why, MALFORMED))

    async def read_stdout() -> None:
        assert process.stdout is not None
        splitter = LineSplitter()
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with to_session:
                async for data in _chunks(process.stdout):
                    for line in splitter.feed(data):
                        await deliver(read_message(line))
                for line in splitter.close():
                    await deliver(read_message(line))
        # The session is gone: keep reading, so a server blocked writing can see its stdin
        # close and exit by itself (the pipe closes in `_stop` at the latest).
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for _ in _chunks(process.stdout):
                pass

    async def read_stderr() -> None:
        assert process.stderr is not None
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for data in _chunks(process.stderr):
                stderr.add(data)

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async with from_session:
                async for item in from_session:
                    try:
                        data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                        encoded = data.encode("utf-8")
                    except ValueError as exc:  # half a surrogate pair, say: nothing is sent
                        if isinstance(item.message, types.JSONRPCRequest):
                            why = f"the request cannot be written as JSON: {_first_line(exc)}"
                            await to_session.send(_error_answer(item.message.id, why, UNSENT))
                        continue
                    waiting.sent(item.message)
                    await process.stdin.send(encoded + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await to_session.aclose()  # the server stopped reading: the session sees the end

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(read_stderr)
        tasks.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                write_stream.close()
                read_stream.close()
                await _stop(process)
            tasks.cancel_scope.cancel()


async def _chunks(stream: ByteReceiveStream) -> AsyncIterator[bytes]:
    while True:
        try:
            yield await stream.receive(_READ)
        except anyio.EndOfStream:
            return


async def _stop(process: Process) -> None:
    """As the MCP spec says: close its stdin, give it time to exit, then stop its process
    group (SIGTERM, then SIGKILL), every wait bounded."""
    assert process.stdin is not None
    with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    with anyio.move_on_after(_EXIT_GRACE):
        while process.returncode is None:
            await anyio.sleep(0.01)
    if process.returncode is None:
        await terminate_posix_process_tree(process, _KILL_GRACE)
    with anyio.move_on_after(_KILL_GRACE):
        await process.wait()
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError, anyio.BrokenResourceError):
                await pipe.aclose()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


def cwd_problem(cwd: str | os.PathLike[str] | None) -> str | None:
    """Why a server cannot be started in `cwd` (a folder that is not there), or None."""
    if cwd is None or os.path.isdir(cwd):
        return None
    return f"its cwd is not a folder: {os.fspath(cwd)}"


__all__ = [
    "MALFORMED",
    "MAX_LINE",
    "STDERR_TAIL",
    "UNSENT",
    "LineSplitter",
    "Malformed",
    "StderrTail",
    "TooLong",
    "bounded_stdio_client",
    "cwd_problem",
    "read_message",
]
