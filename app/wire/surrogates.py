"""Surrogates from JSON `\\uD8xx` escapes: join the pairs a provider split, replace the rest.

A JSON string may spell any UTF-16 code unit, so a payload can hand Python a lone surrogate,
which no UTF-8 writer accepts (the terminal, stdout, sqlite): one such character would crash a
screen or lose an answer. Real providers also cut an emoji's pair across two deltas (`\\ud83d`
in one chunk, `\\ude00` in the next). The mender holds a delta's trailing high surrogate until
the next delta of the same channel (text, reasoning, one call's arguments), joins what pairs,
and turns every surrogate still alone into U+FFFD; a held one left at the end (of the stream, of
its call, or of the reasoning once the answer's text begins) becomes U+FFFD.

It runs only over events of frames whose data holds such an escape (the raw text is decoded
from UTF-8 with replacement, so it never holds a surrogate itself), or while one is held.
"""

from __future__ import annotations

import dataclasses
import re

from app.wire.events import (
    EndOfStream,
    Event,
    ReasoningDelta,
    Source,
    Sources,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
)

_SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH = ("\ud800", "\udbff")
Channel = str | int  # "text", "reasoning", or a call's index


def may_hold_surrogate(data: str) -> bool:
    """True when a JSON payload has an escape that decodes to a surrogate (cheap, no regex)."""
    return "\\u" in data and ("\\ud" in data or "\\uD" in data)


def mend(text: str) -> str:
    """Pairs joined, every lone surrogate replaced with U+FFFD."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class SurrogateMender:
    """Rewrites events in place; keeps the one high surrogate per channel that may yet pair."""

    def __init__(self) -> None:
        self.held: dict[Channel, str] = {}

    def run(self, events: list[Event], start: int = 0) -> None:
        """Mend `events[start:]` in place."""
        if start >= len(events):
            return
        mended: list[Event] = []
        for event in events[start:]:
            if isinstance(event, TextDelta):
                if "reasoning" in self.held:  # the answer began: the thinking before it is over
                    self._flush("reasoning", mended)
                text = self._join("text", event.text)
                if text:
                    mended.append(TextDelta(text))
            elif isinstance(event, ReasoningDelta):
                text = self._join("reasoning", event.text)
                if text:
                    mended.append(ReasoningDelta(text))
            elif isinstance(event, ToolCallArgsDelta):
                text = self._join(event.index, event.fragment)
                if text:
                    mended.append(ToolCallArgsDelta(event.index, text))
            elif isinstance(event, ToolCallEnd):
                self._flush(event.index, mended)
                mended.append(_mend_fields(event))
            elif isinstance(event, EndOfStream | StreamError):
                self.flush(mended)
                mended.append(_mend_fields(event))
            else:
                mended.append(_mend_fields(event))
        events[start:] = mended

    def flush(self, out: list[Event]) -> None:
        """The end: every high surrogate still held becomes U+FFFD on its channel."""
        for channel in list(self.held):
            self._flush(channel, out)

    def _join(self, channel: Channel, text: str) -> str:
        text = self.held.pop(channel, "") + text
        if text and _HIGH[0] <= text[-1] <= _HIGH[1]:
            self.held[channel] = text[-1]
            text = text[:-1]
        return mend(text)

    def _flush(self, channel: Channel, out: list[Event]) -> None:
        if self.held.pop(channel, None) is None:
            return
        if channel == "text":
            out.append(TextDelta("\ufffd"))
        elif channel == "reasoning":
            out.append(ReasoningDelta("\ufffd"))
        elif isinstance(channel, int):
            out.append(ToolCallArgsDelta(channel, "\ufffd"))


def mend_events(events: list[Event]) -> list[Event]:
    """A whole answer's events at once (a JSON document): mended, nothing held back."""
    mender = SurrogateMender()
    mender.run(events)
    mender.flush(events)
    return events


def _mend_fields(event: Event) -> Event:
    """Any other event: every string field mended (ids, names, messages, sources)."""
    if type(event) is Sources:
        items = tuple(Source(mend(s.url), mend(s.title)) for s in event.items)
        return event if items == event.items else Sources(items)
    changes = {}
    for item in dataclasses.fields(event):
        value = getattr(event, item.name)
        if isinstance(value, str):
            fixed = mend(value)
            if fixed is not value:
                changes[item.name] = fixed
    return dataclasses.replace(event, **changes) if changes else event  # type: ignore[arg-type]


__all__ = ["SurrogateMender", "may_hold_surrogate", "mend", "mend_events"]
