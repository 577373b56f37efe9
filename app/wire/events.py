"""The one event model every wire format decodes into.

Decoders emit these; the turn accumulator folds them. Small frozen slotted dataclasses keep the
hot path cheap (one allocation per delta) and make events safe to hand between tasks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningSignature:
    """Messages `signature_delta`: replaces, never appends; sent back with the thinking block."""

    signature: str


@dataclass(frozen=True, slots=True)
class RedactedReasoning:
    """Messages `redacted_thinking` data, kept opaque for the next turn."""

    data: str


@dataclass(frozen=True, slots=True)
class ToolCallStart:
    index: int
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallArgsDelta:
    index: int
    fragment: str


@dataclass(frozen=True, slots=True)
class ToolCallEnd:
    """A call closed. `arguments` is the provider's authoritative full string when it sent one."""

    index: int
    arguments: str | None = None


@dataclass(frozen=True, slots=True)
class ServerToolUse:
    """A tool the provider ran on its own side (web search, code execution, an MCP server).

    Never a client tool call: nothing is to be run or answered by Triptych, so it is kept apart
    from `ToolCallStart` and shown as a status line. `server` names the MCP server, if any.
    """

    id: str
    name: str
    server: str = ""


@dataclass(frozen=True, slots=True)
class Source:
    url: str
    title: str = ""


@dataclass(frozen=True, slots=True)
class Sources:
    items: tuple[Source, ...]


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts as the provider reports them; None where it did not say.

    `cached_tokens` is the input read from the provider's prompt cache. Chat Completions and
    Responses count it inside `input_tokens`; Messages does not (its `input_tokens` is only the
    uncached input, beside `cache_read_input_tokens` and `cache_creation_input_tokens`), which
    `input_excludes_cached` says, so the cache-hit share means the same in every format.
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    cache_write_tokens: int | None = None  # Messages `cache_creation_input_tokens`
    input_excludes_cached: bool = False

    @property
    def cache_hit_share(self) -> float | None:
        """Cached input over all input (0..1); None unless the provider reported a cached
        count and an input count to set it against."""
        cached, fresh = self.cached_tokens, self.input_tokens
        if cached is None or fresh is None:
            return None
        total = (
            fresh + cached + (self.cache_write_tokens or 0) if self.input_excludes_cached else fresh
        )
        if total <= 0:
            return None
        return min(1.0, max(0.0, cached / total))


@dataclass(frozen=True, slots=True)
class Finish:
    """The provider's own finish word (chat finish_reason, messages stop_reason, response status).

    `detail` carries a reason the word alone hides, e.g. Responses' `incomplete_details.reason`.
    """

    reason: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class StreamError:
    code: str | None
    message: str


@dataclass(frozen=True, slots=True)
class Keepalive:
    """A comment line or ping: the model is still there."""


@dataclass(frozen=True, slots=True)
class EndOfStream:
    """The format's terminal event arrived: the turn is complete unless an error came first."""


Event = (
    TextDelta
    | ReasoningDelta
    | ReasoningSignature
    | RedactedReasoning
    | ToolCallStart
    | ToolCallArgsDelta
    | ToolCallEnd
    | ServerToolUse
    | Sources
    | Usage
    | Finish
    | StreamError
    | Keepalive
    | EndOfStream
)

KEEPALIVE = Keepalive()
END_OF_STREAM = EndOfStream()

__all__ = [
    "END_OF_STREAM",
    "KEEPALIVE",
    "EndOfStream",
    "Event",
    "Finish",
    "Keepalive",
    "ReasoningDelta",
    "ReasoningSignature",
    "RedactedReasoning",
    "ServerToolUse",
    "Source",
    "Sources",
    "StreamError",
    "TextDelta",
    "ToolCallArgsDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "Usage",
]
