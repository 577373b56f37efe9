"""HTTP exchanges run by httpx's sync client on a thread of their own, their reads handed to
the event loop in batches.

Why a thread: through `httpx.AsyncClient` each network read of a stream costs the app's event
loop about 0.47 ms (profiled over a 20,000-token answer: anyio's cancel scope around every
read, and the transport paused and resumed each time), and a token arrives in a read of its
own. The same read on a thread cost about a quarter less CPU (5,000 reads over loopback), the
loop is woken once for all the reads that came while it was busy drawing, and each read is
timed as it arrives, not when the loop gets to it (bench/README.md has the figures).

Cancellation. Cancelling the task that awaits an exchange shuts its socket down at once, from
the loop: the thread's blocked read returns, and the provider sees the disconnect as it did
with the async client. While the request waits for its response on a pooled connection (one
made by an earlier exchange, whose socket this exchange has not seen), every socket the
client made is shut down when no other exchange is running on it; else the thread closes the
connection as soon as the response comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping
from types import TracebackType
from typing import Any
from weakref import WeakSet

import httpx

from app.providers.inflate import body_pieces

READ_AHEAD = 4 * 1024 * 1024  # bytes the thread reads before the loop has taken them
LINGER = 0.1  # seconds a body left before its end is read on, for its connection's sake
# The steps a stopped request goes no further than: httpcore closes what it holds when one
# raises (not so for its steps of closing, which must run to their end).
_STOPPABLE = frozenset(
    {
        "connection.connect_tcp.started",
        "http11.send_request_headers.started",
        "http11.send_request_body.started",
        "http11.receive_response_headers.started",
    }
)


class _Stopped(Exception):
    """The exchange was cancelled while the thread was between steps of the request."""


class ThreadedHttp:
    """An `httpx.Client` whose exchanges each run on a thread. Close it when done."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self._sockets: WeakSet[socket.socket] = WeakSet()  # every connection it made
        self._running: set[Exchange] = set()
        self._lock = threading.Lock()

    def stream(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        json: Any = None,
        params: Mapping[str, str] | None = None,
    ) -> Exchange:
        """`async with http.stream(…) as exchange`: the response is in when the block starts,
        its body comes through `exchange.pieces()`, and leaving the block ends the exchange."""
        return Exchange(self, method, url, headers, json, params)

    def close(self) -> None:
        """Stop the exchanges still running (their threads leave at once), then the client."""
        with self._lock:
            running = list(self._running)
        for exchange in running:
            exchange.stop()
        self.client.close()

    def _made(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.add(sock)

    def _shut_idle(self, exchange: Exchange) -> None:
        """Shut every socket this client made, when `exchange` is the only one running: its
        request is on one of them, and the others are idle in the pool (which makes a new
        connection for the next request when it finds one shut)."""
        with self._lock:
            if self._running - {exchange}:
                return
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


class Exchange:
    """One request and its response, run on a thread; the loop reads what the thread read."""

    def __init__(
        self,
        http: ThreadedHttp,
        method: str,
        url: str,
        headers: Mapping[str, str],
        json: Any,
        params: Mapping[str, str] | None,
    ) -> None:
        self._http = http
        self._request = (method, url, dict(headers), json, params)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Condition()
        self._items: deque[tuple[bytes, float] | BaseException | None] = deque()
        self._queued = 0  # bytes in `_items`
        self._waiter: asyncio.Future[None] | None = None
        self._wake_pending = False
        self._response: httpx.Response | None = None
        self.response_at = 0.0  # when the response came in (`time.monotonic()`)
        self._ready = threading.Event()  # the response (or the request's failure) is in
        self._failure: BaseException | None = None
        self._socket: socket.socket | None = None
        self._stopped = False
        self._finished = False  # the thread has left the request

    @property
    def response(self) -> httpx.Response:
        assert self._response is not None, "read inside `async with`"
        return self._response

    async def __aenter__(self) -> Exchange:
        self._loop = asyncio.get_running_loop()
        with self._http._lock:
            self._http._running.add(self)
        threading.Thread(target=self._run, name="triptych-http", daemon=True).start()
        try:
            await self._wait(for_response=True)
        except BaseException:
            self.stop()
            raise
        if self._failure is not None:
            self._forget()
            raise self._failure
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if kind is None and not self._finished:
            # Left at the stream's own end ([DONE], message_stop): HTTP's end of the body comes
            # just after it, and read, it leaves the connection to the next request.
            with contextlib.suppress(TimeoutError, httpx.HTTPError):
                async with asyncio.timeout(LINGER):
                    async for _ in self.pieces():
                        pass
        self.stop()

    async def pieces(self, *, every: float = 0.0) -> AsyncIterator[tuple[bytes, float]]:
        """The body, decoded, as the thread read it: each piece with the `time.monotonic()`
        it arrived at. A failure to read raises here, as httpx raised it. `every`: seconds at
        least from one take of the pieces read to the next; the loop is not woken for the
        reads in between (a piece that arrives after a quiet spell is taken at once)."""
        loop = asyncio.get_running_loop()
        while True:
            with self._lock:
                items = list(self._items)
                self._items.clear()
                self._queued = 0
                self._lock.notify()
            if not items:
                await self._wait(for_response=False)
                continue
            taken = loop.time()
            for item in items:
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
            rest = taken + every - loop.time()
            if rest > 0:
                await asyncio.sleep(rest)

    def stop(self) -> None:
        """End the exchange: a response not read to its end has its connection closed."""
        self._forget()
        with self._lock:
            if self._finished:
                return
            self._stopped = True
            self._lock.notify()
            sock = self._socket
        if sock is not None:
            _shut(sock)
        elif self._response is None:
            self._http._shut_idle(self)

    def _forget(self) -> None:
        with self._http._lock:
            self._http._running.discard(self)

    # -- the loop's side -------------------------------------------------------------------------

    async def _wait(self, *, for_response: bool) -> None:
        """Until the response is in (or the request failed), or a piece of its body is."""
        assert self._loop is not None
        while True:
            with self._lock:
                if self._ready.is_set() if for_response else self._items:
                    return
                waiter = self._waiter = self._loop.create_future()
            try:
                await waiter
            finally:
                self._waiter = None

    def _wake(self) -> None:
        with self._lock:
            self._wake_pending = False
            waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # -- the thread's side -----------------------------------------------------------------------

    def _run(self) -> None:
        method, url, headers, json, params = self._request
        last: BaseException | None = None  # what ended the exchange, if not its body's end
        try:
            with self._http.client.stream(
                method,
                url,
                headers=headers,
                json=json,
                params=params,
                extensions={"trace": self._trace},
            ) as response:
                self.response_at = time.monotonic()
                stream = response.extensions.get("network_stream")
                with self._lock:
                    if stream is not None:
                        self._socket = stream.get_extra_info("socket")
                    self._response = response
                self._ready.set()
                self._hand_over(None, wake_only=True)
                for piece in body_pieces(response):
                    if not self._hand_over((piece, time.monotonic())):
                        break
        except BaseException as exc:  # handed to the loop, raised there
            last = exc
        # Finished before the loop hears of it: a stop from then on leaves the connection,
        # back in the pool when its body was read to the end, for the next request.
        with self._lock:
            self._finished = True
            self._socket = None
        if not self._ready.is_set():
            self._failure = last
            self._ready.set()
            self._hand_over(None, wake_only=True)
        else:
            self._hand_over(last)

    def _trace(self, event: str, info: Mapping[str, Any]) -> None:
        """httpcore's trace of the request's steps: the sockets it connects, and a stop
        between steps."""
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            stream = info.get("return_value")
            sock = None if stream is None else stream.get_extra_info("socket")
            if isinstance(sock, socket.socket):
                self._http._made(sock)
                with self._lock:
                    self._socket = sock
        if self._stopped and event in _STOPPABLE:
            raise _Stopped

    def _hand_over(
        self, item: tuple[bytes, float] | BaseException | None, *, wake_only: bool = False
    ) -> bool:
        """Queue `item` for the loop (waiting while the loop is `READ_AHEAD` behind) and wake
        it if it waits; False once the exchange is stopped."""
        assert self._loop is not None
        if self._loop.is_closed():  # nobody will read on
            self._stopped = True
        with self._lock:
            if not wake_only:
                size = len(item[0]) if isinstance(item, tuple) else 0
                while self._queued > READ_AHEAD and not self._stopped:
                    self._lock.wait()
                if self._stopped:
                    return False
                self._items.append(item)
                self._queued += size
            if self._waiter is None or self._wake_pending:
                return not self._stopped
            self._wake_pending = True
        try:
            self._loop.call_soon_threadsafe(self._wake)
        except RuntimeError:  # the loop has closed: nobody will read on
            self._stopped = True
            return False
        return True


def _shut(sock: socket.socket) -> None:
    """Shut a connection's socket down for both directions: a read blocked on it returns at
    once (closing it would not wake the read). The base class's shutdown, on a TLS socket
    too: TLS's own would take its state from under the thread reading it."""
    with contextlib.suppress(OSError, ValueError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


__all__ = ["LINGER", "READ_AHEAD", "Exchange", "ThreadedHttp"]
