"""A hostile loopback server: it answers each request with raw bytes, exactly as given.

The fake provider (tests/fakes/provider.py) speaks correct HTTP; this one may not. A response
here is the whole byte string after the request — status line, headers, body — so a test can
send a status line of garbage, a header of 60 KiB, chunking that lies, a gzip body that
expands a thousandfold or a `br` body. `random_response` draws such answers from a seeded
`random.Random`, bounded in size, for server-side fuzzing.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import random
import socket
import threading
import zlib
from collections import deque
from collections.abc import Iterator

from app.demo.frames import Answer, ToolUse, frames
from app.wire.engine import Api

_MAX_REQUEST = 1 << 20


class HostileServer:
    """Serves `push`ed raw responses on 127.0.0.1, one per connection, then closes it."""

    def __init__(self) -> None:
        self.responses: deque[bytes] = deque()
        self.served = 0
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.1)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    def push(self, *responses: bytes) -> HostileServer:
        self.responses.extend(responses)
        return self

    def close(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=2)
        self._sock.close()

    def __enter__(self) -> HostileServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with contextlib.closing(conn), contextlib.suppress(OSError):
            conn.settimeout(5)
            _read_request(conn)
            response = self.responses.popleft() if self.responses else _NOTHING_QUEUED
            self.served += 1
            conn.sendall(response)
            conn.shutdown(socket.SHUT_WR)
            # Let the client read to the end before the close can turn into a reset.
            with contextlib.suppress(OSError):
                while conn.recv(65536):
                    pass


def _read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < _MAX_REQUEST:
        piece = conn.recv(65536)
        if not piece:
            return
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            length = int(value.strip())
    while len(body) < min(length, _MAX_REQUEST):
        piece = conn.recv(65536)
        if not piece:
            return
        body += piece


_NOTHING_QUEUED = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"


# -- building responses ----------------------------------------------------------------------


def response(
    status: bytes | int = 200,
    headers: list[tuple[str, str]] | None = None,
    body: bytes = b"",
    *,
    framing: str = "length",
) -> bytes:
    """One raw response. `framing`: "length", "chunked", or "close" (no length at all)."""
    line = status if isinstance(status, bytes) else b"HTTP/1.1 %d Whatever" % status
    lines = [line]
    for name, value in headers or []:
        lines.append(f"{name}: {value}".encode("latin-1", "replace"))
    if framing == "length":
        lines.append(b"Content-Length: %d" % len(body))
        payload = body
    elif framing == "chunked":
        lines.append(b"Transfer-Encoding: chunked")
        payload = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body) if body else b"0\r\n\r\n"
    else:
        lines.append(b"Connection: close")
        payload = body
    return b"\r\n".join(lines) + b"\r\n\r\n" + payload


def sse_body(api: Api, answer: Answer | None = None) -> bytes:
    return b"".join(frames(api, answer or Answer(text=("Hello", " there."))))


# -- the fuzzer ------------------------------------------------------------------------------

_STATUS_LINES = [
    b"HTTP/1.1 200 OK",
    b"HTTP/1.0 200 OK",
    b"HTTP/1.1 200",
    b"HTTP/1.1 201 Created",
    b"HTTP/1.1 204 No Content",
    b"HTTP/1.1 301 Moved",
    b"HTTP/1.1 400 Bad Request",
    b"HTTP/1.1 401 Unauthorized",
    b"HTTP/1.1 404 Not Found",
    b"HTTP/1.1 429 Too Many Requests",
    b"HTTP/1.1 500 Internal Server Error",
    b"HTTP/1.1 503 Service Unavailable",
    b"HTTP/1.1 999 Odd",
    b"HTTP/1.1 099 Low",
    b"HTTP/1.1 abc Nonsense",
    b"HTTP/2.0 200 OK",
    b"HTTP/1.1 200 \xff\xfe\x1b]0;title\x07",
    b"garbage",
    b"",
]
_CONTENT_TYPES = [
    "text/event-stream",
    "application/json",
    "text/html",
    "text/plain",
    "application/octet-stream",
    "text/event-stream; charset=latin-1",
    "",
]
_ENCODINGS = ["", "", "", "gzip", "deflate", "br", "zstd", "identity", "gzip, gzip", "x-weird"]


def random_body(rng: random.Random) -> bytes:
    """A body of one of many shapes, at most a few hundred KiB."""
    kind = rng.randrange(14)
    api = rng.choice(list(Api))
    if kind == 0:
        return sse_body(api)
    if kind == 1:  # a real stream cut anywhere
        body = sse_body(api, _rich_answer(rng))
        return body[: rng.randrange(len(body) + 1)]
    if kind == 2:  # a real stream with bytes flipped
        body = bytearray(sse_body(api, _rich_answer(rng)))
        for _ in range(rng.randrange(1, 20)):
            body[rng.randrange(len(body))] = rng.randrange(256)
        return bytes(body)
    if kind == 3:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(2000)))
    if kind == 4:
        return rng.choice([b"<", b"<script", b"<title>", b"<a ", b"&#x", b"\n"]) * rng.randrange(
            1, 20000
        )
    if kind == 5:
        nested = rng.randrange(1, 5000)
        return b"[" * nested + b"]" * rng.randrange(nested + 1)
    if kind == 6:
        error = {"error": {"message": rng.choice(["boom", "\ud800", "x" * 5000, "\x1b[31m"])}}
        return json.dumps(error).encode()
    if kind == 7:
        return b"\n" * rng.randrange(200_000)
    if kind == 8:
        return b"data: " + b"x" * rng.randrange(100_000) + rng.choice([b"", b"\n\n"])
    if kind == 9:
        return b": keepalive\n\n" * rng.randrange(5000)
    if kind == 10:
        escapes = rng.choice([b"\\ud800", b"\\ude00", b"\\ud83d", b"\\u0000", b"\\u001b"])
        return sse_body(api, Answer(text=("@X@", "b"))).replace(b"@X@", escapes)
    if kind == 11:
        return (
            b"<html><head><title>"
            + b"T" * rng.randrange(500)
            + b"</title></head>"
            + (b"<p>down</p>" * rng.randrange(1000))
        )
    if kind == 12:
        return b"\xef\xbb\xbf" + sse_body(api)
    return b""


def _rich_answer(rng: random.Random) -> Answer:
    tool = ToolUse("f", ('{"a"', ": 1}"), id="c1") if rng.random() < 0.5 else None
    return Answer(text=("a", "b" * rng.randrange(50), "c"), reasoning=("r",), tool=tool)


def random_response(rng: random.Random) -> bytes:
    """One hostile answer: a random status line, headers and body, bounded in size."""
    status = b"HTTP/1.1 200 OK" if rng.random() < 0.5 else rng.choice(_STATUS_LINES)
    body = random_body(rng)
    headers: list[tuple[str, str]] = []
    content_type = rng.choice(_CONTENT_TYPES)
    if content_type:
        headers.append(("Content-Type", content_type))
    encoding = rng.choice(_ENCODINGS)
    if encoding:
        headers.append(("Content-Encoding", encoding))
        if encoding.startswith("gzip") and rng.random() < 0.8:
            body = gzip.compress(body)
        elif encoding == "deflate" and rng.random() < 0.8:
            if rng.random() < 0.5:
                body = zlib.compress(body)
            else:  # deflate without its zlib header, as some servers send it
                packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
                body = packer.compress(body) + packer.flush()
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        headers.append(_random_header(rng))
    framing = rng.choice(["length", "length", "chunked", "close"])
    raw = response(status, headers, body, framing=framing)
    if rng.random() < 0.05:  # a lie about the length, or chunking cut short
        raw = raw[: rng.randrange(len(raw) + 1)]
    return raw


def _random_header(rng: random.Random) -> tuple[str, str]:
    choice = rng.randrange(10)
    if choice in (0, 8):
        return "Retry-After", rng.choice(["5", "-1", "x" * rng.randrange(70_000), "1e9", "\t"])
    if choice in (1, 9):
        return "Location", rng.choice(["/elsewhere", "http://\x1b]52;c;aGk=\x07/", "x" * 5000])
    if choice == 2:
        return "Content-Length", rng.choice(["0", "-5", "99999999", "abc"])
    if choice == 3:
        return "Transfer-Encoding", rng.choice(["chunked", "gzip", "bogus"])
    if choice == 4:
        return "X-Long", "v" * rng.randrange(40_000)
    if choice == 5:
        return "Set-Cookie", "a=b; " * rng.randrange(100)
    if choice == 6:
        return "X-Bin", "".join(chr(rng.randrange(0x20, 0x100)) for _ in range(50))
    return "Content-Type", rng.choice(_CONTENT_TYPES) or "x/y"


def random_responses(seed: int, count: int) -> Iterator[bytes]:
    rng = random.Random(seed)
    for _ in range(count):
        yield random_response(rng)


__all__ = [
    "HostileServer",
    "random_body",
    "random_response",
    "random_responses",
    "response",
    "sse_body",
]
