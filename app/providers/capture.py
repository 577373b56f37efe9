"""Capturing an exchange as it streams (the inspector's data), and rebuilding one from its
recorded bytes (a stored answer, a recording file).

The client tells an `ExchangeCapture` of the response and of every network read before the
engine decodes it; the engine's tap tells it of every SSE item with the events decoded from it.
Secrets never reach the capture: the request is redacted as recordings redact it, each read goes
through the recorder's byte redactor (a key split across reads, or echoed in halves, is caught),
and a frame's data (and, when that held a secret, its events) through the same rule for text.

It is cheap: reads and frames are kept as columns (app/wire/exchange.py), a frame's one text
delta as its string, and past `keep_bytes` of body nothing more is kept, only counted
(`CapturedExchange.cut`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from app.providers.record import FRAGMENT, REDACTED, Exchange, byte_forms, redact_headers
from app.settings.redaction import Redactor, redact_url, scrub_json
from app.wire.engine import Api, StreamEngine
from app.wire.events import Event, Source, Sources
from app.wire.exchange import CapturedExchange, WireRequest
from app.wire.sse import Comment, Frame

KEEP_BYTES = 8 * 1024 * 1024  # of one answer's body, by default


class ExchangeCapture:
    """Fills one `CapturedExchange`; `started` is the monotonic time the request was sent."""

    def __init__(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: Any,
        secrets: Iterable[str | None] = (),
        *,
        keep_bytes: int = KEEP_BYTES,
        started: float | None = None,
    ) -> None:
        self.secrets = [s for s in secrets if s]
        self._start = time.monotonic() if started is None else started
        self.keep_bytes = max(0, keep_bytes)
        request = WireRequest(
            method,
            redact_url(url, self.secrets),
            redact_headers(headers, self.secrets, by_name=True),
            scrub_json(body, self.secrets),
            datetime.now(UTC).isoformat(timespec="milliseconds"),
        )
        self.exchange = CapturedExchange(request)
        self._bytes: Redactor[bytes] | None = None
        self._text: Redactor[str] | None = None
        if self.secrets:
            forms = byte_forms(self.secrets)
            self._bytes = Redactor(forms, REDACTED.encode(), fragments=FRAGMENT)
            texts = [form.decode("utf-8", "replace") for form in forms]
            self._text = Redactor(texts, REDACTED, fragments=FRAGMENT)
        self._now = 0.0  # ms: when the read being decoded arrived

    def _ms(self) -> float:
        return round((time.monotonic() - self._start) * 1000, 1)

    def ms_at(self, at: float) -> float:
        """`at` (a `time.monotonic()` reading) on this capture's clock."""
        return round((at - self._start) * 1000, 1)

    @property
    def read_ms(self) -> float:
        """When the read being decoded arrived (ms since the request was sent)."""
        return self._now

    def response(self, status: int, headers: Mapping[str, str], at_ms: float | None = None) -> None:
        exchange = self.exchange
        exchange.status = status
        exchange.headers = redact_headers(headers, self.secrets)
        exchange.response_ms = self._ms() if at_ms is None else at_ms

    def data(self, piece: bytes, at_ms: float | None = None) -> None:
        """A network read, before it is decoded (its frames then carry its time)."""
        exchange = self.exchange
        self._now = now = self._ms() if at_ms is None else at_ms
        exchange.total_bytes += len(piece)
        room = self.keep_bytes - exchange.kept_bytes
        if room <= 0:
            return
        if len(piece) > room:
            piece = piece[:room]
        exchange.kept_bytes += len(piece)
        if self._bytes is not None:
            piece = self._bytes.feed(piece)
        exchange.reads.add(now, piece)

    def tap(self, item: Frame | Comment, out: list[Event], start: int) -> None:
        """The engine's tap: one SSE item and the events decoded from it (`out[start:]`)."""
        exchange = self.exchange
        if exchange.cut:
            exchange.cut_frames += 1
            return
        events: Sequence[Event] = out[start:] if start < len(out) else ()
        if type(item) is Comment:
            event: str | None = None
            data = item.text
        else:
            assert type(item) is Frame
            event, data = item.event, item.data
        text = self._text
        if text is not None:
            clean = text.feed(data) + text.flush()
            if event:
                event = text.feed(event) + text.flush()
            if clean != data:  # the events hold what the data held: redact them too
                events = [_redacted(e, text) for e in events]
            data = clean
        exchange.frames.add(self._now, event, data, item.size, len(exchange.reads) - 1, events)

    def end(self, outcome: str, detail: str = "") -> None:
        exchange = self.exchange
        if exchange.done:
            return
        if self._bytes is not None:
            held = self._bytes.flush()
            if held:
                exchange.reads.add(self._ms(), held)
        exchange.outcome, exchange.detail = outcome, detail
        exchange.ended_ms = self._ms()


def _redacted(event: Event, text: Redactor[str]) -> Event:
    """An event with each of its strings redacted (ids, names, text, sources)."""

    def clean(value: str) -> str:
        return text.feed(value) + text.flush()

    if type(event) is Sources:
        return Sources(tuple(Source(clean(s.url), clean(s.title)) for s in event.items))
    changes = {
        f.name: clean(getattr(event, f.name))
        for f in dataclasses.fields(event)
        if isinstance(getattr(event, f.name), str)
    }
    return dataclasses.replace(event, **changes) if changes else event  # type: ignore[arg-type]


def rebuild(recorded: Exchange, api: Api, *, keep_bytes: int = KEEP_BYTES) -> CapturedExchange:
    """A captured exchange from recorded bytes (a stored answer, a recording): the frames and
    their events are decoded again, as they were live, at the recorded times. The bytes were
    redacted when recorded."""
    request = recorded.request
    headers = request.get("headers")
    capture = ExchangeCapture(
        str(request.get("method", "")),
        str(request.get("url", "")),
        headers if isinstance(headers, dict) else {},
        request.get("body"),
        keep_bytes=keep_bytes,
        started=0.0,
    )
    capture.exchange.request = dataclasses.replace(
        capture.exchange.request, time=str(request.get("time", ""))
    )
    if recorded.status is not None:
        capture.exchange.status = recorded.status
        capture.exchange.headers = dict(recorded.headers)
        if recorded.response_t is not None:
            capture.exchange.response_ms = round(recorded.response_t * 1000, 1)
    engine = StreamEngine(api)
    engine.tap = capture.tap
    last = 0.0
    for seconds, piece in recorded.pieces:
        last = round(seconds * 1000, 1)
        capture.data(piece, at_ms=last)
        if recorded.status is None or 200 <= recorded.status < 300:
            engine.feed(piece)
    capture.exchange.total_bytes += recorded.cut_bytes  # what the recording says it left out
    capture.exchange.outcome = recorded.outcome or "eof"
    capture.exchange.detail = recorded.detail
    capture.exchange.ended_ms = last if recorded.end_t is None else round(recorded.end_t * 1000, 1)
    return capture.exchange


__all__ = ["KEEP_BYTES", "ExchangeCapture", "rebuild"]
