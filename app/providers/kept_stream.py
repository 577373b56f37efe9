"""An answer's captured exchange as the history keeps it: its recording lines, zlib-compressed.

One format for both: what is stored is exactly what `--record` writes for that exchange, so a
stored stream reopens through the same reader (every line checked) and decodes again into the
same frames and events. The per-answer size limit was applied while capturing
(`CapturedExchange.cut`); reading back is bounded too, so a damaged row cannot inflate without end.
"""

from __future__ import annotations

import zlib

from app.providers.record import RecordingError, read_lines, recording_lines
from app.wire.api import Api
from app.wire.exchange import CapturedExchange

MAX_INFLATED = 96 * 1024 * 1024  # a kept stream is 8 MiB of body by default, JSON-quoted


class KeptStreamError(ValueError):
    """The stored stream cannot be read back; str() says why."""


def pack(exchange: CapturedExchange) -> bytes:
    """The compressed recording of the exchange (and of one it replaced), compressed as its
    lines are made: the whole text of a long answer's recording is never held."""
    compressor = zlib.compressobj(6)
    packed = bytearray()
    for line in recording_lines(exchange):
        packed += compressor.compress(line.encode("utf-8"))
    packed += compressor.flush()
    return bytes(packed)


def recording_of(blob: bytes) -> str:
    """The stored recording's text (an export with `--raw`), inflated to a bound."""
    inflater = zlib.decompressobj()
    try:
        text = inflater.decompress(blob, MAX_INFLATED)
    except zlib.error as exc:
        raise KeptStreamError(f"the stored stream is damaged ({exc})") from None
    if inflater.unconsumed_tail:
        raise KeptStreamError("the stored stream is larger than Triptych reads back")
    return text.decode("utf-8", "replace")


def unpack(blob: bytes, api: Api | str) -> CapturedExchange:
    """The captured exchange again, its frames decoded from the kept bytes."""
    from app.providers.capture import rebuild  # the engine and decoders: not for start-up

    text = recording_of(blob)
    try:
        recorded = read_lines(text.splitlines(), "stored stream")
    except RecordingError as exc:
        raise KeptStreamError(str(exc)) from None
    if not recorded:
        raise KeptStreamError("the stored stream holds no exchange")
    exchange: CapturedExchange | None = None
    for item in recorded:
        current = rebuild(item, Api(api))
        current.retried = exchange
        exchange = current
    assert exchange is not None
    return exchange


__all__ = ["KeptStreamError", "pack", "recording_of", "unpack"]
