"""A scripted HTTP/1.1 server on 127.0.0.1 that plays replies as timed byte pieces.

Shared by the offline demo and the tests' fake provider: both need real sockets, real chunked
transfer encoding and real SSE bytes, so the client under test or on show takes its true path.
A reply is a status, headers and a list of steps (send bytes, pause, cut the connection with a
FIN or an RST). The server runs in daemon threads (stdlib `ThreadingHTTPServer`), so it never
competes with an asyncio or Textual event loop, and it notices a client that goes away during a
pause, not only on its next write, so a cancel can be measured from the server's side.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_POLL = 0.005  # seconds between disconnect checks while pausing


@dataclass(frozen=True, slots=True)
class Send:
    data: bytes


@dataclass(frozen=True, slots=True)
class Pause:
    seconds: float


@dataclass(frozen=True, slots=True)
class Cut:
    """End the connection where the script stands: a FIN, or an RST when `reset`."""

    reset: bool = False


Step = Send | Pause | Cut


@dataclass(frozen=True, slots=True)
class Reply:
    status: int = 200
    headers: tuple[tuple[str, str], ...] = (("Content-Type", "text/event-stream"),)
    steps: tuple[Step, ...] = ()
    chunked: bool = True  # False: no length, the body ends when the connection closes
    wait: float = 0.0  # seconds before the status line (a server slow to answer at all)
    own_headers: bool = True  # False: no Server and Date of the loopback's own (a replay's)


def json_reply(
    status: int, document: object, *, headers: tuple[tuple[str, str], ...] = ()
) -> Reply:
    body = json.dumps(document).encode()
    return Reply(status, (("Content-Type", "application/json"), *headers), (Send(body),))


@dataclass(slots=True)
class SeenRequest:
    """One request as the server saw it, and what became of its reply (monotonic seconds)."""

    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes
    received: float
    finished: float | None = None  # the reply was sent in full
    disconnected: float | None = None  # the client went away before the reply ended
    done: threading.Event = field(default_factory=threading.Event)
    peer: int = 0  # the client's port: which connection the request came on

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


Route = Callable[[SeenRequest], Reply]


class LoopbackServer:
    """Serves `route(request) -> Reply` on 127.0.0.1 at a free port until `close`."""

    def __init__(self, route: Route, port: int = 0) -> None:
        """`port` 0 takes a free one; a test of a fixed port (a local server's) names it."""
        self.route = route
        self.requests: list[SeenRequest] = []
        self.stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._httpd.owner = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=2)

    def __enter__(self) -> LoopbackServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Gone(Exception):
    """The client closed the connection."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "triptych-loopback"
    timeout = 60  # an idle keep-alive connection is dropped after this many seconds

    def handle(self) -> None:
        # A client may drop a kept-alive connection at any time; that is not a server error.
        with contextlib.suppress(ConnectionError):
            super().handle()

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the demo runs under a TUI and the tests read `requests` instead."""

    def _handle(self) -> None:
        owner: LoopbackServer = self.server.owner  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        seen = SeenRequest(
            self.command,
            self.path,
            {k.lower(): v for k, v in self.headers.items()},
            self.rfile.read(length) if length else b"",
            time.monotonic(),
            peer=self.client_address[1],
        )
        owner.requests.append(seen)
        try:
            try:
                reply = owner.route(seen)
            except Exception as exc:  # a broken script shows up as an answer, not a hang
                reply = json_reply(500, {"error": {"message": f"route failed: {exc!r}"}})
            self._play(reply, owner.stopping, seen)
            if seen.finished is None:
                seen.finished = time.monotonic()
        except _Gone:
            seen.finished = None
            seen.disconnected = time.monotonic()
            self.close_connection = True
        finally:
            seen.done.set()

    def _play(self, reply: Reply, stopping: threading.Event, seen: SeenRequest) -> None:
        if reply.wait:
            self._pause(reply.wait, stopping)
        if reply.own_headers:
            self.send_response(reply.status)
        else:  # only the reply's headers: a replay shows what the recorded server sent
            self.log_request(reply.status)
            self.send_response_only(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        if reply.chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self._flush()
        for step in reply.steps:
            if isinstance(step, Send):
                if step.data:
                    framed = b"%x\r\n%s\r\n" % (len(step.data), step.data)
                    self._write(framed if reply.chunked else step.data)
            elif isinstance(step, Pause):
                self._pause(step.seconds, stopping)
            else:
                self._cut(step.reset)
                return
        if reply.chunked:
            # Read before the last bytes go: once they have, the client may be on to its next
            # request, and a reading taken after could fall behind that request's arrival.
            seen.finished = time.monotonic()
            self._write(b"0\r\n\r\n")

    def _write(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
            self._flush()
        except OSError:
            raise _Gone from None

    def _flush(self) -> None:
        try:
            self.wfile.flush()
        except OSError:
            raise _Gone from None

    def _pause(self, seconds: float, stopping: threading.Event) -> None:
        """Wait, watching the socket: a readable socket with no data means the client left."""
        deadline = time.monotonic() + seconds
        sock = self.connection
        while not stopping.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            readable, _, _ = select.select([sock], [], [], min(left, _POLL * 4))
            if readable:
                try:
                    if not sock.recv(1, socket.MSG_PEEK):
                        raise _Gone
                except OSError:
                    raise _Gone from None
                time.sleep(_POLL)  # bytes of a next request: nothing to do until the reply ends
        raise _Gone  # the server is closing

    def _cut(self, reset: bool) -> None:
        self.close_connection = True
        sock = self.connection
        with contextlib.suppress(OSError):
            if reset:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


__all__ = [
    "Cut",
    "LoopbackServer",
    "Pause",
    "Reply",
    "Route",
    "SeenRequest",
    "Send",
    "Step",
    "json_reply",
]
