"""One engine for all three formats: response bytes in, events out.

Wires the SSE reader to the right decoder, stops at the terminal event and turns anything the
decoder cannot read into a `StreamError` — nothing raised inside escapes to the caller. Surrogates
the JSON spells are mended on the way out (`app.wire.surrogates`), so no event holds text a UTF-8
writer would refuse.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from app.wire._payload import MalformedStream
from app.wire.api import Api
from app.wire.chat import ChatDecoder
from app.wire.events import KEEPALIVE, Event, StreamError
from app.wire.messages import MessagesDecoder
from app.wire.responses import ResponsesDecoder
from app.wire.sse import DEFAULT_MAX_EVENT_BYTES, Comment, EventTooLarge, Frame, SSEReader
from app.wire.surrogates import SurrogateMender, may_hold_surrogate
from app.wire.turn import Turn

Decoder = ChatDecoder | MessagesDecoder | ResponsesDecoder
# Told of every SSE item as it is decoded, with the events list and where its events start in it
# (the inspector links each frame to what it produced).
Tap = Callable[[Frame | Comment, list[Event], int], None]


def make_decoder(api: Api) -> Decoder:
    if api is Api.CHAT:
        return ChatDecoder()
    if api is Api.MESSAGES:
        return MessagesDecoder()
    return ResponsesDecoder()


class StreamEngine:
    """Decodes one response body. `done` turns True at the terminal event or an error."""

    def __init__(self, api: Api, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self.api = Api(api)
        self.done = False
        self.truncated = False  # the body ended inside an unterminated event
        self._reader = SSEReader(max_event_bytes)
        self._decoder: Decoder = make_decoder(self.api)
        self._mender = SurrogateMender()
        self._suspect = False  # a frame of this read may decode to surrogates
        self.tap: Tap | None = None

    @property
    def choices_finished(self) -> bool:
        """A Chat stream's every choice has had its finish_reason (False for other formats)."""
        decoder = self._decoder
        return isinstance(decoder, ChatDecoder) and decoder.all_finished

    def feed(self, chunk: bytes) -> list[Event]:
        """Events completed by this piece of the body; nothing once `done`."""
        if self.done:
            return []
        out: list[Event] = []
        self._feed(chunk, out)
        if self._suspect or self._mender.held:
            self._suspect = False
            self._mender.run(out)
        return out

    def _feed(self, chunk: bytes, out: list[Event]) -> None:
        try:
            items = self._reader.feed(chunk)
        except EventTooLarge as exc:
            self._decode(exc.frames, out)
            if not self.done:
                self._fail(out, "no_events" if exc.eventless else "event_too_large", str(exc))
            return
        except Exception as exc:  # a reader bug must not kill the app
            self._fail(out, "malformed_stream", f"the stream could not be read ({exc})")
            return
        if items:
            self._decode(items, out)

    def close(self) -> list[Event]:
        """End of body. Closes open tool calls; the turn decides what the ending means."""
        if self.done:
            return []
        self.done = True
        out: list[Event] = []
        try:
            if not self._accept_unterminated(out):
                self.truncated = self._reader.close()
                self._decoder.close(out)
        except Exception as exc:  # nothing raised inside escapes
            self._fail(out, "malformed_stream", f"the stream could not be read ({exc})")
        self._mender.run(out)  # once per stream, and few events: always
        self._mender.flush(out)
        return out

    def _decode(self, items: list[Frame | Comment], out: list[Event]) -> None:
        if self.tap is not None:
            self._decode_tapped(items, out, self.tap)
            return
        decode = self._decoder.decode
        try:
            for item in items:
                if isinstance(item, Comment):
                    out.append(KEEPALIVE)
                elif item.event == "ping" or not item.data or item.data.isspace():
                    # A named ping (any format) or an empty `data:` frame: liveness, no content.
                    out.append(KEEPALIVE)
                else:
                    if not self._suspect and may_hold_surrogate(item.data):
                        self._suspect = True
                    if decode(item, out):
                        self.done = True
                        return
        except MalformedStream as exc:
            self._fail(out, "malformed_stream", f"the stream could not be read: {exc}")
        except Exception as exc:  # an odd payload must end the turn, not the app
            self._fail(out, "malformed_stream", f"an event had an unexpected shape ({exc!r})")

    def _decode_tapped(self, items: list[Frame | Comment], out: list[Event], tap: Tap) -> None:
        """`_decode`, telling `tap` of each item: kept apart so the untapped loop pays nothing."""
        for number, item in enumerate(items):
            start = len(out)
            self._decode_one(item, out)
            tap(item, out, start)
            if self.done:
                for rest in items[number + 1 :]:  # read, but after the end: nothing decoded
                    tap(rest, out, len(out))
                return

    def _decode_one(self, item: Frame | Comment, out: list[Event]) -> None:
        try:
            if (
                isinstance(item, Comment)
                or item.event == "ping"
                or not item.data
                or item.data.isspace()
            ):
                out.append(KEEPALIVE)
            else:
                if not self._suspect and may_hold_surrogate(item.data):
                    self._suspect = True
                if self._decoder.decode(item, out):
                    self.done = True
        except MalformedStream as exc:
            self._fail(out, "malformed_stream", f"the stream could not be read: {exc}")
        except Exception as exc:  # an odd payload must end the turn, not the app
            self._fail(out, "malformed_stream", f"an event had an unexpected shape ({exc!r})")

    def _accept_unterminated(self, out: list[Event]) -> bool:
        """A terminal or error event cut only before its blank line still ends the stream.

        Anything else in an unterminated event is dropped, as the SSE spec says; decoding is
        tried on a copy so a rejected frame leaves no trace in the decoder.
        """
        frame = self._reader.unterminated()
        if frame is None or not frame.data or frame.data.isspace():
            return False
        probe = copy.deepcopy(self._decoder)
        scratch: list[Event] = []
        try:
            if not probe.decode(frame, scratch):
                return False
        except Exception:  # a cut frame is just a truncation
            return False
        self._reader.close()
        self._decoder = probe
        out.extend(scratch)
        return True

    def _fail(self, out: list[Event], code: str, message: str) -> None:
        self.done = True
        out.append(StreamError(code, message))


def decode_bytes(
    api: Api,
    pieces: list[bytes] | tuple[bytes, ...],
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> Turn:
    """Fold a whole recorded body into a settled turn (tests, replays, benchmarks)."""
    engine = StreamEngine(api, max_event_bytes)
    turn = Turn()
    for piece in pieces:
        turn.apply_all(engine.feed(piece))
        if engine.done:
            break
    turn.apply_all(engine.close())
    turn.end(reason="the body ended inside an event" if engine.truncated else "")
    return turn


__all__ = ["Api", "Decoder", "StreamEngine", "Tap", "decode_bytes", "make_decoder"]
