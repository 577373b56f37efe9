"""One engine for all three formats: response bytes in, events out.

Wires the SSE reader to the right decoder, stops at the terminal event and turns anything the
decoder cannot read into a `StreamError` — nothing raised inside escapes to the caller.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from app.wire._payload import MalformedStream
from app.wire.chat import ChatDecoder
from app.wire.events import KEEPALIVE, Event, StreamError
from app.wire.messages import MessagesDecoder
from app.wire.responses import ResponsesDecoder
from app.wire.sse import DEFAULT_MAX_EVENT_BYTES, Comment, EventTooLarge, SSEReader
from app.wire.turn import Turn


class Api(StrEnum):
    CHAT = "chat"
    MESSAGES = "messages"
    RESPONSES = "responses"


class Decoder(Protocol):
    def decode(self, frame: object, out: list[Event]) -> bool: ...
    def close(self, out: list[Event]) -> None: ...


def make_decoder(api: Api) -> ChatDecoder | MessagesDecoder | ResponsesDecoder:
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
        self._decoder = make_decoder(self.api)

    def feed(self, chunk: bytes) -> list[Event]:
        if self.done:
            return []
        out: list[Event] = []
        try:
            items = self._reader.feed(chunk)
            decode = self._decoder.decode
            for item in items:
                if type(item) is Comment:
                    out.append(KEEPALIVE)
                elif decode(item, out):  # type: ignore[arg-type]
                    self.done = True
                    break
        except EventTooLarge as exc:
            self._fail(out, "event_too_large", str(exc))
        except MalformedStream as exc:
            self._fail(out, "malformed_stream", f"the stream could not be read: {exc}")
        except (TypeError, KeyError, AttributeError, IndexError, ValueError) as exc:
            self._fail(out, "malformed_stream", f"an event had an unexpected shape ({exc})")
        return out

    def close(self) -> list[Event]:
        """End of body. Closes open tool calls; the turn decides what the ending means."""
        if self.done:
            return []
        self.done = True
        self.truncated = self._reader.close()
        out: list[Event] = []
        self._decoder.close(out)
        return out

    def _fail(self, out: list[Event], code: str, message: str) -> None:
        self.done = True
        out.append(StreamError(code, message))


def decode_bytes(api: Api, pieces: list[bytes] | tuple[bytes, ...]) -> Turn:
    """Fold a whole recorded body into a settled turn (tests, replays, benchmarks)."""
    engine = StreamEngine(api)
    turn = Turn()
    for piece in pieces:
        turn.apply_all(engine.feed(piece))
        if engine.done:
            break
    turn.apply_all(engine.close())
    turn.end()
    return turn


__all__ = ["Api", "StreamEngine", "decode_bytes", "make_decoder"]
