"""A response body's bytes, inflated at most `PIECE` bytes at a time.

httpx inflates each network read whole: 64 KiB of gzip can be 64 MiB of newlines handed over at
once. For gzip and deflate (all httpx decodes without optional packages) the client reads the
raw bytes instead and inflates them here with a bound on every step, so the work and memory of
one piece never depend on how well a hostile body compresses. Any other encoding is left to
httpx (or refused by the client, when httpx cannot decode it either).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import httpx

PIECE = 1024 * 1024
_GZIP = zlib.MAX_WBITS | 16
INFLATABLE = frozenset({"gzip", "deflate"})


def encodings(header: str) -> list[str]:
    """The codings of a `Content-Encoding` header, in the order they were applied."""
    return [name for token in header.split(",") if (name := token.strip().lower())]


class _Step:
    """One coding undone, never more than `PIECE` bytes out per call."""

    def __init__(self, coding: str) -> None:
        self._coding = coding
        self._head = b""  # deflate's first bytes, until its zlib header can be told apart
        self._started = coding != "deflate"
        self._inflater = zlib.decompressobj(_GZIP if coding == "gzip" else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        if not self._started:
            # Deflate may come without its zlib header (as some servers send it): two bytes
            # tell, so the first attempt sees at least two and a retry starts from the top.
            self._head += data
            if len(self._head) < 2:
                return
            data, self._head, self._started = self._head, b"", True
            try:
                first = self._inflater.decompress(data, PIECE)  # the header is checked here
            except zlib.error:
                self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
            else:
                if first:
                    yield first
                data = self._inflater.unconsumed_tail
        yield from self._inflate(data)

    def _inflate(self, data: bytes) -> Iterator[bytes]:
        while data:
            try:
                out = self._inflater.decompress(data, PIECE)
            except zlib.error as exc:
                raise httpx.DecodingError(f"the {self._coding} body is corrupt ({exc})") from None
            data = self._inflater.unconsumed_tail
            if out:
                yield out
            elif not data or self._inflater.eof:
                return

    def flush(self) -> Iterator[bytes]:
        if self._head:
            self._started = True
            yield from self._inflate(self._head)
        try:
            out = self._inflater.flush()
        except zlib.error as exc:
            raise httpx.DecodingError(f"the {self._coding} body is corrupt ({exc})") from None
        for start in range(0, len(out), PIECE):
            yield out[start : start + PIECE]


class Inflater:
    """Undoes the codings a body lists (last applied, first undone), piece by bounded piece."""

    def __init__(self, codings: list[str]) -> None:
        self._steps = [_Step(c) for c in reversed(codings) if c != "identity"]

    def feed(self, data: bytes) -> Iterator[bytes]:
        yield from self._through(0, data)

    def flush(self) -> Iterator[bytes]:
        for depth, step in enumerate(self._steps):
            for piece in step.flush():
                yield from self._through(depth + 1, piece)

    def _through(self, depth: int, data: bytes) -> Iterator[bytes]:
        if depth == len(self._steps):
            if data:
                yield data
            return
        for piece in self._steps[depth].feed(data):
            yield from self._through(depth + 1, piece)


def body_pieces(response: httpx.Response) -> Iterator[bytes]:
    """The body decoded, in pieces of at most `PIECE` bytes when this module inflates it."""
    codings = encodings(response.headers.get("content-encoding", ""))
    if not codings or not all(c in INFLATABLE or c == "identity" for c in codings):
        yield from response.iter_bytes()
        return
    inflater = Inflater(codings)
    for raw in response.iter_raw():
        yield from inflater.feed(raw)
    yield from inflater.flush()


__all__ = ["INFLATABLE", "PIECE", "Inflater", "body_pieces", "encodings"]
